"""Which pooled PHV each copy of an I2E clone or a multicast group takes on BMv2 1.15.5, and the
order in which copies on one egress thread run (helper p4rt68, p4rt61's open item; real p4c
1.2.4.8 / BMv2, every case alike in 5 or more fresh BMv2 runs).

Frame 1 is resubmitted once and dropped: both of its passes run on the ingress thread, which
releases them in a fixed order, leaving two PHVs in the pool -- the first pass's (``st.x`` =
0x1101) under the resubmitted pass's (0x1102).  Frame 2 takes the top one; what its copies read of
the never-valid header ``st`` shows which PHV each one got.  Each copy's egress then writes 0 there:
a copy that BMv2's threads send and release before the next copy is made (the ingress thread
preempted between two copies, 1 run in 5 under load) hands that copy a PHV that reads 0, as a
fresh one does.

* I2E clone (PI's PreCloneMgr makes a P4Runtime clone session a multicast group): BMv2 parses the
  frame again into the session's copy, which takes the next PHV (0x1101), and every replica takes a
  fresh one (0): each reads 0, whatever the replicas, the field list, truncation or the original's
  fate.  checkmate-switch parsed each replica into a PHV of its own, so the first read 0x1101
  (``switch/runtime/engine.Engine._clone``).
* Multicast group: the replicas take their PHVs in BMv2's node order (one node per rid, the nodes
  last-written first, ports ascending): of ``[(2, 0), (3, 1)]`` port 3 reads 0x1101.  checkmate-
  switch took them as written (``switch/runtime/replication``).
* A register bumped in egress by copies to ports 2 and 6 (one egress thread, ``port % 4``): BMv2
  runs them in node order, port 6 first, for a clone session and a multicast group alike.
"""
from .base import PARSE_H2, H, case, parse_h_state, program

CASES = []

_HDRS = "header s_t { bit<32> x; }\n"
_FIELDS = "    s_t st;\n"
_META = "    @field_list(1) bit<32> keep;\n"


def _ingress(clone: str, fate: str, extra: str = "") -> str:
    return f"""
        if (sm.instance_type == 0) {{
            hdr.st.x = (bit<32>)hdr.h.a << 8 | 1;
            meta.keep = 0x10000 | (bit<32>)hdr.h.a;
            if (hdr.h.b == 1) {{ resubmit_preserving_field_list(0); }}
            else {{ {clone} }}
            {fate}{extra}
        }} else {{
            hdr.st.x = (bit<32>)hdr.h.a << 8 | 2;
            mark_to_drop(sm);
        }}"""


_EGRESS = """
        hdr.h.d = hdr.st.x;
        hdr.st.x = 0;
        hdr.h.c = meta.keep[15:0] ^ (bit<16>)sm.instance_type << 12 ^ (bit<16>)sm.egress_rid << 8;"""
_FRAMES = [(1, H(0x11, 1)), (1, H(0x22, 2))]

_I2E = "clone(CloneType.I2E, 5);"
_I2E_FL = "clone_preserving_field_list(CloneType.I2E, 5, 1);"
for name, clone, fate, extra, egress_extra, reps in (
        ("two_replicas_original_dropped", _I2E, "mark_to_drop(sm);", "", "", [(2, 0), (6, 1)]),
        ("two_replicas_original_forwarded", _I2E, "sm.egress_spec = 1;", "", "", [(2, 0), (3, 1)]),
        ("three_replicas_field_list_truncated", _I2E_FL, "mark_to_drop(sm);", "\n            truncate(20);",
         "\n        if (sm.egress_port == 3) { truncate(26); }", [(2, 0), (3, 1), (4, 2)]),
        ("one_replica_field_list_original_forwarded", _I2E_FL, "sm.egress_spec = 1;", "", "", [(2, 0)])):
    CASES.append(case(f"p4rt68_i2e_clone_session_copy_takes_a_pooled_phv_{name}", "replication",
                      program(_ingress(clone, fate, extra), egress=_EGRESS + egress_extra, headers=_HDRS,
                              fields=_FIELDS, meta=_META, forward=False),
                      frames=_FRAMES, clones={5: (reps, 0)}, one_by_one=True, json_path=True))

for name, reps in (("two_nodes", [(2, 0), (3, 1)]), ("two_nodes_ports_ascending", [(3, 0), (2, 0), (4, 1)])):
    CASES.append(case(f"p4rt68_multicast_replicas_take_pooled_phvs_in_node_order_{name}", "replication",
                      program(_ingress("sm.mcast_grp = 7;", ""), egress=_EGRESS, headers=_HDRS, fields=_FIELDS,
                              meta=_META, forward=False),
                      frames=_FRAMES, mcast={7: reps}, one_by_one=True, json_path=True))

# copies to ports 2 and 6 share BMv2's egress thread 2: they run in node order
_ORDER_INGRESS = """
        if (hdr.h.b == 2) { clone(CloneType.I2E, 5); mark_to_drop(sm); }
        else { sm.mcast_grp = 7; }"""
_ORDER_EGRESS = """
        bit<32> v;
        r.read(v, 0);
        hdr.h.d = v;
        r.write(0, v + 1 + (bit<32>)sm.egress_port * 16);"""
for name, b, reps in (("clone_session", 2, [(2, 0), (6, 1)]), ("clone_session_written_last_first", 2, [(6, 0), (2, 1)]),
                      ("multicast_group", 3, [(2, 0), (6, 1)])):
    CASES.append(case(f"p4rt68_copies_on_one_egress_thread_run_in_node_order_{name}", "replication",
                      program(_ORDER_INGRESS, egress=_ORDER_EGRESS, egress_decls="    register<bit<32>>(1) r;",
                              forward=False),
                      frames=[(1, H(0x11, b)), (1, H(0x22, b))], clones={5: (reps, 0)}, mcast={7: reps},
                      one_by_one=True, json_path=True))

# the session's copy is parsed with the received packet's ingress_port (simple_switch sets it before
# the parse; its metadata, ingress_port too, is reset after): a parser selecting on it parses the
# clone as the original -- checkmate-switch parsed it with port 0 (h not extracted, etype 0xbbbb)
_PORT_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(sm.ingress_port) {
            1: parse_h;
            default: accept;
        }
    }
""" + parse_h_state() + "\n" + PARSE_H2
CASES.append(case("p4rt68_i2e_clone_is_parsed_with_the_ingress_port", "replication",
                  program("        clone(CloneType.I2E, 5);\n",
                          egress="        if (hdr.h.isValid()) { hdr.h.a = 0xaa; } else { hdr.eth.etype = 0xbbbb; }\n"
                                 "        hdr.eth.src[15:0] = (bit<16>)sm.ingress_port;\n",
                          parser=_PORT_PARSER),
                  frames=[(1, H(0x11, 1)), (2, H(0x22, 2))], clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))

# (every 38-byte original parses h2 here: its h.b is h2.b)
# the rest of the session copy's standard_metadata is the pooled PHV's as its last pass left it (only
# ingress_port is set): (0, 0) in a fresh PHV (the first frame after the load); after a frame that
# was resubmitted and dropped the copy takes the first pass's PHV, (0, 38).  checkmate-switch's
# parse saw (1, 38): instance_type I2E and the frame's length (``Engine._session_parse``)
_SM_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(sm.instance_type, sm.packet_length) {
            (0, 0): parse_h;
            (0, 38): parse_h2;
            default: accept;
        }
    }
""" + parse_h_state() + "\n" + PARSE_H2
_SM_EGRESS = "        hdr.eth.src[7:0] = (hdr.h.isValid() ? 8w1 : 8w0) | (hdr.h2.isValid() ? 8w2 : 8w0);\n"
for name, frames in (("fresh_phv", [(1, H(0x11, 2))]), ("after_a_resubmit", [(1, H(0x11, 1)), (1, H(0x22, 2))])):
    CASES.append(case(f"p4rt68_i2e_clone_parse_reads_the_pooled_phvs_standard_metadata_{name}", "replication",
                      program("""        if (sm.instance_type == 0 && hdr.h2.b == 1) { resubmit_preserving_field_list(0); }
        else if (sm.instance_type == 0) { clone(CloneType.I2E, 5); }
""", egress=_SM_EGRESS, parser=_SM_PARSER),
                      frames=frames, clones={5: ([(3, 0)], 0)}, one_by_one=True, json_path=True))

# its user metadata too: simple_switch resets a *received* packet's metadata (receive_), not the
# session copy's before its parse -- after the resubmitted frame the copy's parser reads the first
# pass's meta.m8 (0x77); checkmate-switch's parse read 0
_META_PARSER = """    state start {
        pkt.extract(hdr.eth);
        transition select(meta.m8) {
            0x77: parse_h;
            default: parse_h2;
        }
    }
""" + parse_h_state() + "\n" + PARSE_H2
CASES.append(case("p4rt68_i2e_clone_parse_reads_the_pooled_phvs_metadata", "replication",
                  program("""        if (sm.instance_type == 0) {
            meta.m8 = 0x77;
            if (hdr.h2.b == 1) { resubmit_preserving_field_list(0); } else { clone(CloneType.I2E, 5); }
        }
""", egress=_SM_EGRESS, parser=_META_PARSER),
                  frames=[(1, H(0x11, 1)), (1, H(0x22, 2))], clones={5: ([(3, 0)], 0)}, one_by_one=True,
                  json_path=True))
