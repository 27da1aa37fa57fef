"""Disagreements found by helper fuzz39 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5.

fuzz_headers seed 10375: a sub-control whose applies pass different arguments (p4c's inliner copies
them through temporaries) with a single-case switch at its body's end: ``switch (x.a) { 0x31: {
st = x; } }`` -- p4c's LocalCopyPropagation takes the case as always run and carries ``st_0 = x_0``
into the copy-back, so ``meta.mh = hdr.h2`` on every packet (a stack parameter element by element,
a struct one by member; a scalar parameter too) (:func:`switch.compiler.subcontrol_copies.copy_back_copies`).  Guards: one
apply (arguments used in place), the same arguments twice, a field copy, a switch under an ``if``,
a write after the switch, a case that returns and a write of the parameter after the switch (p4c's
RemoveReturns puts it under ``if (!flag)``: its join ends the copy).
fuzz_exprs seed 18770: a constant local that a ``for`` loop reads (and does not write) is still known
after the loop (p4c sees it unrolled), so fuzz38's folding of ``10s511 ++ (e1 == 3 ? 7s5 : -7s32)``
reaches past it (:meth:`switch.compiler.const_index.ConstIndexRules._forget_writes`).
"""
from .base import H, case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

_PARSER = start_state() + """
    state parse_h { pkt.extract(hdr.h); pkt.extract(hdr.h2); transition accept; }"""
_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);"


def _h(a: int, d: int) -> bytes:
    return bytes([a, 2, 0x12, 0x34]) + d.to_bytes(4, "big")


_FR = [(1, H(a1, 2, 0x1234, 0x11223344, _h(a2, 0x55667788) + bytes(range(0x20, 0x30))))
       for a1 in (0x31, 1) for a2 in (0x31, 1)]
_TOP = """
control S3(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; } } } }
control S4(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st.d = x.d; } } } }
control S5(inout bit<8> v, in h_t x) { apply { switch (x.a) { 0x31: { v = x.b + 1; } } } }
control S6(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; } } if (x.b == 7) { return; } } }
control S7(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; } } st.c = 5; } }
control S8(inout h_t st, in h_t x) { apply { if (x.b == 2) { switch (x.a) { 0x31: { st = x; } } } } }
control S9(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; } } if (x.b == 7) { return; } st.c = 5; } }
control S10(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; return; } } st.c = 5; } }
control S12(inout h_t st, in h_t x) { apply { switch (x.a) { 0x31: { st = x; return; } } } }
control S13(inout h_t st, in h_t x, inout bit<8> m) { apply { switch (x.a) { 0x31: { st = x; return; } } m = 3; } }
control S14(inout meta_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.mh = x; m.m8 = x.b + 1; } } } }
control S15(inout meta_t m, in h_t x) { apply { switch (x.a) { 0x31: { m.mh.d = x.d; } } } }
control S11(inout h_t[2] st, in h_t x) { apply { switch (x.a) { 0x31: { st[1] = x; } } } }
"""
_OUT = (" if (meta.mh.isValid()) { hdr.eth.src[47:16] = meta.mh.d; hdr.eth.dst[7:0] = meta.mh.a;"
        " hdr.eth.dst[15:8] = 0x77; }")
_OUT_S = (" if (hdr.s[1].isValid()) { hdr.eth.src = (bit<48>)hdr.s[1].d; hdr.eth.dst[7:0] = hdr.s[1].a;"
          " hdr.eth.dst[15:8] = 0x77; }")
_TWO = "s3.apply(meta.mh, hdr.h2); s3.apply(meta.mh, hdr.h);"
for _name, _ctl, _body in [
        ("header", "S3", _TWO + _OUT),
        ("header_params_both_headers", "S3", "s3.apply(hdr.h2, hdr.h); s3.apply(hdr.h, hdr.h2); meta.mh = hdr.h;" + _OUT),
        ("scalar", "S5", "s3.apply(meta.m8, hdr.h2); s3.apply(meta.m8, hdr.h); hdr.eth.src[7:0] = meta.m8;"),
        ("return_after_the_switch", "S6", _TWO + _OUT),
        ("case_returns", "S12", _TWO + _OUT),
        ("case_returns_other_write_after", "S13",
         "s3.apply(meta.mh, hdr.h2, meta.m8); s3.apply(meta.mh, hdr.h, meta.m8); hdr.eth.etype = (bit<16>)meta.m8;" + _OUT),
        ("struct_members", "S14", "s3.apply(meta, hdr.h2); s3.apply(meta, hdr.h); hdr.eth.src[7:0] = meta.m8;" + _OUT),
        ("stack_element", "S11", "s3.apply(hdr.s, hdr.h2); s3.apply(hdr.s, hdr.h);" + _OUT_S),
        # guards: no copy reaches the copy-back, or the arguments are used in place
        ("guard_one_apply", "S3", "s3.apply(meta.mh, hdr.h);" + _OUT),
        ("guard_same_arguments", "S3", "s3.apply(meta.mh, hdr.h); s3.apply(meta.mh, hdr.h);" + _OUT),
        ("guard_field_copy", "S4", _TWO + _OUT),
        ("guard_struct_header_field", "S15", "s3.apply(meta, hdr.h2); s3.apply(meta, hdr.h);" + _OUT),
        ("guard_write_after", "S7", _TWO + _OUT),
        ("guard_switch_in_an_if", "S8", _TWO + _OUT),
        ("guard_return_then_write", "S9", _TWO + _OUT),
        ("guard_case_returns_then_write", "S10", _TWO + _OUT),
        ]:
    CASES.append(case(f"fuzz39_copied_subcontrol_single_case_switch_{_name}", CAT, program(
        "        " + _body + "\n", ingress_decls=f"    {_ctl}() s3;\n", top=_TOP, meta="    h_t mh;\n",
        fields="    h_t[2] s;\n", parser=_PARSER, deparser=_DEP), frames=_FR))

# fuzz_exprs seed 18770: a `for` loop (p4c 1.2.4.8 sees it unrolled: ref_source) before a concatenation
# whose `?:` the known constants decide -- a local the loop reads but does not write is still known
# past it (const_index._forget_writes), so the `++` is folded as p4c's mid end does (0xff60)
_FNS = """
bit<4> f0(out bit<32> p0, in bit<8> x, out bit<3> p2) {
    p2 = 4; bit<8> e1 = 255; bit<7> l1 = 1; p0 = 0;
    LOOP0
    p0 = (bit<32>)(bit<17>)(10s511 ++ ((((bit<9>)p2) >= ((bit<9>)e1)) ? 7s5 : (((int<7>)l1) |+| (0 - 33))));
    return 1;
}
bit<4> f1(out bit<32> p0, in bit<8> x) {
    bit<8> e1 = 255; p0 = 0;
    LOOP1
    p0 = (bit<32>)(bit<17>)(10s511 ++ ((e1 == 3) ? 7s5 : -7s32));
    return 1;
}
bit<4> f2(out bit<32> p0, in bit<8> x) {
    bit<8> e1 = 255; p0 = 0;
    LOOP2
    p0 = (bit<32>)(bit<17>)(10s511 ++ ((e1 == 3) ? 7s5 : -7s32));
    return 1;
}
"""
_ACC = "p0 = p0 + (bit<32>)(x - (bit<8>)l1);"
_LOOPS = {"LOOP0": (f"for (bit<8> i = 0; i != 2; i = i + 1) {{ {_ACC} }}", f"{{ bit<8> i = 0; {{ {_ACC} }} {{ {_ACC} }} }}"),
          "LOOP1": ("for (bit<8> i in {1, 2}) { p0 = p0 + (bit<32>)(x - e1); }",
                    "{ { p0 = p0 + (bit<32>)(x - e1); } { p0 = p0 + (bit<32>)(x - e1); } }"),
          "LOOP2": ("for (bit<8> i = 0; i < 2; i = i + 1) { e1 = x; }", "{ bit<8> i = 0; { e1 = x; } { e1 = x; } }")}


def _fns(unrolled: bool) -> str:
    s = _FNS
    for k, (loop, spelled) in _LOOPS.items():
        s = s.replace(k, spelled if unrolled else loop)
    return s


_CTL = "bit<8> e1 = 255; hdr.h.d = 0; LOOP hdr.h.c = (bit<16>)(bit<17>)(10s511 ++ ((e1 == 3) ? 7s5 : -7s32));"
_CTL_ACC = "hdr.h.d = hdr.h.d + (bit<32>)(hdr.h.b - e1);"
for _name, _body, _ref in [
        ("for_in_a_function", "bit<3> q; f0(hdr.h.d, hdr.h.b, q);", None),
        ("for_in_values", "f1(hdr.h.d, hdr.h.b);", None),
        ("for_in_the_control", _CTL.replace("LOOP", f"for (bit<8> i = 0; i != 2; i = i + 1) {{ {_CTL_ACC} }}"),
         _CTL.replace("LOOP", f"{{ bit<8> i = 0; {{ {_CTL_ACC} }} {{ {_CTL_ACC} }} }}")),
        # guard: the loop writes the local -- not known past it, no folding
        ("guard_loop_writes_the_local", "f2(hdr.h.d, hdr.h.b);", None),
        ]:
    CASES.append(case(f"fuzz39_constant_past_a_loop_{_name}", CAT, program("        " + _body + "\n", top=_fns(False)),
                      frames=[(1, H(1, b, 0x1234, 0x11223344)) for b in (2, 3)],
                      ref_source=program("        " + (_ref or _body) + "\n", top=_fns(True))))


# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
