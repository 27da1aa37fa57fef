"""Constructs seen in public v1model programs not measured before (research prototypes and
course repositories fetched by helper corpus13 for issue #15), each written here as a small
program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A deparser may apply a sub-control (tatry/INT-BMv2 keeps its INT headers' emits in a
control ``int_deparser(packet_out, in int_headers_t)`` applied from the main deparser):
p4c inlines it, and its BMv2 back end then judges the statements the sub-control holds --
emits are fine, an ``if``, an assignment or a table there is "not supported within a
deparser" as in the deparser itself.  checkmate-p4c refused every ``X.apply(...)`` in a
deparser, taking it for a table.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the error
must contain)."""
from .base import H, H2, case, eth, program, PAYLOAD

CASES = []

_SUB = """
control Sub(packet_out p, in h_t x, in h_t y) {
    apply { p.emit(x); p.emit(y); }
}
"""
_DEP_FRAMES = [(1, H(1, 2, 3, 4)), (1, H2(5, 6, 7, 8, b=9)), (2, eth(0x0800) + PAYLOAD)]

# a control type applied directly in the deparser (emits h2 before h)
CASES.append(case("corpus13_deparser_applies_subcontrol_directly", "language", program(
    top=_SUB, deparser="        pkt.emit(hdr.eth);\n        Sub.apply(pkt, hdr.h2, hdr.h);"),
    frames=_DEP_FRAMES))
# an instance declared in the deparser, applied twice with other arguments
CASES.append(case("corpus13_deparser_applies_subcontrol_instance", "language", program(
    top=_SUB, deparser="        pkt.emit(hdr.eth);\n        s.apply(pkt, hdr.h2, hdr.h2);\n        s.apply(pkt, hdr.h, hdr.h2);").replace(
    "control D(packet_out pkt, in headers_t hdr) {\n", "control D(packet_out pkt, in headers_t hdr) {\n    Sub() s;\n"),
    frames=_DEP_FRAMES))

INVALID = {
    # the sub-control's body is judged as the deparser's own (p4c: "IfStatement: not supported
    # within a deparser on this target")
    "corpus13_deparser_subcontrol_with_if": (program(
        top=_SUB.replace("apply { p.emit(x);", "apply { if (x.isValid()) { p.emit(x); }"),
        deparser="        pkt.emit(hdr.eth);\n        Sub.apply(pkt, hdr.h2, hdr.h);"), ("not supported within a deparser",)),
    "corpus13_deparser_subcontrol_with_assignment": (program(
        top="control Sub(packet_out p, inout h_t x) {\n    apply { x.a = 1; p.emit(x); }\n}\n",
        deparser="        pkt.emit(hdr.eth);\n        h_t t = hdr.h;\n        Sub.apply(pkt, t);"), ("not supported within a deparser",)),
}

# A header inside the user metadata struct is a header instance of BMv2's PHV: an E2E clone
# copies it (valid bit and fields) while the metadata fields are reset; checkmate-switch gave
# the clone fresh (invalid) metadata headers.  A header stack and a struct-nested header too.
_E2E_META = program(meta="    h_t mh;\n    in_t inner;\n    h_t[2] ms;\n", headers="struct in_t { h_t x; bit<8> k; }\n",
                    egress="""
        if (sm.instance_type == 0) {
            meta.mh = hdr.h;
            meta.inner.x = hdr.h;
            meta.inner.x.a = 0x42;
            meta.inner.k = 9;
            meta.ms[1] = hdr.h;
            meta.m8 = 7;
            clone(CloneType.E2E, 5);
        } else {
            hdr.h2.setValid();
            hdr.h2.a = meta.mh.a;
            hdr.h2.b = (meta.mh.isValid() ? 8w1 : 8w0) + (meta.inner.x.isValid() ? 8w2 : 8w0)
                       + (meta.ms[1].isValid() ? 8w4 : 8w0) + (meta.ms[0].isValid() ? 8w8 : 8w0);
            hdr.h2.c = meta.inner.x.c + (bit<16>)meta.inner.k + (bit<16>)meta.m8;
            hdr.h2.d = meta.ms[1].d;
        }""")
CASES.append(case("corpus13_e2e_clone_keeps_metadata_headers", "replication", _E2E_META,
                  frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (2, H(0x99, 0, 0xff00, 7))],
                  clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))
# ... and a frame without `h` copies an invalid hdr.h into meta.mh: BMv2's assign_header only
# marks meta.mh invalid, so its fields keep what an earlier packet left in that pooled PHV (the
# metadata struct's headers are PHV headers); checkmate-switch started each packet's metadata
# headers from zeros on checkmate-p4c's build.
CASES.append(case("corpus13_metadata_headers_come_from_the_pooled_phv", "replication", _E2E_META,
                  frames=[(1, H(0x11, 0x22, 0x3344, 0x55667788)), (2, eth(0x0800) + PAYLOAD), (1, eth(0x0801) + PAYLOAD)],
                  clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))

# p4c's JSON for two nested ifs that apply the same tables in both arms, then one more table:
# every node after the outer `if` is reachable from both arms, but only `t3` lies on every
# path.  The BMv2 JSON loader (switch/bmv2json) took the first node reachable from both arms
# (t1) as the place the arms meet, so a frame that went through t2 never reached t1's code
# nor t3 in the right order (sonic-pins p4_symbolic conditional_nonlattice; the JSON path only).
CASES.append(case("corpus13_json_branches_meet_at_postdominator", "language", program("""
        if (hdr.h.a > 10) {
            if (hdr.h.a > 15) { t1.apply(); } else { t2.apply(); }
        } else {
            if (hdr.h.a > 5) { t1.apply(); } else { t2.apply(); }
        }
        t3.apply();""", ingress_decls="""
    action s1() { hdr.h.b = hdr.h.b + 1; }
    action s2() { hdr.h.c = hdr.h.c + 2; }
    action s3() { hdr.h.d = (bit<32>)hdr.h.b + (bit<32>)hdr.h.c; }
    table t1 { actions = { s1; } default_action = s1(); }
    table t2 { actions = { s2; } default_action = s2(); }
    table t3 { actions = { s3; } default_action = s3(); }"""),
    frames=[(1, H(a, 1, 1, 0)) for a in (0, 3, 6, 12, 20)], json_path=True))

# A call of a generic v1model extern function with explicit type arguments other than the few
# the parser knew by name (`log_msg<tuple<bit<8>, bit<16>>>(...)`): checkmate-p4c read the `<`
# as a comparison ("expected an expression, found 'tuple'"); p4c takes it.  (Found probing
# tatry/INT-BMv2's `clone3<metadata>(...)`, which both refuse -- p4c in its BMv2 back end,
# checkmate-p4c now with the deprecation message instead of a syntax error.)
CASES.append(case("corpus13_extern_function_explicit_type_args", "externs", program("""
        log_msg<tuple<bit<8>, bit<16>>>("a={} c={}", {hdr.h.a, hdr.h.c});
        log_msg<tuple<>>("no data", {});
        hdr.h.b = hdr.h.a + 1;""")))
