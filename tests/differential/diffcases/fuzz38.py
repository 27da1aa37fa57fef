"""Disagreements found by helper fuzz38 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz_exprs seed 18427: a store of a whole header (``hdr.h3 = {..};``, ``hdr.h3 = hdr.h;``) or an
action call's copy-back into an ``out``/``inout`` header argument (``a0(hdr.h3);``) that a later
assignment of the whole header overwrites (``hdr.h3 = hdr.h2;``) is dead for p4c's front-end
SimplifyDefUse, and so are the action body's own stores to ``hdr.h3``; where ``h2`` is invalid BMv2's
``assign_header`` only marks ``h3`` invalid, so its fields keep the values from before the dropped
store (:func:`switch.compiler.dead_reads.drop_stores_before_whole_copies`).
fuzz_exprs seed 18770 (reduced): ``10s511 ++ (e1 == 3 ? 7s5 : -7s32)`` with ``e1`` a known constant is
folded by p4c's mid end as ``(a << 7) + b`` (0xff60 on BMv2): the concatenation is marked ``p4c_fold``
(:func:`switch.compiler.const_index._pick_arms`).
"""
from .base import H, case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

_PARSER = start_state() + """
    state parse_h { pkt.extract(hdr.h); pkt.extract(hdr.h2); pkt.extract(hdr.h3); transition accept; }"""
_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);\n        pkt.emit(hdr.h3);"
_FR = [(1, H(a, 2, 0x1234, 0x11223344, bytes(range(0x20, 0x40)))) for a in (1, 2)]
_DECLS = ("    action a0(out h_t q0) { q0 = {0x51, 0x52, 0x5354, 0x55565758}; hdr.h2.b = 3; }\n"
          "    action a1(inout h_t q0) { q0.c = 0x6162; }\n"
          "    action a2(out h_t q0) { q0 = {0x51, 0x52, 0x5354, 0x55565758}; hdr.h3.c = 0x7172; }\n"
          "    action a4(out h_t q0, out bit<8> q1) { q0 = {0x51, 0x52, 0x5354, 0x55565758}; q1 = 9; }\n")
_INV = "if (hdr.h.a == 1) { hdr.h2.setInvalid(); } "
_OUT = " hdr.h.d = hdr.h3.d; hdr.h.c = hdr.h3.c; hdr.h.b = hdr.h3.b;"
for _name, _body in [
        ("initializer", _INV + "hdr.h3 = {0x51, 0x52, 0x5354, 0x55565758}; hdr.h3 = hdr.h2;"),
        ("initializer_in_an_if_arm", _INV + "if (hdr.h.b == 2) { hdr.h3 = {1, 2, 3, 4}; } hdr.h3 = hdr.h2;"),
        ("header_copy", _INV + "hdr.h3 = hdr.h; hdr.h3 = hdr.h2;"),
        ("field_then_initializer", _INV + "hdr.h3.c = 5; hdr.h3 = {1, 2, 3, 4}; hdr.h3 = hdr.h2;"),
        ("action_out", _INV + "a0(hdr.h3); hdr.h3 = hdr.h2;"),
        ("action_out_in_a_switch_case", _INV + "switch (hdr.h.c - hdr.h.c) { 15: default: { a0(hdr.h3); } } hdr.h3 = hdr.h2;"),
        ("action_inout", _INV + "a1(hdr.h3); hdr.h3 = hdr.h2;"),
        ("action_out_writing_the_place", _INV + "a2(hdr.h3); hdr.h3 = hdr.h2;"),
        ("action_two_outs", _INV + "a4(hdr.h3, hdr.h.a); hdr.h3 = hdr.h2;"),
        # guards: a read in between keeps the store
        ("guard_read_between", _INV + "hdr.h3 = {1, 2, 3, 4}; hdr.h.a = hdr.h3.a; hdr.h3 = hdr.h2;"),
        ("guard_valid_read_between", _INV + "hdr.h3 = {1, 2, 3, 4}; if (hdr.h3.isValid()) { hdr.h.a = 7; } hdr.h3 = hdr.h2;"),
        ("guard_action_then_read", _INV + "a0(hdr.h3); hdr.h.a = hdr.h3.b; hdr.h3 = hdr.h2;"),
        ]:
    for _where in ("ingress", "egress"):
        _parts = {"ingress": "        " + _body + _OUT + "\n"} if _where == "ingress" else \
            {"ingress": "        " + _body + "\n", "egress": "        " + _OUT + "\n"}
        CASES.append(case(f"fuzz38_whole_header_copy_overwrites_{_name}_{_where}", CAT, program(
            **_parts, ingress_decls=_DECLS, fields="    h_t h3;\n", parser=_PARSER, deparser=_DEP), frames=_FR))

# fuzz_exprs seed 18770 (reduced): a concatenation whose signed right operand is a `?:` that p4c's
# mid end decides once its constant propagation has put the values in -- it then folds the
# concatenation as (a << |b|) + b, 0xff60 on BMv2 for a negative b (const_index._pick_arms, p4c_fold)
_TOP18770 = """
bit<4> f0(out bit<32> p0, out bit<3> p2) {
    p2 = 4; bit<8> e1 = 255;
    p0 = (bit<32>)(bit<17>)(10s511 ++ ((((bit<9>)p2) >= ((bit<9>)e1)) ? 7s5 : -7s32));
    return 1;
}
bit<4> f1(out bit<32> p0, in bit<8> x) {
    p0 = (bit<32>)(bit<17>)(10s511 ++ ((x == 3) ? 7s5 : -7s32));
    return 1;
}
"""
for _name, _body in [
        ("in_a_function", "bit<3> q; f0(hdr.h.d, q);"),
        ("locals", "bit<3> p2 = 4; bit<8> e1 = 255; hdr.h.d = (bit<32>)(bit<17>)(10s511 ++ ((((bit<9>)p2) >= ((bit<9>)e1)) ? 7s5 : -7s32));"),
        ("one_local", "bit<8> e1 = 255; hdr.h.d = (bit<32>)(bit<17>)(10s511 ++ ((e1 == 3) ? 7s5 : -7s32));"),
        # guard: a condition decided at run time -- no folding, the bits as they are
        ("guard_run_time_condition", "f1(hdr.h.d, hdr.h.b);"),
        ]:
    CASES.append(case(f"fuzz38_concat_of_a_constant_decided_mux_{_name}", CAT, program(
        "        " + _body + "\n", top=_TOP18770), frames=[(1, H(1, b, 0x1234, 0x11223344)) for b in (2, 3)]))
