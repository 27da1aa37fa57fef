"""Minimal programs reduced from the random header/stack/union/deparser programs of
fuzz_headers.py (helper fuzzh, issue #15); each names the seed it was found with."""
from .base import PAYLOAD, VALUES, case, eth, hdr, program

STACK_FIELDS = "    h_t[3] s;\n"
STACK_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.s.next); transition select(hdr.s.last.a) { 0xee: ph; default: accept; } }"""
ALIAS_FR = [(1, eth(0x1234) + hdr(0xee, 1, 1, 1) + hdr(0xee, 2, 2, 2) + hdr(7, 3, 3, 3) + PAYLOAD),
            (2, eth(0x1234) + hdr(0xee, 2, 5, 5) + hdr(9, 6, 6, 6) + PAYLOAD),
            (3, eth(0x1234) + hdr(0xee, 1, 8, 8) + PAYLOAD),
            (4, eth(0x1234) + hdr(0xee, 3, 1, 1) + hdr(0xee, 4, 2, 2) + hdr(5, 5, 3, 3) + PAYLOAD),
            (1, eth(0x1234) + hdr(4, 4, 4, 4) + PAYLOAD)]

CAT = "random programs: headers"

# ------------------------------------------------------------------ out parameters of a control
OUT_HDR = "struct hs_t { h_t x; h_t[2] st; }\n"
OUT_TOP = """control SO(out h_t y) { apply { } }
control SW(out h_t y, in h_t x) { apply { if (x.b == 2) { y = x; y.a = 0x77; } } }
control SS(out h_t[2] st) { apply { if (st[0].isValid()) { st[1].setValid(); st[1] = { 1, 2, 3, 4 }; } } }
control ST(out hs_t s) { apply { s.st[1].setValid(); s.st[1] = { 5, 6, 7, 8 }; } }
"""
OUT_FR = VALUES + [(1, eth(0x1234) + bytes.fromhex("ee02000300000004") + bytes.fromhex("0102030405060708") + PAYLOAD)]

# ------------------------------------------------------------------ checksums over odd-width fields
K_HDR = "header k_t { bit<8> a; bit<16> cs; bit<4> p; bit<12> q; bit<32> z; bit<3> r; bit<5> t; }\n"
K_PARSER = """    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: pk; default: accept; } }
    state pk { pkt.extract(hdr.k); transition select(hdr.k.a) { 0xee: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition accept; }"""
K_FR = [(1, eth(0x1234) + bytes(range(1, 12)) + PAYLOAD),
        (2, eth(0x1234) + bytes(range(0x51, 0x5c)) + PAYLOAD[:5]),
        (3, eth(0x1234) + bytes.fromhex("ee0000a1b2c3d4e5f607") + bytes.fromhex("0102030405060708") + PAYLOAD),
        (4, eth(0x1234) + bytes(range(0x21, 0x2b))),   # no payload at all
        (1, eth(0x0800) + PAYLOAD)]

CASES = [
    # seed 21: an `out` header parameter of a control starts invalid -- p4c inlines the control
    # and writes the argument in place, so one the body never makes valid comes back invalid
    # (it was kept as the caller had it); also inside a struct and a stack
    case("fh_control_out_header_starts_invalid", CAT, program(
        "        so.apply(hdr.h);\n"
        "        sw.apply(hdr.h2, hdr.h);\n"
        "        if (hdr.h2.isValid()) { ss.apply(meta.st); } else { st.apply(meta.s); }\n"
        "        hdr.eth.src[3:0] = (bit<1>)meta.st[0].isValid() ++ (bit<1>)meta.st[1].isValid() ++ "
        "(bit<1>)meta.s.st[1].isValid() ++ (bit<1>)meta.s.x.isValid();\n"
        "        if (meta.st[1].isValid()) { hdr.eth.src[15:8] = meta.st[1].b; }\n"
        "        if (meta.s.st[1].isValid()) { hdr.eth.src[23:16] = meta.s.st[1].b; }\n",
        top=OUT_TOP, headers=OUT_HDR, meta="    h_t[2] st;\n    hs_t s;\n",
        ingress_decls="    SO() so;\n    SW() sw;\n    SS() ss;\n    ST() st;\n"), frames=OUT_FR, json_path=True),

    # seed 13: update/verify_checksum_with_payload over fields that are not whole bytes (8 + 5
    # bits, ...): BMv2 packs the fields into bytes, zero bits after the last one, and appends the
    # payload from the next byte on (it was appended right after the last field bit); with csum16
    # and crc16, with the fields of an invalid header left out
    case("fh_checksum_with_payload_odd_width_fields", CAT, program(
        "        hdr.eth.src[1:0] = (bit<1>)sm.checksum_error ++ 1w1;\n",
        headers=K_HDR, fields="    k_t k;\n", parser=K_PARSER,
        deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.k); pkt.emit(hdr.h);",
        verify="apply { verify_checksum_with_payload(hdr.k.isValid(), { hdr.k.a, hdr.k.t, hdr.k.p }, hdr.k.cs, "
               "HashAlgorithm.csum16); }",
        compute="apply {\n"
                "    update_checksum_with_payload(hdr.k.isValid(), { hdr.k.z, hdr.k.q, hdr.k.a, hdr.k.t }, hdr.k.cs, "
                "HashAlgorithm.csum16);\n"
                "    update_checksum_with_payload(hdr.k.isValid(), { hdr.k.a, hdr.k.r, hdr.h.b, hdr.k.p }, hdr.k.q, "
                "HashAlgorithm.crc16);\n}"), frames=K_FR, json_path=True),
]

# ------------------------------------------------------------------ arguments that alias
ALIAS_TOP = """control SC(inout h_t[3] st, out h_t y) { apply { y = st[1]; st.pop_front(1); } }
control SD(inout h_t[3] st, inout h_t y) { apply { st.push_front(1); y.b = 0x5d; } }
control SE(out h_t y, inout headers_t hh) { apply { y = hh.h; y.a = 0x3e; hh.h.setInvalid(); } }
"""
CASES += [
    # seed 2: an out/inout argument of a sub-control that aliases another argument (hdr.s and
    # hdr.s[1]) goes through p4c's temporary: the body sees the copies, which are written back
    # after it in argument order (it was written in place)
    case("fh_control_aliased_arguments_copied", CAT, program(
        "        if (hdr.s[0].isValid() && hdr.s[0].b == 1) { sc.apply(hdr.s, hdr.s[1]); }\n"
        "        else if (hdr.s[0].isValid() && hdr.s[0].b == 2) { sd.apply(hdr.s, hdr.s[0]); }\n"
        "        else { se.apply(hdr.s[2], hdr); }\n"
        "        hdr.eth.src[7:0] = (bit<1>)hdr.s[0].isValid() ++ (bit<1>)hdr.s[1].isValid() ++ "
        "(bit<1>)hdr.s[2].isValid() ++ (bit<1>)hdr.h.isValid() ++ 4w0;\n",
        top=ALIAS_TOP, fields=STACK_FIELDS, parser=STACK_PARSER,
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.s);\n        pkt.emit(hdr.h);",
        ingress_decls="    SC() sc;\n    SD() sd;\n    SE() se;\n"), frames=ALIAS_FR, json_path=True),
]

# ------------------------------------------------------------------ a dead union-member assignment
U_HDR = "header u16_t { bit<8> a; bit<16> v; }\nheader_union u_t { h_t x; u16_t w; }\n"
U_PARSER = """    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 2: pux; 3: puw; default: accept; } }
    state pux { pkt.extract(hdr.u.x); transition accept; }
    state puw { pkt.extract(hdr.u.w); transition accept; }"""
U_FR = [(1, eth(0x1234) + hdr(3, 1, 2, 3) + bytes.fromhex("07620a") + PAYLOAD),
        (2, eth(0x1234) + hdr(3, 4, 2, 3) + bytes.fromhex("07620a") + PAYLOAD),
        (3, eth(0x1234) + hdr(3, 5, 2, 3) + bytes.fromhex("07620a") + PAYLOAD),
        (4, eth(0x1234) + hdr(3, 6, 2, 3) + bytes.fromhex("07620a") + PAYLOAD),
        (2, eth(0x1234) + hdr(2, 4, 5, 6) + hdr(9, 8, 7, 6) + PAYLOAD),
        (3, eth(0x1234) + hdr(1, 1, 1, 1) + PAYLOAD)]
CASES += [
    # seed 33: `u.x = h; ... u.x = s2;` -- p4c's def-use pass drops the first assignment, dead
    # for it as nothing reads u.x in between (a read of the sibling u.w, a setValid of it, a
    # write into u.x do not), though on BMv2 it would have invalidated u.w: BMv2 keeps u.w
    case("fh_union_member_dead_assignment_dropped", CAT, program(
        "        if (hdr.h.b == 1) { hdr.u.x = hdr.h; hdr.u.x = hdr.h2; }\n"
        "        else if (hdr.h.b == 4) { hdr.u.w = { 1, 2 }; if (hdr.u.x.isValid()) { hdr.h.c = 9; } hdr.u.w = hdr.u.w; }\n"
        "        else if (hdr.h.b == 5) { hdr.u.x = hdr.h; hdr.h.d = (bit<32>)hdr.u.x.c; hdr.u.x = hdr.h2; }\n"  # read: kept
        "        else if (hdr.h.b == 6) { a(hdr.u.x); hdr.u.x = hdr.h2; }\n"   # (seed 222) a dead copy-back
        "        else if (hdr.h.b == 7) { a(hdr.u.x); hdr.h.a = hdr.u.x.a; hdr.u.x = hdr.h2; }\n"   # a live one
        "        else { hdr.u.x = hdr.h; if (hdr.u.w.isValid()) { hdr.h.c = 7; } hdr.u.x.b = hdr.u.x.a; hdr.u.x = hdr.h2; }\n"
        "        hdr.eth.src[2:0] = (bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.isValid();\n",
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER, ingress_decls="    action a(out h_t y) { y = { 1, 2, 3, 4 }; }\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"),
         frames=U_FR + [(1, eth(0x1234) + hdr(3, 6, 2, 3) + bytes.fromhex("07620a") + PAYLOAD),
                        (2, eth(0x1234) + hdr(3, 7, 2, 3) + bytes.fromhex("07620a") + PAYLOAD)], json_path=True),
]

CASES += [
    # seed 69/36: an action's `out` header argument and a sub-control's that is a header union
    # member: the copy-back of a valid header invalidates the other member (BMv2's assign_header
    # into a union member; p4c inlines the control, whose writes then invalidate it); it left
    # both valid.  (A body that makes it valid and then invalid again: open8.py)
    case("fh_out_argument_union_member_copy_back", CAT, program(
        "        if (hdr.h.b == 1) { a(hdr.u.x); } else if (hdr.h.b == 4) { sc.apply(hdr.u.x, hdr.u.x); }\n"
        "        else if (hdr.h.b == 5) { b(hdr.u.w); }\n"
        "        else if (hdr.h.b == 6) { sd.apply(hdr.h2, hdr.u.x); }\n"
        "        hdr.eth.src[2:0] = (bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.isValid();\n",
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER,
        top="control SC(in h_t x, out h_t y) { apply { y = { 5, 6, 7, 8 }; } }\n"
            "control SD(in h_t x, out h_t y) { apply { y.setValid(); y.a = 0x44; y.d = x.d; } }\n",
        ingress_decls="    action a(out h_t y) { y = { 1, 2, 3, 4 }; }\n"
                      "    action b(inout u16_t y) { y.setValid(); y.v = 0x99; }\n    SC() sc;\n    SD() sd;\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.u);"),
         frames=U_FR + [(1, eth(0x1234) + hdr(2, 5, 2, 3) + hdr(9, 8, 7, 6) + PAYLOAD),
                        (2, eth(0x1234) + hdr(3, 6, 2, 3) + bytes.fromhex("07620a") + PAYLOAD)], json_path=True),
]
