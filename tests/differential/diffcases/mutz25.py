"""Found by helper mutz25 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles that checkmate-p4c refused (their invalid neighbours are in tests/p4c/test_mutants4.py)."""
from controller.entities import Entry

from .base import PAYLOAD, H, case, eth, program, varbit_program

CAT = "front end (p4c-compatible)"

_F = [(1, H(1, 1, 0x10)), (1, H(2, 3, 0x20)), (1, H(3, 7, 0x30)), (1, H(5, 1, 0x40))]

CASES = [
    # mutz24's open item: a match_kind comparison stored into an action's, a function's or a
    # sub-control's out/inout parameter whose argument the caller overwrites before reading it --
    # p4c inlines the body and its copy-out, and its def-use pass drops both (checkmate-p4c refused
    # it: "could not convert expression to Json"); also a table's bound out argument
    case("mutz25_match_kind_out_param_stores_dropped", CAT, program("""
        bool b; bool c = true;
        a(b);
        ai(c);
        f(b);
        s.apply(c);
        t.apply();
        b = hdr.h.a == 2;
        c = hdr.h.b == 3;
        meta.m8 = hdr.h.a + 1;
        hdr.h.d = (b ? 32w0x100 : 32w0) + (c ? 32w0x20 : 32w0) + (bit<32>)meta.m8;
""", top="void f(out bool o) { o = exact == lpm; }\n"
         "control S(out bool o) { apply { o = exact != ternary; } }\n",
        ingress_decls="""\
    action a(out bool o) { o = exact == lpm; }
    action ai(inout bool o) { bool t = exact == lpm; o = t; }
    action s8(out bit<8> o, bit<8> v) { o = (exact == lpm) ? v : 8w2; hdr.h.c = hdr.h.c + (bit<16>)v; }
    table t { key = { hdr.h.a: exact; } actions = { s8(meta.m8); NoAction; } default_action = s8(meta.m8, 9); }
    S() s;
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s8", {"v": 0x11})]),

    # p4c_mutate seed 152 (action_param): a direct action call leaving out a directionless
    # argument is p4c's "parameter must be bound" only in code it keeps -- not in an unused action,
    # an unapplied sub-control instance, or after a return (checkmate-p4c refused them all)
    case("mutz25_unbound_action_arguments_in_removed_code", CAT, program("""
        c1.apply(hdr.h);
        if (hdr.h.b == 7) {
            hdr.h.c = 0x77;
            return;
            a();
        }
        hdr.h.d = 5;
""", top="""\
control C(inout h_t h) { apply { h.b = h.b + 1; } }
control Bad(inout h_t h) {
    action a(bit<8> z) { h.a = z; }
    apply { a(); }
}
""", ingress_decls="""\
    action a(bit<8> z) { hdr.h.a = z; }
    action b() { a(); }
    C() c1;
    Bad() c2;
"""), frames=_F),
]

# corpus probe6 (corpus6's open item): an action's `inout`/`out` varbit parameter given a varbit local
# or a header's varbit field -- a direct call, a table's bound argument, an `exit` in the body; a
# function's (also called in an expression) and a sub-control's varbit parameters
# (checkmate-p4c refused it: "varbit values can only be copied from one header field to another")
_VB = varbit_program("""\
    varbit<32> s;
    S() sc;
    action cp(inout varbit<32> q) { q = hdr.x.v; }
    action take(out varbit<32> q) { q = hdr.y.v; hdr.tail.t = hdr.tail.t + 1; }
    action keep(inout varbit<32> q) { hdr.tail.t = hdr.tail.t | 0x80; }
    action cp_exit(inout varbit<32> q) { q = hdr.x.v; exit; }
    table t { key = { hdr.len.op: exact; } actions = { cp(hdr.y.v); keep(hdr.y.v); NoAction; } default_action = NoAction(); }
    apply {
        sm.egress_spec = 2;
        s = hdr.y.v;
        if (hdr.len.op == 1) { cp(s); hdr.y.v = s; }
        else if (hdr.len.op == 2) { take(hdr.x.v); }
        else if (hdr.len.op == 3) { keep(s); hdr.x.v = s; }
        else if (hdr.len.op == 4) { cp_exit(hdr.y.v); }
        else if (hdr.len.op == 7) { fcp(s, hdr.x.v); hdr.y.v = s; }
        else if (hdr.len.op == 8) { hdr.tail.t = fget(hdr.y.v, hdr.x.v) + hdr.tail.t; }
        else if (hdr.len.op == 9) { sc.apply(hdr.y.v, hdr.x.v); }
        else if (hdr.len.op == 10) { sc.apply(s, hdr.x.v); hdr.y.v = s; }
        else { t.apply(); }
    }""", len_fields="bit<8> n; bit<8> op;", top="""\
void fcp(inout varbit<32> q, in varbit<32> z) { q = z; }
bit<8> fget(out varbit<32> q, in varbit<32> z) { q = z; return 8w7; }
control S(inout varbit<32> q, in varbit<32> z) { apply { q = z; } }
""")


def _vbf(n: int, op: int, x: bytes, y: bytes = b"\xbe\xef") -> bytes:
    return bytes.fromhex("000000000002000000000001abcd") + bytes([n, op]) + x + y + b"\x05" + bytes(range(6))


CASES.append(case("mutz25_varbit_action_parameters", CAT, _VB, frames=[
    (1, _vbf(8, 1, b"\x11")), (1, _vbf(24, 1, b"\x11\x22\x33")), (1, _vbf(0, 1, b"")),
    (1, _vbf(16, 2, b"\x11\x22")), (1, _vbf(8, 3, b"\x44")), (1, _vbf(32, 4, b"\x01\x02\x03\x04")),
    (1, _vbf(8, 5, b"\x66")), (1, _vbf(16, 6, b"\x66\x77")), (1, _vbf(24, 7, b"\x01\x02\x03")),
    (1, _vbf(8, 8, b"\x09")), (1, _vbf(32, 9, b"\x0a\x0b\x0c\x0d")), (1, _vbf(0, 9, b"")), (1, _vbf(8, 10, b"\x0e"))],
    entries=[Entry("I.t", {"hdr.len.op": 5}, "I.cp", {}), Entry("I.t", {"hdr.len.op": 6}, "I.keep", {})],
    json_path=True))

# p4c_mutate seed 160 (match_field): p4c's FieldIdAllocator numbers a table's key elements with the
# selector ones counted (a table without an action_selector drops its selector key from the P4Info,
# not from the numbering) and skips the ids @ids take -- so do action parameters (checkmate-p4c
# numbered the match fields it kept 1, 2, ...: P4Info ids differed)
CASES.append(case("mutz25_field_ids_as_p4c", CAT, program("""
        t.apply();
        t2.apply();
""", ingress_decls="""\
    action s(bit<8> v, @id(1) bit<8> w) { hdr.h.b = v; hdr.h.c = hdr.h.c + (bit<16>)w; }
    table t { key = { hdr.h.c: selector; hdr.h.a: exact; } actions = { s; NoAction; } default_action = NoAction(); }
    table t2 { key = { hdr.h.d: selector; hdr.h.b: exact @id(2); hdr.h.a: ternary; } actions = { s; NoAction; }
               default_action = NoAction(); }
"""), frames=_F, entries=[Entry("I.t", {"hdr.h.a": 2}, "I.s", {"v": 0x21, "w": 3}),
                          Entry("I.t2", {"hdr.h.b": 0x21, "hdr.h.a": (2, 0xff)}, "I.s", {"v": 0x44, "w": 5}, priority=1)]))

# fuzz_tables seed 1625: a table key that is a slice, a cast or a shift of a field of an invalid header
# (here one the parser did not extract: the previous packet's values stay in BMv2's PHV) is computed by
# p4c into a temporary first, which keeps what the field holds -- only a whole field, or one masked by
# a constant (`f & 0xff`, written as the field and a mask), is built as zeros (checkmate-switch zeroed
# all of them)
CASES.append(case("mutz25_key_temporaries_of_invalid_header_keep_stale_values", CAT, program("""
        t1.apply(); t2.apply(); t3.apply(); t4.apply(); t5.apply();
""", ingress_decls="""\
    action m1(bit<8> v) { hdr.eth.dst[7:0] = v; }
    action m2(bit<8> v) { hdr.eth.dst[15:8] = v; }
    action m3(bit<8> v) { hdr.eth.dst[23:16] = v; }
    action m4(bit<8> v) { hdr.eth.dst[31:24] = v; }
    action m5(bit<8> v) { hdr.eth.dst[39:32] = v; }
    table t1 { key = { hdr.h.c[7:0]: exact @name("c70"); } actions = { m1; NoAction; } default_action = m1(0xee); }
    table t2 { key = { (bit<8>)hdr.h.c: ternary @name("c8"); } actions = { m2; NoAction; } default_action = m2(0xee); }
    table t3 { key = { hdr.h.c >> 8: exact @name("c_hi"); } actions = { m3; NoAction; } default_action = m3(0xee); }
    table t4 { key = { hdr.h.c & 16w0xff: exact @name("c_m"); } actions = { m4; NoAction; } default_action = m4(0xee); }
    table t5 { key = { hdr.h.c: exact; } actions = { m5; NoAction; } default_action = m5(0xee); }
"""), frames=[(1, H(0x17, 2, 0x1201, 4)), (1, eth(0x0800) + PAYLOAD), (1, H(0x18, 2, 0x0000, 4)),
              (1, eth(0x0800) + PAYLOAD)], one_by_one=True, json_path=True,
    entries=[Entry("I.t1", {"c70": 1}, "I.m1", {"v": 0x11}), Entry("I.t1", {"c70": 0}, "I.m1", {"v": 0x22}),
             Entry("I.t2", {"c8": (1, 0xff)}, "I.m2", {"v": 0x11}, 1), Entry("I.t2", {"c8": (0, 0xff)}, "I.m2", {"v": 0x22}, 1),
             Entry("I.t3", {"c_hi": 0x12}, "I.m3", {"v": 0x11}), Entry("I.t3", {"c_hi": 0}, "I.m3", {"v": 0x22}),
             Entry("I.t4", {"c_m": 1}, "I.m4", {"v": 0x11}), Entry("I.t4", {"c_m": 0}, "I.m4", {"v": 0x22}),
             Entry("I.t5", {"hdr.h.c": 0x1201}, "I.m5", {"v": 0x11}), Entry("I.t5", {"hdr.h.c": 0}, "I.m5", {"v": 0x22})]))
