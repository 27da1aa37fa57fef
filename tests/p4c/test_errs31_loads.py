"""Sizes of counters, meters, registers, tables and action profiles that p4c 1.2.4.8 compiles,
and what simple_switch 1.15.5 does with them (helper errs31, errs29's open item; probes
/work/errs31 ``gen_s.py`` and ``gen_m.py``, each JSON run on simple_switch; the method and the
checks are test_load_refused.py's):

* simple_switch allocates every cell of a counter/meter/register and every entry slot of a
  table with a key when it loads: where that is more than the machine's RAM plus swap it dies
  ("std::bad_alloc"; runtime/bmv2_memory.py has the bytes per cell, measured).  checkmate-switch,
  which allocates lazily, now refuses the same builds on the same machine (``meter(-1)``: 4G meters
  of ~211 bytes; an exact table of size 0x7fffffff), naming the declaration;
* a table ``size = -1``: p4c writes max_size 4294967295 and simple_switch dies reading it
  (Json::LogicError "LargestInt out of Int range"); refused by the compiler's build
  (elab_tables) and by the switch/bmv2json loader;
* an action profile or selector of any size up to INT_MAX loads (BMv2 allocates nothing for
  it): checkmate-p4c refused sizes past 2**24 at compile time; a selector's output width of -1
  (2**32-1) compiles and loads too (ours: "must be >= 0");
* ``@field_list(N)`` on a field of the user metadata that holds a header (a header, a header stack,
  a struct with a header inside): p4c writes the element ``["scalars", "<null>"]`` into the field
  list -- used by a resubmit/recirculate/clone or not -- and simple_switch refuses the JSON ("No field
  '<null>' can be found in header type 'scalars_0'"); checkmate-switch loaded it and the
  switch/bmv2json loader skipped the element (elab_load_refusals.refuse_union_in_metadata,
  bmv2json.program field lists; /work/errs31 progs/f, r_fl_*).  On a bool, a serializable enum or a
  struct of bit fields it loads;
* a ``select`` whose only key is a bit<0> field (``select(hdr.z.z)``): p4c compiles it (two keys are
  its "Compiler Bug: unknown width", test_mutants2) and writes a 1-byte "0x0" per case, which
  simple_switch refuses ("Parser transition value has incorrect width, expected width is 0 bytes but
  actual width is 1 bytes"); checkmate-p4c refused it as the compiler bug, its JSON loader took it
  (elab_parsers.zero_width_keys, bmv2json.program transition; /work/errs31 q_sk_bit0).  With only a
  default case it loads.
"""
from __future__ import annotations

import shutil

import pytest
import test_load_refused as base
from p4c_helpers import line_of, p4c_accepts, program

from switch.compiler import compile_source
from switch.runtime import Pipeline
from switch.runtime.bmv2_memory import BAD_ALLOC, bmv2_load_bytes, machine_bytes, refuse_unallocatable
from switch.runtime.errors import InvalidEntry

_T = "    action a1(bit<8> v) {{ hdr.h.c = v; }}\n    table t {{ key = {{ hdr.h.a: {kind}; }} actions = {{ a1; NoAction; }} size = {size}; }}"
_AP = ("    action_profile({size}) ap;\n    action a1(bit<8> v) {{ hdr.h.c = v; }}\n"
       "    table t {{ key = {{ hdr.h.a: exact; }} actions = {{ a1; NoAction; }} implementation = ap; }}")
_AS = ("    action_selector(HashAlgorithm.crc16, {size}, {width}) as;\n    action a1(bit<8> v) {{ hdr.h.c = v; }}\n"
       "    table t {{ key = {{ hdr.h.a: exact; hdr.h.b: selector; }} actions = {{ a1; NoAction; }} implementation = as; }}")
_BODY = "        t.apply();"

REFUSED = {
    # (any machine with less than ~900 GB of RAM + swap)
    "meter_of_size_minus_one": (program(locals="    meter(-1, MeterType.packets) mt_big;",
                                        body="        mt_big.execute_meter(0, m.x);"), "mt_big;", "std::bad_alloc"),
    "exact_table_of_size_int_max": (program(locals=_T.format(kind="exact", size="32w0x7fffffff").replace("table t ", "table t_big "),
                                            body="        t_big.apply();"), "t_big", "std::bad_alloc"),
    "table_size_minus_one": (program(locals=_T.format(kind="exact", size="-1"), body=_BODY), "-1;",
                             "LargestInt out of Int range"),
}

_FL_TOP = "header hx_t { bit<8> q; }\nstruct nx_t { hx_t h2; }\nstruct bx_t { bit<8> i; }\nenum bit<8> SE { A = 1 }"


def _fl(member: str, body: str = "        resubmit_preserving_field_list(1);") -> str:
    return program(top=_FL_TOP, body=body).replace("bit<16> y; }", f"bit<16> y; @field_list(1) {member}; }}")


REFUSED.update({
    f"field_list_on_metadata_{k}": (_fl(m, *b), m.split()[-1] + "; }", "No field '<null>' can be found in header type 'scalars_0'")
    for k, m, *b in [("header", "hx_t hh"), ("header_stack", "hx_t[2] hs"), ("struct_with_a_header", "nx_t nn"),
                     ("header_unused", "hx_t hh", "")]})

_Z = "header z_t { bit<0> z; }"


def _zero_key(cases: str) -> str:
    return program(top=_Z).replace("struct headers { h_t h; }", "struct headers { h_t h; z_t z; }").replace(
        "state start { pkt.extract(hdr.h); transition accept; }",
        f"state start {{ pkt.extract(hdr.h); pkt.extract(hdr.z); transition select(hdr.z.z) {{ {cases} }} }}")


REFUSED["select_on_a_zero_width_key"] = (_zero_key("0: accept; default: accept;"), "hdr.z.z)",
                                         "Parser transition value has incorrect width")

LOADED = {
    "counter_of_size_zero": program(locals="    counter(0, CounterType.packets) c;", body="        c.count(0);"),
    "meter_of_size_zero": program(locals="    meter(0, MeterType.packets) mt;", body="        mt.execute_meter(0, m.x);"),
    "counter_of_a_million_cells": program(locals="    counter(32w0x100000, CounterType.packets) c;", body="        c.count(0);"),
    "action_profile_of_size_2_28": program(locals=_AP.format(size="32w0x10000000"), body=_BODY),
    "action_profile_of_size_int_max": program(locals=_AP.format(size="32w0x7fffffff"), body=_BODY),
    "action_selector_of_size_int_max": program(locals=_AS.format(size="32w0x7fffffff", width="32w16"), body=_BODY),
    "action_selector_of_width_minus_one": program(locals=_AS.format(size="32w16", width="-1"), body=_BODY),
    "select_on_a_zero_width_key_default_only": _zero_key("default: accept;"),
    **{f"field_list_on_metadata_{k}": _fl(m) for k, m in [("bool", "bool bb"), ("serializable_enum", "SE se"),
                                                           ("struct_of_bits", "bx_t bx")]},
}

globals().update(base.load_refusal_tests(REFUSED, LOADED, {}))

_COUNTER = program(locals="    counter(-1, CounterType.packets) c_big;", body="        c_big.count(0);")


def test_counter_of_size_minus_one_is_the_machines_to_allocate():
    """``counter(-1, ..)``: 2**32-1 counters of 16 bytes (64 GiB).  simple_switch dies loading it
    where the machine has less RAM + swap (errs29 measured it; this machine: /work/errs31 s_ctr_*),
    and would load it on a larger one: checkmate-switch refuses it where the limit is below, naming
    the declaration, and loads it above."""
    cfg = compile_source(_COUNTER, "prog.p4").device_config
    need, biggest = bmv2_load_bytes(cfg)
    assert need == 16 * (2**32 - 1) and biggest["name"] == "I.c_big"
    with pytest.raises(InvalidEntry) as ei:
        refuse_unallocatable(cfg, limit=need - 1)
    line, col = line_of(_COUNTER, "c_big;")
    assert f"prog.p4:{line}:{col}: counter I.c_big of size 4294967295" in str(ei.value) and BAD_ALLOC in str(ei.value)
    refuse_unallocatable(cfg, limit=need)
    if machine_bytes() < need:
        with pytest.raises(InvalidEntry):
            Pipeline(cfg)


def test_counter_of_size_minus_one_on_simple_switch(tmp_path):
    """... and simple_switch dies on p4c's JSON of it (only where the allocation fails at once:
    a larger machine would zero 64 GiB)."""
    if machine_bytes() >= 16 * (2**32 - 1) or shutil.which("simple_switch") is None:
        pytest.skip("needs simple_switch and a machine with less than 64 GiB of RAM + swap")
    base.check_bmv2_decides(_COUNTER, "std::bad_alloc", tmp_path)


def test_table_bytes_by_match_kind_and_direct_meter():
    """The bytes per entry slot follow the widest match kind, a direct meter adds a meter per
    slot, a keyless table none (measured on simple_switch: /work/errs31 gen_m.py)."""
    def need(locals_):
        return bmv2_load_bytes(compile_source(program(locals=locals_, body=_BODY), "prog.p4").device_config)[0]
    assert need(_T.format(kind="exact", size="1000")) == 148_000
    assert need(_T.format(kind="ternary", size="1000")) == 234_000
    keyless = "    action a1() { }\n    table t { actions = { a1; } size = 1000; }"
    assert need(keyless) == 0
    dm = ("    direct_meter<bit<8>>(MeterType.packets) dm;\n    action a1(bit<8> v) { hdr.h.c = v; dm.read(m.x); }\n"
          "    table t { key = { hdr.h.a: exact; } actions = { a1; NoAction; } meters = dm; size = 1000; }")
    assert need(dm) == (148 + 211) * 1000


@pytest.mark.parametrize("locals_", [_AP.format(size="-1"), _AS.format(size="32w0x80000000", width="32w16")])
def test_profile_size_past_int_max_is_p4cs_error(locals_, tmp_path):
    """A profile size past INT_MAX (-1 included): p4c's "Value too large for int", on its line."""
    from switch.compiler import P4CompileError
    text = program(locals=locals_, body=_BODY)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    assert "Value too large for int" in str(ei.value) and str(ei.value).startswith(f"prog.p4:{line_of(text, 'action_')[0]}:")
    if p4c_accepts(text, tmp_path) is not None:
        assert not p4c_accepts(text, tmp_path)


def test_verify_checksum_of_a_constant_refused_with_bmv2s_words(tmp_path):
    """``verify_checksum(.., 16w0, ..)``: p4c's JSON target is "0x0000", simple_switch dies on a
    Json::LogicError ("requires arrayValue"; the build's refusal is test_load_refused's); the
    switch/bmv2json loader failed on a Python TypeError ("malformed BMv2 JSON")."""
    import json

    from switch.bmv2json import Bmv2JsonError, translate
    text = program().replace("control VC(inout headers hdr, inout meta_t m) { apply { } }",
                             "control VC(inout headers hdr, inout meta_t m) { apply { "
                             "verify_checksum(true, { hdr.h.a }, 16w0, HashAlgorithm.csum16); } }")
    if not p4c_accepts(text, tmp_path):
        pytest.skip("needs real p4c on PATH")
    with pytest.raises(Bmv2JsonError, match="requires arrayValue"):
        translate(json.loads((tmp_path / "prog.json").read_text()))
