"""Aggregate copies as p4c lowers them and BMv2 runs them (round 11, copy-back).

p4c lowers a struct, header-union or header-stack assignment, and the copy-out of such an
aggregate from a function, action or sub-control, into one ``assign_header`` per header (and a
plain assignment per scalar field).  BMv2's assign_header from an invalid header only makes the
destination invalid -- its fields keep their values -- so a header nested anywhere in the
aggregate (an inner struct, a union member, a stack element) that is invalid in the source
leaves the destination's fields as they were.  The cases read such fields back (BMv2 keeps
them) into headers that are emitted.

* nested structs, unions and stacks inside an assigned struct (``_agg_out``);
* a stack assigned in a parser: element by element, nextIndex as BMv2 keeps it;
* a union member copied back from a function's out/inout argument: its siblings go invalid;
* an action's copy-out on ``exit``: member by member;
* a sub-control applied twice with different arguments: p4c copies them through temporaries
  (assign_header on the way back; an ``exit`` in the body skips the copy-back; a union member
  made valid and invalid again in the body leaves its siblings alone).
"""
from .base import H, H2, PAYLOAD, case, eth, program

CAT = "aggregate copy-out (p4c-compatible)"
_HDRS = ("header g_t { bit<8> v; bit<8> w; }\n"
         "header_union U { h_t p; g_t q; }\n"
         "struct in_t { h_t x; bit<8> y; }\n"
         "struct nest_t { in_t i; U u; h_t[2] s; }\n")
_FIELDS = "    U u;\n    h_t[2] s;\n"
_FRAMES = [(0, H(1, 2, 3, 4)), (1, H(0x22, 1, 0x3344, 0x55667788)), (2, H2(5, 6))]


def _valid(w: int, *hs: str) -> str:
    """The validity of headers ``hs`` as one bit<w> value: 1 or 2, + 16 or 32, ..."""
    return " + ".join(f"({h}.isValid() ? {w}w{1 << 4 * k} : {w}w{2 << 4 * k})" for k, h in enumerate(hs))


def _copy_case(name: str, body: str) -> object:
    return case(name, CAT, program(body, headers=_HDRS, fields=_FIELDS), frames=_FRAMES)


CASES = [
    # an inner struct's header invalid in the source: the destination keeps its fields
    # (each first store is read before the copy: p4c's def-use would drop it)
    _copy_case("copyback11_nested_struct_header_invalid_keeps_fields",
               "        nest_t a; nest_t b;\n"
               "        a.i.x = hdr.h; a.i.y = 3;\n"
               "        hdr.eth.src[7:0] = a.i.x.b;\n"
               "        b.i.x.a = hdr.h.b + 0x40; b.i.x.b = 0x66; b.i.y = 5;\n"
               "        if (hdr.h.b == 1) { b.i.x.setValid(); b.i.x.a = 0x31; }\n"
               "        a = b;\n"
               "        hdr.h.a = a.i.x.a; hdr.h.b = a.i.x.b + a.i.y;\n"
               f"        hdr.h.c = {_valid(16, 'a.i.x')};\n"),
    # a union inside a struct: member by member.  u.q.v is written first: where u.q stays
    # invalid its read would otherwise see a stale PHV value that BMv2 hands out by timing
    # (1 of 4 repeated runs differed so)
    _copy_case("copyback11_union_in_struct_member_by_member",
               "        hdr.u.q.v = 0x77;\n"
               "        hdr.u.p = hdr.h;\n        headers_t b = hdr;\n"
               "        b.u.p.setInvalid(); b.u.p.a = 0x44;\n"
               "        if (hdr.h.b == 1) { b.u.q.setValid(); b.u.q.v = hdr.h.a; }\n"
               "        hdr = b;\n        hdr.h.a = hdr.u.p.a; hdr.h.b = hdr.u.q.v;\n"
               f"        hdr.h.c = {_valid(16, 'hdr.u.p', 'hdr.u.q')};\n"),
    # a stack inside a struct: element by element
    _copy_case("copyback11_stack_in_struct_element_by_element",
               "        hdr.s[0] = hdr.h; hdr.s[1] = hdr.h;\n        headers_t b = hdr;\n"
               "        b.s[1].setInvalid(); b.s[1].a = 0x33;\n"
               "        if (hdr.h.b == 1) { b.s[0].setInvalid(); b.s[0].a = 0x11; }\n"
               "        hdr = b;\n        hdr.h.a = hdr.s[0].a; hdr.h.b = hdr.s[1].a;\n"
               f"        hdr.h.c = {_valid(16, 'hdr.s[0]', 'hdr.s[1]')};\n"),
    # a whole stack assigned: element by element
    _copy_case("copyback11_stack_assign_invalid_elements_keep_fields",
               "        h_t[2] b;\n        hdr.s[0] = hdr.h; hdr.s[1] = hdr.h;\n"
               "        hdr.eth.src[15:0] = hdr.s[0].c + hdr.s[1].c;\n"
               "        b[0].a = 0x21; b[1].c = 0x4321;\n"
               "        if (hdr.h.b == 1) { b[1].setValid(); b[1].a = 0x12; }\n"
               "        hdr.s = b;\n        hdr.h.a = hdr.s[0].a; hdr.h.b = hdr.s[1].a; hdr.h.c = hdr.s[1].c;\n"
               f"        hdr.h.d = {_valid(32, 'hdr.s[0]', 'hdr.s[1]')};\n"),
]

# a stack assigned in the parser (assign_header_stack): element by element -- an invalid one
# keeps the destination's fields -- and nextIndex copied (lastIndex read after it)
_PSTK = "    h_t[3] s;\n    h_t[3] t;\n"
_PPARSE = """\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.t.next);
        pkt.extract(hdr.t.next);
        hdr.t[2].a = 0x77;
        hdr.s = hdr.t;
        meta.m8 = (bit<8>)hdr.s.lastIndex;
        transition accept;
    }"""
_PDEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);\n        pkt.emit(hdr.t);"
CASES.append(case("copyback11_parser_stack_assign_next_index", CAT, program(
    "        hdr.t[0].b = meta.m8; hdr.t[0].c = (bit<16>)hdr.s[2].a;\n", fields=_PSTK, parser=_PPARSE,
    deparser=_PDEP), frames=[(0, eth(0x1234) + bytes(range(1, 41)) + PAYLOAD)], json_path=True))

# a function with an out stack called in a parser state (p4c inlines it: copy-out element by
# element); also run from p4c's JSON
_FPARSE = """\
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.s.next);
        fill(hdr.s, hdr.s[0].a);
        pkt.extract(hdr.t.next);
        transition accept;
    }"""
_FILL = ("void fill(inout h_t[3] st, in bit<8> v) {\n"
         "    st[1].setValid(); st[1].a = v; st[0].setInvalid(); st[0].b = 0x77;\n}\n")
CASES.append(case("copyback11_parser_function_stack_copy_out", CAT, program(
    "        hdr.t[0].b = hdr.s[0].b; hdr.t[0].c = (bit<16>)hdr.s[0].a;\n", fields=_PSTK, top=_FILL,
    parser=_FPARSE, deparser=_PDEP), frames=[(0, H(1, 2, 3, 4)), (1, H2(5, 6))], json_path=True))

# a union member copied back from a function's out / inout argument: the siblings go invalid
# (the reads keep p4c's def-use and copy propagation from dropping the copy-backs)
_UFN = ("void setp(out h_t x, in bit<8> v) { x.setValid(); x.a = v; }\n"
        "bit<8> mkv(inout h_t x) { x.setValid(); x.b = 4; return 8w1; }\n")
CASES.append(case("copyback11_function_out_union_member_invalidates_sibling", CAT, program(
    "        hdr.u.q.setValid(); hdr.u.q.v = 9;\n"
    "        setp(hdr.u.p, hdr.h.a);\n"
    "        hdr.h.d[7:0] = hdr.u.p.a;\n"
    "        bit<16> r = hdr.u.q.isValid() ? 16w1 : 16w2;\n"
    "        hdr.u.q.setValid(); hdr.u.q.v = 9;\n"
    "        hdr.h.b = mkv(hdr.u.p);\n"
    "        hdr.h.c = r + (hdr.u.q.isValid() ? 16w16 : 16w32) + (hdr.u.p.isValid() ? 16w256 : 16w512);\n",
    headers=_HDRS, fields=_FIELDS, top=_UFN), frames=_FRAMES))

# an action's inout struct copied back on exit: member by member (assign_header)
_AX = "    action ax(inout headers_t s) { s.s[0].setInvalid(); s.s[0].a = 0x99; s.h.b = 7; exit; }\n"
CASES.append(case("copyback11_action_exit_copy_out_member_by_member", CAT, program(
    "        hdr.s[0] = hdr.h;\n"
    "        if (hdr.h.b == 1) { ax(hdr); }\n"
    "        hdr.h.d = 5;\n",
    egress="        hdr.h.a = hdr.s[0].a;\n"
           "        hdr.h.c = hdr.s[0].isValid() ? 16w1 : 16w2;\n",
    headers=_HDRS, fields=_FIELDS, ingress_decls=_AX), frames=_FRAMES))

# a sub-control applied with different arguments: p4c copies them through temporaries, back
# with assign_header after the body -- an invalid one keeps the caller's fields
_SUB = ("control Sub(inout h_t x, inout bit<8> m) {\n"
        "    action ex() { exit; }\n"   # (an exit under an if here: p4c 1.2.4.8 crashes in def-use)
        "    apply { m = m + x.a; x.setInvalid(); x.a = 0x5a; x.c = 0x77; if (x.b == 1) { ex(); } }\n}\n")


def _sub_case(name: str, body: str, egress: str) -> object:
    """``body`` applies ``sub`` (a ``Sub``); egress reads what an exit in it left."""
    return case(name, CAT, program(body, egress=egress, headers=_HDRS, fields=_FIELDS, top=_SUB,
                                   ingress_decls="    Sub() sub;\n"), frames=_FRAMES)


CASES.append(_sub_case(
    "copyback11_subcontrol_different_args_through_temporaries",
    "        hdr.s[1] = hdr.h; hdr.s[1].b = 2;\n        sub.apply(hdr.s[1], meta.m8);\n"
    "        hdr.s[0] = hdr.h;\n        sub.apply(hdr.s[0], meta.m8);\n"
    "        hdr.eth.src[7:0] = hdr.s[1].a; hdr.eth.src[15:8] = hdr.s[0].a; hdr.eth.src[31:16] = hdr.s[0].c;\n"
    "        hdr.eth.dst[7:0] = meta.m8;\n",
    "        hdr.eth.src[39:32] = hdr.s[1].a; hdr.eth.src[47:40] = hdr.s[0].a;\n"
    "        hdr.eth.dst[23:8] = hdr.s[0].c; hdr.eth.dst[31:24] = meta.m8;\n"))

# the same arguments at every apply: in place (the body's writes stay, also on exit)
CASES.append(_sub_case(
    "copyback11_subcontrol_same_args_in_place",
    "        hdr.s[1] = hdr.h; meta.m8 = 3;\n        sub.apply(hdr.s[1], meta.m8);\n"
    "        if (hdr.h.c == 3) { sub.apply(hdr.s[1], meta.m8); }\n"
    "        hdr.eth.src[7:0] = hdr.s[1].a; hdr.eth.src[15:8] = hdr.s[1].b;\n"
    "        hdr.eth.dst[7:0] = meta.m8;\n",
    "        hdr.eth.src[39:32] = hdr.s[1].a; hdr.eth.src[47:40] = (bit<8>)hdr.s[1].c;\n"
    "        hdr.eth.dst[31:24] = meta.m8;\n"))

# a union member passed to a sub-control applied with different arguments: through a temporary,
# so the body making it valid and then invalid leaves the sibling valid (only the copy-back, of an
# invalid header, reaches the union)
_SUB_V = "control SubV(inout h_t x) {\n    apply { x.setValid(); x.a = 9; x.setInvalid(); }\n}\n"
CASES.append(case("copyback11_subcontrol_union_member_temporary_keeps_sibling", CAT, program(
    "        hdr.u.q.setValid(); hdr.u.q.v = 7;\n"
    "        subv.apply(hdr.u.p);\n"
    "        subv.apply(meta_h);\n"
    "        hdr.eth.src[7:0] = hdr.u.q.isValid() ? 8w1 : 8w2;\n"
    "        hdr.eth.src[15:8] = hdr.u.p.isValid() ? 8w1 : 8w2;\n",
    headers=_HDRS, fields=_FIELDS, top=_SUB_V, ingress_decls="    SubV() subv;\n    h_t meta_h;\n"),
    frames=_FRAMES))
