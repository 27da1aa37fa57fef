"""Found by helper mutz20 (issue #15, tools/p4c_mutate.py seeds 54-), each decided by real
p4c 1.2.4.8 / BMv2 1.15.5.

p4c's BMv2 back end refuses a division by a constant other than a power of two only when the
dividend is still unknown after its midend's constant propagation.  That propagation crosses
parser states p4c merges (a state whose only predecessor goes to it unconditionally) and a
sub-parser call p4c inlines -- through the argument into the sub-parser and back through an
``inout`` one -- and, in a control, starts after the locals' initializers and skips a branch
strength reduction removes; an action called directly is inlined with its arguments (a
division over its parameters folds where every call passes constants; a table listing it gets
them from the control plane).  checkmate-p4c refused every such division (seed 54: ``meta.m8 =
0x10; sub.apply(pkt, ..., meta.m8)``, then ``cnt = (cnt + 1) / 5`` in the sub-parser); the
divisions are now decided when the body is done (const_index.py).  BMv2 runs p4c's folded
constant; checkmate-switch computes the division at run time: the frames show both agree."""
from .base import PARSE_H2, H, H2, case, program, start_state

CAT = "front end (p4c-compatible)"

_PARSER = "    Sp() sp;\n" + start_state() + """
    state parse_h {
        meta.m8 = 0x10;
        sp.apply(pkt, hdr.h, meta.m8);
        meta.m16 = 7;
        transition more;
    }
    state more {
        meta.m16 = (meta.m16 + (bit<16>)meta.m8) / 3;
        transition select(hdr.h.a) {
            0xee: parse_h2;
            default: accept;
        }
    }
""" + PARSE_H2

_SUB = """parser Sp(packet_in p, out h_t x, inout bit<8> cnt) {
    state start { p.extract(x); cnt = (cnt + 1) / 5; transition accept; }
}
"""

CASES = [
    case("mutz20_divisions_p4c_constant_propagation_folds", CAT, program("""
        hdr.h.b = meta.m8;
        hdr.h.c = meta.m16;
        meta.m32 = 100;
        if (hdr.h.a == 1) { meta.m32 = (meta.m32 + 1) / 7; }
        if (hdr.h.a - hdr.h.a != 0) { hdr.h.c = hdr.h.c / 3; }
        hdr.h.d = meta.m32 + (bit<32>)(t / 6);
        dv(8w23, 16w1000);
""", top=_SUB, parser=_PARSER, ingress_decls="    bit<8> t = 0x40;\n"
                                             "    action dv(bit<8> v, bit<16> w) { hdr.eth.src[7:0] = v / 5; hdr.eth.src[23:8] = (w + 7) % 9; }"),
         frames=[(1, H(1, 2, 3, 4)), (1, H(2, 1)), (1, H2(5, 6))]),
]

# hash's base is a type variable (``in T base``): p4c accepts a bool there (checkmate-p4c wanted
# bit<N>; p4c_mutate seed 63, kind extern_call) and writes it as a bool parameter, which
# simple_switch cannot load; checkmate-p4c takes it as 1 or 0
CASES.append(case("mutz20_hash_bool_base", CAT, program("""
        bit<16> r; hash(r, HashAlgorithm.identity, true, { hdr.h.a }, 16w1024); hdr.h.c = r;
        bit<32> q; hash(q, HashAlgorithm.crc16, false, { hdr.h.b, hdr.h.c }, 32w100); hdr.h.d = q;
        bit<8> s; hash(s, HashAlgorithm.csum16, hdr.h.a == 1, { hdr.h.d }, 8w7); hdr.h.b = s;
"""), p4info_only="simple_switch 1.15.5 cannot load p4c's JSON for it (\"Parameter type 'bool' not supported\")"))
