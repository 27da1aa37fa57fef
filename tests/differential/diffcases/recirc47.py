"""Helper recirc47 (issue #15): a recirculated or resubmitted copy's PHV.  BMv2's egress (ingress)
makes the copy with ``clone_no_phv_ptr`` -- the pool's top PHV, taken while the original still holds
its own -- and releases the original's PHV right after, so a chain of recirculations alternates
between two PHVs: an invalid header's field bumped each pass grows every other pass (fuzz_samples seed
134, ``recirculate_twice`` with frames without ``h``: the frame leaves on BMv2; Engine._requeued)."""
from .base import OTHER, case, eth, PAYLOAD, program

CAT = "replication"

CASES = [
    # h is never extracted: b counts on the two PHVs in turn (0,0,1,1,2: five passes), the
    # Ethernet source counts the passes in the frame itself
    case("recirc47_recirculated_copy_bumps_an_invalid_header_in_pooled_phvs", CAT, program(
        "", egress="        hdr.eth.src[7:0] = hdr.eth.src[7:0] + 1;\n"
                   "        if (hdr.h.b < 2) { hdr.h.b = hdr.h.b + 1; recirculate_preserving_field_list(0); }\n"),
        frames=OTHER),
    # seven passes (b: 0,0,1,1,2,2,3); the next frame takes the last pass's PHV (b = 3) and leaves at once
    case("recirc47_recirculated_copy_counts_an_invalid_header_three_passes", CAT, program(
        "", egress="        hdr.eth.src[7:0] = hdr.eth.src[7:0] + 1;\n"
                   "        if (hdr.h.b < 3) { hdr.h.b = hdr.h.b + 1; recirculate_preserving_field_list(0); }\n"
                   "        else { hdr.eth.dst[7:0] = hdr.h.b; }\n"),
        frames=[(1, eth(0x0800) + PAYLOAD), (2, eth(0x0801) + PAYLOAD)], one_by_one=True),
    # a resubmitted copy takes its PHV the same way (ingress: clone_no_phv_ptr, then the original's
    # released); the frame counts its passes in ingress here
    case("recirc47_resubmitted_copy_bumps_an_invalid_header_in_pooled_phvs", CAT, program(
        "        hdr.eth.src[7:0] = hdr.eth.src[7:0] + 1;\n"
        "        if (hdr.h.b < 3) { hdr.h.b = hdr.h.b + 1; resubmit_preserving_field_list(0); }\n"
        "        else { hdr.eth.dst[7:0] = hdr.h.b; }\n"),
        frames=[(1, eth(0x0800) + PAYLOAD), (2, eth(0x0801) + PAYLOAD)], one_by_one=True),
    # fuzz_samples seed 134's frames without h of the first program, one at a time (in a burst
    # BMv2's frames share the pool as they overlap: not modelled)
    case("recirc47_recirculated_copies_of_frames_one_by_one", CAT, program(
        "", egress="        hdr.eth.src[7:0] = hdr.eth.src[7:0] + 1;\n"
                   "        if (hdr.h.b < 2) { hdr.h.b = hdr.h.b + 1; recirculate_preserving_field_list(0); }\n"),
        frames=[(7, bytes.fromhex("5791c00fd346bac6bd87cf96668f51d30a1d")),
                (3, bytes.fromhex("f066a7305a2eee76835d8893123407e22a65f5bea3d2")),
                (2, bytes.fromhex("07a74426ab0e4368080129651234eeca03925a6faeec2e303ce0b63f234d")),
                (5, bytes.fromhex("d3944c6f06dc14878891c351924459bf8c8a159c4241653cc3daf87da0f5"))], one_by_one=True),
]
