"""Programs found by helper errs13 (issue #15) in a sweep of p4lang/p4c's
testdata/p4_16_errors and testdata/p4_16_bmv_errors, each decided by real p4c 1.2.4.8.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the
message must contain (any of)).
"""

CAT = "front end (p4c-compatible)"

CASES = []

# testdata/p4_16_bmv_errors/issue5464-hash-bmv2 (reduced): a program that declares its own
# architecture (no v1model.p4) with a HashAlgorithm enum.  p4c's BMv2 back end keeps only the
# enums of a file named v1model.p4 as names and turns this one into a bit<32> number, so hash()
# has no algorithm: p4c 1.2.4.8 dies ("Null ei"), later p4c says "expected a HashAlgorithm
# member".  checkmate-p4c compiled it as v1model's hash.
_OWN_ARCH_HASH = """extern packet_in { }
extern packet_out { }
struct standard_metadata_t { }
enum HashAlgorithm { csum16 }
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);
parser Parser<H, M>(packet_in b, out H parsedHdr, inout M meta, inout standard_metadata_t standard_metadata);
control VerifyChecksum<H, M>(inout H hdr, inout M meta);
control Ingress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control Egress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control ComputeChecksum<H, M>(inout H hdr, inout M meta);
control Deparser<H>(packet_out b, in H hdr);
package V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, Ingress<H, M> ig, Egress<H, M> eg,
                       ComputeChecksum<H, M> ck, Deparser<H> dep);
struct headers_t { }
struct metadata_t { bit<16> result; bit<16> b; }
parser P(packet_in b, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { hash(meta.result, HashAlgorithm.csum16, 16w0, { meta.b }, 16w1); }
}
control G(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out b, in headers_t hdr) { apply { } }
V1Switch(P(), V(), I(), G(), C(), D()) main;
"""

INVALID = {
    "own_arch_hash_algorithm_enum": (_OWN_ARCH_HASH, ("HashAlgorithm member", "v1model.p4")),
}
