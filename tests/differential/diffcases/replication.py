"""Forwarding and replication: egress_spec, drop, multicast (egress_rid), clone I2E/E2E with
field lists (@field_list with a named constant), resubmit, recirculate, instance_type,
egress metadata."""
from .base import H, case, program

CAT_F = "forwarding"
CAT_MC = "multicast"
CAT_CL = "clone / resubmit / recirculate"

META_FL = """    @field_list(1) bit<8> keep;
    @field_list(FL) bit<16> keep2;
    bit<8> lost;
"""
TOP_FL = "const bit<8> FL = 2;\n"
EG_REPORT = "        hdr.h.b = (bit<8>)sm.instance_type; hdr.h.c = sm.egress_rid; hdr.h.d[8:0] = sm.egress_port; hdr.h.d[31:24] = meta.keep; hdr.h.d[23:16] = meta.lost;\n        hdr.eth.src[15:0] = meta.keep2; hdr.eth.src[31:16] = (bit<16>)sm.ingress_port;\n"


def fl(ingress, egress=EG_REPORT, **kw):
    return program(ingress, egress=egress, meta=META_FL, headers=TOP_FL, **kw)


CASES = [
    case("fwd_port_from_field", CAT_F, program("        sm.egress_spec = (bit<9>)hdr.h.a[2:0];\n")),
    case("fwd_drop_then_override", CAT_F, program("        mark_to_drop(sm); if (hdr.h.a == 1) { sm.egress_spec = 2; }\n")),
    case("fwd_drop_port_511", CAT_F, program("        if (hdr.h.b == 2) { sm.egress_spec = 511; }\n")),
    case("fwd_egress_drop", CAT_F, program("", egress="        if (hdr.h.a == 0xff) { mark_to_drop(sm); } hdr.h.d[8:0] = sm.egress_port;\n")),
    case("fwd_port_zero", CAT_F, program("", forward=False)),
    case("fwd_packet_length", CAT_F, program("        hdr.h.d = sm.packet_length;\n", egress="        hdr.h.c = (bit<16>)sm.packet_length;\n")),
    case("fwd_ingress_port", CAT_F, program("        hdr.h.a = (bit<8>)sm.ingress_port; sm.egress_spec = sm.ingress_port;\n")),
    case("fwd_exit_egress", CAT_F, program("", egress="        hdr.h.a = 1; if (hdr.h.b == 2) { exit; } hdr.h.a = 2;\n")),
    case("fwd_deparse_order", CAT_F, program("        hdr.h2.setValid(); hdr.h2.a = 0x22;\n", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h2);\n        pkt.emit(hdr.h);")),
    case("fwd_remove_header", CAT_F, program("        hdr.h.setInvalid(); hdr.eth.etype = 0x0800;\n")),
    case("fwd_emit_struct", CAT_F, program("        hdr.h2.setValid(); hdr.h2.b = 1;\n", deparser="        pkt.emit(hdr);")),
    case("fwd_truncate", CAT_F, program("        truncate(20);\n")),
    # simple_switch_grpc has one queue per port: a packet whose priority names another queue is
    # dropped when it is enqueued (unicast and each multicast replica; the I2E clone's metadata is
    # reset, so it goes out); priority 0 and a priority set only in egress pass
    case("fwd_priority_out_of_range_dropped", CAT_F, fl(
        "        if (hdr.h.a == 1) { sm.priority = 1; } else if (hdr.h.a == 2) { sm.priority = 7; sm.mcast_grp = 1; }\n"
        "        else if (hdr.h.a == 3) { sm.priority = 2; clone(CloneType.I2E, 5); } else if (hdr.h.a == 4) { sm.priority = 0; }\n",
        egress="        sm.priority = 3; hdr.h.c = (bit<16>)sm.priority;\n"),
         frames=[(1, H(a, 1, 2, 3)) for a in range(6)], mcast={1: [(2, 5), (3, 6)]}, clones={5: ([(3, 0)], 0)}),
    case("mc_group", CAT_MC, program("        sm.mcast_grp = 1;\n", egress=EG_REPORT.replace("meta.keep2", "16w0").replace("meta.keep", "8w0").replace("meta.lost", "8w0")),
         mcast={1: [(2, 5), (3, 6), (4, 7)]}),
    case("mc_group_same_port_twice", CAT_MC, program("        sm.mcast_grp = (bit<16>)hdr.h.a[0:0] + 1;\n", egress="        hdr.h.c = sm.egress_rid;\n"),
         mcast={1: [(2, 1), (2, 2)], 2: [(3, 0)]}),
    case("mc_wins_over_drop", CAT_MC, program("        mark_to_drop(sm); sm.mcast_grp = 1;\n"), mcast={1: [(5, 0), (6, 0)]}),
    case("mc_unknown_group", CAT_MC, program("        sm.mcast_grp = (bit<16>)hdr.h.a[0:0] * 9;\n"), mcast={1: [(5, 0)]}),
    case("mc_egress_prune", CAT_MC, program("        sm.mcast_grp = 1;\n", egress="        if (sm.egress_port == sm.ingress_port) { mark_to_drop(sm); }\n"),
         mcast={1: [(1, 0), (2, 0), (3, 0), (4, 0)]}),
    case("clone_i2e", CAT_CL, fl("        meta.keep = 0x11; meta.keep2 = 0x2222; meta.lost = 0x33; hdr.h.a = 0x99; clone_preserving_field_list(CloneType.I2E, 5, 1);\n"),
         clones={5: ([(3, 0)], 0)}),
    case("clone_i2e_const_field_list", CAT_CL, fl("        meta.keep = 0x11; meta.keep2 = 0x2222; meta.lost = 0x33; clone_preserving_field_list(CloneType.I2E, 5, FL);\n"),
         clones={5: ([(3, 0)], 0)}),
    case("clone_plain", CAT_CL, fl("        meta.keep = 0x11; clone(CloneType.I2E, 5);\n"), clones={5: ([(3, 0), (4, 1)], 0)}),
    case("clone_e2e", CAT_CL, fl("", egress="        if (sm.instance_type == 0) { meta.keep = 0x44; hdr.h.a = 0x55; clone_preserving_field_list(CloneType.E2E, 6, 1); }\n" + EG_REPORT),
         clones={6: ([(2, 0)], 0)}),
    case("clone_truncated", CAT_CL, fl("        clone(CloneType.I2E, 5);\n", egress="        if (sm.instance_type == 1) { truncate(18); }\n"),
         clones={5: ([(3, 0)], 0)}),
    case("clone_unconfigured", CAT_CL, fl("        clone(CloneType.I2E, 7);\n"), clones={5: ([(3, 0)], 0)}),
    case("resubmit", CAT_CL, fl("        if (sm.instance_type == 0) { meta.keep = hdr.h.a; meta.lost = 7; hdr.h.a = 0x77; resubmit_preserving_field_list(1); }\n"
                                "        else { hdr.h.c = (bit<16>)sm.ingress_port; }\n")),
    case("resubmit_std_meta_reset", CAT_CL, fl("        if (sm.instance_type == 0) { sm.egress_spec = 3; resubmit_preserving_field_list(FL); }\n"
                                               "        else { hdr.h.a = (bit<8>)sm.egress_spec; hdr.h.c = (bit<16>)sm.ingress_port; sm.egress_spec = 1; }\n")),
    case("recirculate", CAT_CL, fl("        if (sm.instance_type == 4) { hdr.h.c = (bit<16>)sm.ingress_port; }\n",
                                   egress="        if (meta.keep == 0) { meta.keep = 0x31; hdr.h.a = 0x42; recirculate_preserving_field_list(1); }\n" + EG_REPORT)),
    case("recirculate_twice", CAT_CL, fl("        meta.m8 = meta.m8 + 1;\n",
                                         egress="        if (hdr.h.b < 2) { hdr.h.b = hdr.h.b + 1; recirculate_preserving_field_list(0); }\n",
                                         ).replace("@field_list(1) bit<8> keep;", "@field_list(1) bit<8> keep;"),
         frames=[(1, H(1, 0, 0, 0)), (2, H(2, 1, 0, 0)), (3, H(3, 5, 0, 0))]),
]
