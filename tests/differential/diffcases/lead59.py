"""Found by the lead of session s59 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Probes of the paths lead58 left untested: (1) the stores a sub-control's ``out`` argument makes
dead, a local's initialiser and stores dead only through a later dropped one among them
(``out_arg_stores``: taken last first; a dropped initialiser is BMv2's fresh 0); (2) the values p4c's
copy propagation holds before a single-case switch through a sub-control applied before it -- its
own locals are values too (``case_entry.entry_copies``); (3) the value before a sub-control's own
single-case copy reached through a chain of stores (``switch_copies._last_value``).
"""
from .base import H, case, program
from .fuzz28 import CAT

CASES = []
_FR = [(1, H(a, b, 0x1234, 0x5678)) for a in (3, 200) for b in (0, 1, 5, 7)]
_SW = "switch (hdr.h.a) { 3: { hdr.h.b = meta.m8 + 5; } }"
_TAIL = "hdr.h.c = (bit<16>)hdr.h.b;\n        hdr.h.b = 0;\n        hdr.h.d = (bit<32>)hdr.h.c;"


def _control(name: str, params: str, body: str, locals_: str = "") -> str:
    return f"control {name}({params}) {{\n{locals_}    apply {{\n        {body}\n    }}\n}}\n"


def _add(name: str, top: str, inst: str, pre: str, args: str | None, after: str) -> None:
    """A case whose ingress runs ``pre``, then (``args`` given) ``inst``'s sub-control applied to
    ``args``, then ``after``."""
    call = f"        {inst[0].lower()}.apply({args});\n" if args is not None else ""
    CASES.append(case(f"lead59_{name}", CAT, program(
        f"        {pre}\n{call}        {after}\n", ingress_decls=f"    {inst}() {inst[0].lower()};\n" if args else "",
        top=top), frames=_FR))


_SEL_OUT = "in bit<8> sel, out bit<8> o"
_IF9 = _control("S", _SEL_OUT, "if (sel == 1) { o = 9; }")
# (1) stores an out argument makes dead, a local's initialiser among them
for _name, _top, _pre, _args, _after in [
        ("decl_init", _IF9, "bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_const", _IF9, "bit<8> m = 77;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_read", _IF9, "bit<8> m = hdr.h.a + 1; hdr.h.d = (bit<32>)m;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_init_if", _IF9, "bit<8> m = hdr.h.a + 1; if (hdr.h.b == 7) { hdr.h.d = 1; }", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("decl_then_assign", _IF9, "bit<8> m = hdr.h.a + 1; m = 33;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("twice_hdr", _IF9, "hdr.h.a = 5; hdr.h.a = 6;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("read_by_dead", _IF9, "meta.m8 = 4; meta.m8 = meta.m8 + 1;", "hdr.h.b, meta.m8", "hdr.h.c = (bit<16>)meta.m8;"),
        ("hdr_read_by_dead", _IF9, "hdr.h.a = hdr.h.a + 3; hdr.h.a = hdr.h.a + 1;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("if_arm_then", _IF9, "if (hdr.h.b == 5) { hdr.h.a = 5; } hdr.h.a = 6;", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("if_arm_read", _IF9, "hdr.h.a = 4; if (hdr.h.b == 5) { hdr.h.a = hdr.h.a + 5; }", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("decl_write_all", _control("S", _SEL_OUT, "o = sel + 2;"), "bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m;"),
        ("nested_block", _IF9, "{ bit<8> m = hdr.h.a + 1;", "hdr.h.b, m", "hdr.h.c = (bit<16>)m; }"),
        ("in_if", _IF9, "if (hdr.h.a == 3) { hdr.h.a = 4;", "hdr.h.b, hdr.h.a", "} hdr.h.c = (bit<16>)hdr.h.a;"),
        ("switch_arm", _IF9, "switch (hdr.h.b) { 5: { hdr.h.a = 4; } 7: { hdr.h.a = 6; } }", "hdr.h.b, hdr.h.a", "hdr.h.c = (bit<16>)hdr.h.a;"),
        ("slice_store", _IF9, "meta.m16[7:0] = hdr.h.a + 1;", "hdr.h.b, meta.m16[7:0]", "hdr.h.c = meta.m16;"),
        ("wide_store", _IF9, "meta.m16 = 0x1234;", "hdr.h.b, meta.m16[7:0]", "hdr.h.c = meta.m16;"),
        ("bool_out", _IF9, "meta.m8 = 3; bool f = hdr.h.a == 3;", "hdr.h.b, meta.m8", "hdr.h.c = (bit<16>)meta.m8; if (f) { hdr.h.d = 1; }"),
        ]:
    _add(f"out_arg_{_name}", _top, "S", _pre, _args, _after)
# (2) the values before a single-case switch: chains of stores, a sub-control applied before it
for _name, _pre in [
        ("chain_local", "bit<8> t = hdr.h.b + 1; meta.m8 = t;"),
        ("chain_meta", "meta.m16 = (bit<16>)hdr.h.b; meta.m8 = (bit<8>)meta.m16;"),
        ("chain_three", "meta.m32 = (bit<32>)hdr.h.b; meta.m16 = (bit<16>)meta.m32; meta.m8 = (bit<8>)meta.m16 + 1;"),
        ("chain_broken", "meta.m16 = (bit<16>)hdr.h.b; meta.m8 = (bit<8>)meta.m16; meta.m16 = 3;"),
        ("chain_if", "meta.m16 = (bit<16>)hdr.h.b; if (hdr.h.a == 3) { meta.m8 = (bit<8>)meta.m16; } else { meta.m8 = 2; }"),
        ("chain_block", "meta.m16 = (bit<16>)hdr.h.b; { meta.m8 = (bit<8>)meta.m16; }"),
        ]:
    _add(f"switch_copy_{_name}", "", "T", f"{_pre}\n        {_SW}", None, _TAIL)
_XY, _XZY = "in bit<8> x, out bit<8> y", "in bit<8> x, inout bit<8> z, out bit<8> y"
_U = _control("U", "in bit<8> u, out bit<8> w", "bit<8> k = u;\n        w = k + 1;")
for _name, _params, _body, _pre, _args in [
        ("sub_direct", _XY, "y = x + 1;", "", "hdr.h.b, meta.m8"),
        ("sub_local", _XY, "bit<8> q = x; y = q + 1;", "", "hdr.h.b, meta.m8"),
        ("sub_local2", _XY, "bit<8> q = x + 1; bit<8> r = q; y = r;", "", "hdr.h.b, meta.m8"),
        ("sub_if", _XY, "if (x == 9) { y = 1; } else { y = x + 1; }", "", "hdr.h.b, meta.m8"),
        ("sub_block", _XY, "{ y = x + 1; }", "", "hdr.h.b, meta.m8"),
        ("t2_inout_local", _XZY, "bit<8> q = x; z = q + z; y = z;", "meta.m8 = 9;", "hdr.h.b, meta.m8, meta.m8"),
        ("t2_inout_chain", _XZY, "bit<8> q = x; bit<8> r = q + 1; y = r;", "meta.m8 = 9;", "hdr.h.b, hdr.h.a, meta.m8"),
        ("t2_expr_arg", _XZY, "bit<8> q = x; y = q;", "meta.m8 = 9;", "hdr.h.b + 1, hdr.h.a, meta.m8"),
        ("t2_twice", _XZY, "bit<8> q = x; y = q + 1;", "meta.m8 = 9;", "hdr.h.b, hdr.h.a, meta.m8); t.apply(hdr.h.b, hdr.h.a, meta.m8"),
        ("t2_local_reassigned", _XZY, "bit<8> q = x; q = q + 2; y = q;", "meta.m8 = 9;", "hdr.h.b, hdr.h.a, meta.m8"),
        ("t2_local_if", _XZY, "bit<8> q = x; if (x == 5) { q = 1; } y = q;", "meta.m8 = 9;", "hdr.h.b, hdr.h.a, meta.m8"),
        ]:
    _add(f"switch_copy_{_name}", _control("T", _params, _body), "T", _pre, _args, f"{_SW}\n        {_TAIL}")
_add("switch_copy_sub_then_meta", _control("T", _XY, "y = x + 1;"), "T", "", "hdr.h.b, meta.m8",
     f"meta.m16 = 7;\n        {_SW}\n        {_TAIL}")
for _name, _body, _sw in [
        ("nested_sub", "uu.apply(x, y);", _SW),
        ("nested_sub_local", "bit<8> q; uu.apply(x, q); y = q;", _SW),
        ("switch_in_body", "uu.apply(x, y); switch (x) { 3: { y = y + 1; } }", "hdr.h.b = meta.m8;"),
        ("switch_in_body2", "bit<8> q = x; switch (q) { 3: { q = q + 1; } } y = q;", "hdr.h.b = meta.m8;"),
        ]:
    _add(f"switch_copy_nested_{_name}", _U + _control("T", _XY, _body, "    U() uu;\n"), "T", "", "hdr.h.b, meta.m8",
         f"{_sw}\n        {_TAIL}")
# (3) a sub-control's own single-case copy, the value before it reached through a chain
_S3 = _control("S", "in bit<8> sel, in bit<8> i, out bit<8> o", "switch (sel) { 1: { o = i + 1; } }")
for _name, _pre, _args in [
        ("chain_in_arg", "meta.m16 = (bit<16>)hdr.h.a; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_local", "bit<8> t = hdr.h.a; meta.m8 = t;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_ovl", "meta.m16 = (bit<16>)hdr.h.a; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, meta.m8"),
        ("chain_in_arg_three", "meta.m32 = (bit<32>)hdr.h.a; meta.m16 = (bit<16>)meta.m32; meta.m8 = (bit<8>)meta.m16;", "hdr.h.b, meta.m8, hdr.h.a"),
        ("chain_in_arg_block", "meta.m16 = (bit<16>)hdr.h.a; { meta.m8 = (bit<8>)meta.m16; }", "hdr.h.b, meta.m8, hdr.h.a"),
        ]:
    _add(f"sub_copy_{_name}", _S3, "S", _pre, _args, "hdr.h.c = (bit<16>)hdr.h.a;\n        hdr.h.d = (bit<32>)meta.m8;")
