"""Found by helper mutz22 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

An extern instance passed to a sub-control's ``apply`` may be declared after the sub-control's
instance (``S() s; register<bit<8>>(4) r; ... s.apply(hdr.h, r, c)``): p4c binds the object where
the apply is, checkmate-p4c refused it ("argument r must name a register instance") because it
elaborates the sub-control's body at its instance; the object is now declared first.

A ``match_kind`` member is a value (mutz21's open item): ``a(exact, 3)`` for an action whose
``match_kind`` parameter nothing reads, an unused ``match_kind`` local -- p4c accepts them (its
midend removes the value before the BMv2 back end), checkmate-p4c said "unknown name exact".

p4c's constant propagation follows the fields of a struct given a struct initializer
(``Pair16 p = { v, 3 }; ... p.b % 5``), so a division by a constant other than a power of two
of such a field folds and compiles (p4c_mutate seed 106; checkmate-p4c refused it), and a
stack index read from one is range-checked."""
from .base import H, case, program

CAT = "front end (p4c-compatible)"

_SUB = """\
control S(inout h_t h, register<bit<8>> r, counter c) {
    apply {
        bit<8> old;
        r.read(old, (bit<32>)h.b[1:0]);
        r.write((bit<32>)h.b[1:0], h.a);
        h.c = (bit<16>)old;
        c.count((bit<32>)h.b[1:0]);
    }
}
"""

CASES = [
    case("mutz22_extern_passed_to_subcontrol_declared_after_its_instance", CAT, program("""
        if (hdr.h.isValid()) {
            s.apply(hdr.h, rr, cc);
        }
""", ingress_decls="""\
    S() s;
    register<bit<8>>(4) rr;
    counter(4, CounterType.packets_and_bytes) cc;
""", top=_SUB), frames=[(1, H(5, 1, 0, 0)), (1, H(9, 1, 0, 0)), (1, H(7, 2, 3, 4)), (1, H(1, 2, 3, 4))],
         one_by_one=True),
    case("mutz22_match_kind_arguments_unread", CAT, program("""
        match_kind x = lpm;
        if (hdr.h.isValid()) {
            a(exact, 3);
            a(k = ternary, v = hdr.h.b);
            t.apply();
        }
""", ingress_decls="""\
    action a(match_kind k, bit<8> v) { hdr.h.a = hdr.h.a + v; }
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
"""), frames=[(1, H(5, 1, 0, 0)), (1, H(9, 0x20, 0, 0))]),
    case("mutz22_struct_initializer_constants_fold_divisions", CAT, program("""
        pr_t p = { 8w13, hdr.h.a };
        hdr.h.b = p.a % 5;
        nest_t n;
        n = { { 8w200, 8w1 }, hdr.h.b };
        hdr.h.c = (bit<16>)(n.p.a / 3) + (bit<16>)n.c;
        if (hdr.h.isValid()) { t.apply(); }
""", ingress_decls="""\
    action s(bit<8> v) { pr_t q = { v, 27 }; hdr.h.a = q.b % 7 + v; }
    table t { key = { hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(4); }
""", top="struct pr_t { bit<8> a; bit<8> b; }\nstruct nest_t { pr_t p; bit<8> c; }\n"),
         frames=[(1, H(5, 1, 0, 0)), (1, H(9, 0x20, 0, 0))]),
]

# digest data p4c accepts and simple_switch_grpc cannot take (P4Info compared only): one bool (a
# scalar digest, as fe_digest_scalar_value), a struct with a header stack member (as a header
# member); checkmate-p4c refused both ("digest data must be ...", "... is not supported")
CASES.append(case("mutz22_digest_bool_and_stack_member", CAT, program("""
        digest<bool>(1, hdr.h.a == 3);
        ds_t d;
        d.s[0] = hdr.h;
        d.s[1] = hdr.h2;
        d.x = hdr.h.b;
        digest<ds_t>(1, d);
""", top="struct ds_t { h_t[2] s; bit<8> x; }\n"),
    p4info_only="simple_switch_grpc cannot take a scalar digest's P4Info, nor a digest struct with a header stack member"))
