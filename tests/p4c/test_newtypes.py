"""`type` values as p4c 1.2.4.8 types them: their own type in locals, parameters, action
parameters and fields, made and unmade by casts through the underlying type (the invalid
side is in tests/differential/test_invalid.py, ``newtype_*``)."""
from p4c_helpers import program
from switch.compiler import compile_source
from switch.runtime import Pipeline

TOP = "type bit<8> P_t;\ntype P_t Q_t;\nheader n_t { P_t p; }\n"
LOCALS = """    P_t p;
    action a(in P_t q, P_t cp) { hdr.h.c = (bit<8>)q + (bit<8>)cp; }
    table t { key = { hdr.h.a: exact; } actions = { a(p); } default_action = a(p, (P_t)8w2); }"""
BODY = """        p = (P_t)hdr.h.a;
        Q_t q = (Q_t)p;
        P_t back = (P_t)q;
        if (back == p && back != (P_t)8w0) { hdr.h.b = (bit<16>)(bit<8>)back; }
        t.apply();
        sm.egress_spec = 1;"""


def test_newtype_values_flow_through_casts_params_and_tables():
    prog = compile_source(program(top=TOP, locals=LOCALS, body=BODY), "nt.p4")
    out = Pipeline(prog.device_config).process(1, bytes([5, 0, 0, 0]))
    assert out == [(1, bytes([5, 0, 5, 7]))]
