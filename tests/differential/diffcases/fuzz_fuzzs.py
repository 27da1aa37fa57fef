"""Minimal programs reduced from the random replication / state programs of fuzz_pre.py (helper
fuzzs, issue #15); each names the seed it was found with."""
from .base import H, case, program

CAT = "random programs: replication"

FR = [(1, H(1, 2, 3, 4)), (2, H(2, 0x20, 5, 6)), (3, H(3, 0x81, 7, 8)), (1, H(4, 0, 9, 10))]

CASES = [
    # seed 1: every truncate() on a packet counts, the smallest length wins, in ingress and
    # egress alike (a later, larger one does not undo it); truncate(0) leaves an empty frame
    case("fz_truncate_smallest_length_wins", CAT, program(
        "        if (hdr.h.a == 1) { truncate(14); } else if (hdr.h.a == 2) { truncate(20); truncate(30); }\n"
        "        else if (hdr.h.a == 3) { truncate(0); truncate(20); } else { truncate(40); truncate(24); }\n",
        egress="        hdr.h.c = (bit<16>)sm.packet_length; if (hdr.h.a == 1) { truncate(100); } else { truncate(26); }\n"),
         frames=FR, json_path=True),
    # seeds 15, 22: a recirculated packet is the whole deparsed packet -- truncate() in the pass
    # that recirculates it (ingress or egress) cuts nothing (packet_length in the next pass shows
    # it) and is not carried into the next pass
    case("fz_truncate_does_not_cut_recirculated", CAT, program(
        "        hdr.h.d[15:0] = (bit<16>)sm.packet_length; if (hdr.h.a == 1) { truncate(24); }\n",
        egress="        if (hdr.h.a == 1 || hdr.h.a == 2) { hdr.h.a = 9; truncate(22); recirculate_preserving_field_list(0); }\n"
               "        hdr.h.c = (bit<16>)sm.packet_length;\n"),
         frames=FR, json_path=True),
]

FL0_META = "    @field_list(0) bit<8> k0;\n    @field_list(0, 1) bit<8> k01;\n    bit<8> none;\n"
FL0_REPORT = "        hdr.h.a = meta.k0; hdr.h.b = meta.k01; hdr.h.c = (bit<16>)meta.none; hdr.eth.src[7:0] = (bit<8>)sm.instance_type;\n"
CASES += [
    # seed 9: field list index 0 is a list like any other -- clone_preserving_field_list(I2E and
    # E2E, s, 0) carries its fields; a plain clone() carries none (resubmit / recirculate with 0 too)
    case("fz_field_list_index_zero", CAT, program(
        "        meta.k0 = hdr.h.a + 1; meta.k01 = hdr.h.b + 1; meta.none = 9;\n"
        "        if (hdr.h.a == 1) { clone_preserving_field_list(CloneType.I2E, 5, 0); }\n"
        "        else if (hdr.h.a == 2) { clone(CloneType.I2E, 5); }\n"
        "        else if (hdr.h.a == 3 && sm.instance_type == 0) { resubmit_preserving_field_list(0); }\n",
        egress="        if (sm.instance_type == 0 && hdr.h.a == 4) { meta.k0 = 0x44; clone_preserving_field_list(CloneType.E2E, 6, 0); }\n"
               "        if (sm.instance_type == 0 && hdr.h.a == 1) { meta.k0 = 0x55; hdr.h.a = 9; recirculate_preserving_field_list(0); }\n"
               + FL0_REPORT, meta=FL0_META),
         frames=FR, clones={5: ([(3, 0)], 0), 6: ([(4, 1)], 0)}, json_path=True),
]

NEST_TYPES = ("struct inner_t { @field_list(1) bit<8> x; bit<8> y; }\n"
              "struct outer_t { inner_t i2; @field_list(1, 2) bit<16> z; }\n")
NEST_META = "    inner_t inner;\n    @field_list(1) bit<8> top;\n    @field_list(2) inner_t whole;\n    outer_t o;\n"
CASES += [
    # (found writing the generator's field lists) a @field_list field of a struct nested in the
    # metadata, at any depth, is carried by clones, resubmit and recirculate like a top-level one;
    # a struct field with a @field_list of its own is carried whole for its lists, and the
    # annotations inside it count for nothing there (meta.whole.x is not in list 1)
    case("fz_field_list_nested_struct_fields", CAT, program(
        "        if (sm.instance_type == 0) { meta.inner.x = hdr.h.a + 1; meta.inner.y = 7; meta.top = 3; meta.whole.x = 0x11;\n"
        "            meta.whole.y = 0x12; meta.o.i2.x = 0x21; meta.o.i2.y = 0x22; meta.o.z = 0x2323; }\n"
        "        if (hdr.h.a == 1) { clone_preserving_field_list(CloneType.I2E, 5, 1); }\n"
        "        if (hdr.h.a == 2) { clone_preserving_field_list(CloneType.I2E, 5, 2); }\n"
        "        if (hdr.h.a == 3 && sm.instance_type == 0) { resubmit_preserving_field_list(1); }\n",
        egress="        if (hdr.h.a == 4) { hdr.h.a = 5; recirculate_preserving_field_list(2); }\n"
               "        hdr.h.b = meta.inner.x; hdr.h.c = meta.inner.y ++ meta.top; hdr.eth.src[7:0] = (bit<8>)sm.instance_type;\n"
               "        hdr.eth.src[47:8] = meta.whole.x ++ meta.whole.y ++ meta.o.i2.x ++ meta.o.i2.y ++ meta.o.z[7:0];\n",
        headers=NEST_TYPES, meta=NEST_META),
         frames=FR, clones={5: ([(3, 0)], 0)}, json_path=True),
]
