"""checkmate-switch driven over real gRPC: every P4Runtime RPC, arbitration, error
codes, packet-in/out, digests, multicast and clone sessions with egress_rid.

Each test starts its own ``checkmate-switch`` process (UDP-tunnel ports, no root) and
loads ``programs/l3_cpu.p4`` through SetForwardingPipelineConfig."""
from __future__ import annotations

import grpc
import pytest
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

P = p4runtime_pb2
MAC_H1, MAC_SW, MAC_H2 = "08:00:00:00:00:01", "08:00:00:00:00:aa", "08:00:00:00:00:02"


def frame(dst_ip="10.0.2.2", src_mac=MAC_H1, payload=b"checkmate" * 10, proto=17):
    pkt = Ether(src=src_mac, dst=MAC_SW) / IP(src="10.0.1.1", dst=dst_ip, ttl=64, proto=proto)
    if proto == 17:
        pkt = pkt / UDP(sport=1234, dport=48879) / payload
    else:
        pkt = pkt / payload
    return bytes(pkt)


def lpm_entry(names, prefix, plen, action, params=(), priority=0):
    te = P.TableEntry(table_id=names.table_id("ipv4_lpm"), priority=priority)
    fm = te.match.add(field_id=names.field_id("ipv4_lpm", "hdr.ipv4.dstAddr"))
    fm.lpm.value, fm.lpm.prefix_len = prefix, plen
    te.action.action.action_id = names.action_id(action)
    for i, v in enumerate(params, 1):
        te.action.action.params.add(param_id=i, value=v)
    return te


def ip(a):
    return bytes(int(x) for x in a.split("."))


def mac(m):
    return bytes.fromhex(m.replace(":", ""))


@pytest.fixture
def sw(start_switch, hosts, connect, l3_config):
    """A switch with l3_cpu loaded and a primary controller (election id 10)."""
    sp = start_switch(hosts)
    ctl = connect(sp.grpc_addr)
    arb = ctl.arbitrate(10)
    assert arb.status.code == 0
    ctl.set_pipeline(l3_config)
    return sp, ctl


def code(exc):
    return exc.value.code() if hasattr(exc, "value") else exc.code()


# ------------------------------------------------------------------ pipeline config
def test_capabilities_and_no_pipeline(start_switch, connect, names):
    sp = start_switch()
    ctl = connect(sp.grpc_addr)
    assert ctl.stub.Capabilities(P.CapabilitiesRequest()).p4runtime_api_version.startswith("1.")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.read(P.Entity(table_entry=P.TableEntry()))
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION and "SetForwardingPipelineConfig" in ei.value.details()
    with pytest.raises(grpc.RpcError) as ei:
        ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest(device_id=0))
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=P.TableEntry(table_id=1))))
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as ei:
        next(ctl.stub.Read(P.ReadRequest(device_id=5, entities=[P.Entity(table_entry=P.TableEntry())])))
    # another device id: a device without pipeline, as on simple_switch_grpc
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION and "device id 5" in ei.value.details()


def test_set_and_get_pipeline_config_actions(start_switch, connect, l3_config):
    sp = start_switch()
    ctl = connect(sp.grpc_addr)
    ctl.arbitrate(1)
    bad = P.ForwardingPipelineConfig(p4_device_config=b"{not json")
    bad.p4info.CopyFrom(l3_config.p4info)
    with pytest.raises(grpc.RpcError) as ei:
        ctl.set_pipeline(bad, "VERIFY")
    assert code(ei) == grpc.StatusCode.INVALID_ARGUMENT and "p4_device_config" in ei.value.details()
    bmv2 = P.ForwardingPipelineConfig(p4_device_config=b'{"__meta__": {"version": [2, 23]}, "pipelines": []}')
    bmv2.p4info.CopyFrom(l3_config.p4info)
    with pytest.raises(grpc.RpcError) as ei:
        ctl.set_pipeline(bmv2, "VERIFY_AND_COMMIT")
    assert code(ei) == grpc.StatusCode.INVALID_ARGUMENT and "BMv2 JSON" in ei.value.details()
    ctl.set_pipeline(l3_config, "VERIFY")  # verify only: still nothing committed
    with pytest.raises(grpc.RpcError) as ei:
        ctl.stub.GetForwardingPipelineConfig(P.GetForwardingPipelineConfigRequest())
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as ei:
        ctl.set_pipeline(None, "COMMIT")
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION and "VERIFY_AND_SAVE" in ei.value.details()
    ctl.set_pipeline(l3_config, "VERIFY_AND_SAVE")
    ctl.set_pipeline(None, "COMMIT")
    G = P.GetForwardingPipelineConfigRequest
    allc = ctl.stub.GetForwardingPipelineConfig(G(response_type=G.ALL)).config
    assert allc.p4info == l3_config.p4info and allc.p4_device_config == l3_config.p4_device_config
    assert allc.cookie.cookie == 0xC0FFEE
    cookie = ctl.stub.GetForwardingPipelineConfig(G(response_type=G.COOKIE_ONLY)).config
    assert cookie.cookie.cookie == 0xC0FFEE and not cookie.p4_device_config and not cookie.HasField("p4info")
    p4i = ctl.stub.GetForwardingPipelineConfig(G(response_type=G.P4INFO_AND_COOKIE)).config
    assert p4i.HasField("p4info") and not p4i.p4_device_config
    dev = ctl.stub.GetForwardingPipelineConfig(G(response_type=G.DEVICE_CONFIG_AND_COOKIE)).config
    assert dev.p4_device_config and not dev.HasField("p4info")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.set_pipeline(l3_config, "UNSPECIFIED")
    assert code(ei) == grpc.StatusCode.INVALID_ARGUMENT


def test_reconcile_keeps_entries_commit_clears(sw, names, l3_config):
    sp, ctl = sw
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.2.0"), 24, "ipv4_forward", [mac(MAC_H2), b"\x02"]))))
    tid = names.table_id("ipv4_lpm")
    ctl.set_pipeline(l3_config, "RECONCILE_AND_COMMIT")
    assert len(ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid)))) == 1
    ctl.set_pipeline(l3_config, "VERIFY_AND_COMMIT")
    assert ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid))) == []


# ------------------------------------------------------------------ arbitration
def test_arbitration_backup_reads_but_cannot_write(sw, connect, names):
    sp, primary = sw
    backup = connect(sp.grpc_addr)
    arb = backup.arbitrate(5)
    assert arb.status.code == 6  # ALREADY_EXISTS: a backup
    assert (arb.election_id.high, arb.election_id.low) == (0, 10)
    te = lpm_entry(names, ip("10.0.9.0"), 24, "drop")
    with pytest.raises(grpc.RpcError) as ei:
        backup.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)))
    assert code(ei) == grpc.StatusCode.PERMISSION_DENIED and "primary" in ei.value.details()
    with pytest.raises(grpc.RpcError) as ei:  # no election id while a primary exists
        backup.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)), election_id=0)
    assert code(ei) == grpc.StatusCode.PERMISSION_DENIED
    primary.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)))
    assert len(backup.read(P.Entity(table_entry=P.TableEntry(table_id=te.table_id)))) == 1
    # a third client with a higher id takes over; both others are told
    third = connect(sp.grpc_addr)
    assert third.arbitrate(11).status.code == 0
    assert primary.expect("arbitration").status.code == 6
    assert backup.expect("arbitration").status.code == 6
    with pytest.raises(grpc.RpcError) as ei:
        primary.write(P.Update(type=P.Update.DELETE, entity=P.Entity(table_entry=te)))
    assert code(ei) == grpc.StatusCode.PERMISSION_DENIED
    # the primary leaves: the next highest (10) becomes primary again, everyone hears it
    third.close()
    assert primary.expect("arbitration").status.code == 0
    assert backup.expect("arbitration").status.code == 6
    primary.write(P.Update(type=P.Update.DELETE, entity=P.Entity(table_entry=te)))
    # a duplicate election id ends the newcomer's stream with INVALID_ARGUMENT
    dup = connect(sp.grpc_addr)
    dup.open_stream()
    dup.send(arbitration=P.MasterArbitrationUpdate(device_id=0, election_id=P.Uint128(low=5)))
    err = dup.expect("rpc_error")
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    # another device id: the primary of that (absent) device, as on BMv2 -- this switch's clients
    # hear nothing, and its Writes to device 3 find no pipeline there
    other = connect(sp.grpc_addr)
    other.open_stream()
    other.send(arbitration=P.MasterArbitrationUpdate(device_id=3, election_id=P.Uint128(low=99)))
    answer = other.expect("arbitration")
    assert (answer.status.code, answer.device_id) == (0, 3)
    assert primary.no_message("arbitration")
    with pytest.raises(grpc.RpcError) as ei:
        other.stub.Write(P.WriteRequest(device_id=3, election_id=P.Uint128(low=99)), timeout=10)
    assert code(ei) == grpc.StatusCode.FAILED_PRECONDITION


# ------------------------------------------------------------------ tables and errors
def test_table_insert_read_modify_delete_and_errors(sw, names, decode_write_errors):
    sp, ctl = sw
    tid = names.table_id("ipv4_lpm")
    e1 = lpm_entry(names, ip("10.0.2.0"), 24, "ipv4_forward", [mac(MAC_H2), b"\x02"])
    e2 = lpm_entry(names, ip("10.0.0.0"), 8, "drop")
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=e1)),
              P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=e2)))
    got = [e.table_entry for e in ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid)))]
    assert got == [e1, e2]  # canonical bytes in, canonical bytes out
    all_tables = ctl.read(P.Entity(table_entry=P.TableEntry()))  # table_id 0: every table
    assert len(all_tables) == 4  # + the two const entries of table ethertypes
    keyed = P.TableEntry(table_id=tid)
    keyed.match.add().CopyFrom(e2.match[0])
    assert [e.table_entry for e in ctl.read(P.Entity(table_entry=keyed))] == [e2]

    # a batch with one good and three bad updates: UNKNOWN + one p4.v1.Error each, in order
    dup = P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=e1))
    wide = lpm_entry(names, ip("10.0.3.0"), 24, "ipv4_forward", [mac(MAC_H2), b"\x02\x00"])  # port 512 > bit<9>
    missing = lpm_entry(names, ip("10.9.9.0"), 24, "drop")
    good = lpm_entry(names, ip("10.0.4.0"), 24, "drop")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(dup, P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=wide)),
                  P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=good)),
                  P.Update(type=P.Update.DELETE, entity=P.Entity(table_entry=missing)))
    assert code(ei) == grpc.StatusCode.UNKNOWN
    errs = decode_write_errors(ei.value)
    assert [c for c, _ in errs] == ["ALREADY_EXISTS", "INVALID_ARGUMENT", "OK", "NOT_FOUND"]
    assert "ipv4_forward" in errs[1][1] and "'port'" in errs[1][1] and "0x0200" in errs[1][1]
    assert "ipv4_lpm" in errs[0][1]
    assert len(ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid)))) == 3  # the good one went in

    # modify, then read back
    e1m = lpm_entry(names, ip("10.0.2.0"), 24, "ipv4_forward", [mac(MAC_H2), b"\x03"])
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(table_entry=e1m)))
    assert ctl.read(P.Entity(table_entry=keyed_of(e1m)))[0].table_entry == e1m

    def one_error(te, kind="INSERT"):
        with pytest.raises(grpc.RpcError) as ei:
            ctl.write(P.Update(type=P.Update.Type.Value(kind), entity=P.Entity(table_entry=te)))
        return decode_write_errors(ei.value)[0]

    unknown = P.TableEntry(table_id=0x7777)
    assert one_error(unknown)[0] == "INVALID_ARGUMENT"   # PI: "Invalid P4 id"
    c, msg = one_error(lpm_entry(names, ip("10.0.5.1"), 24, "drop"))
    assert c == "INVALID_ARGUMENT" and "beyond" in msg
    c, msg = one_error(lpm_entry(names, ip("0.0.0.0"), 0, "drop"))
    assert c == "INVALID_ARGUMENT" and "omitted" in msg
    idle = lpm_entry(names, ip("10.0.6.0"), 24, "drop")
    idle.idle_timeout_ns = 10**9
    c, msg = one_error(idle)
    assert c in ("INVALID_ARGUMENT", "UNIMPLEMENTED") and "idle" in msg
    wrong_action = lpm_entry(names, ip("10.0.7.0"), 24, "set_dscp", [b"\x01"])
    c, msg = one_error(wrong_action)
    assert c == "INVALID_ARGUMENT" and "set_dscp" in msg
    # ternary/range table: priority required
    acl = P.TableEntry(table_id=names.table_id("acl"))
    fm = acl.match.add(field_id=names.field_id("acl", "hdr.ipv4.srcAddr"))
    fm.ternary.value, fm.ternary.mask = ip("10.0.1.0"), ip("255.255.255.0")
    acl.action.action.action_id = names.action_id("set_dscp")
    acl.action.action.params.add(param_id=1, value=b"\x2e")
    c, msg = one_error(acl)
    assert c == "INVALID_ARGUMENT" and "priority" in msg
    acl.priority = 10
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=acl)))
    got = ctl.read(P.Entity(table_entry=P.TableEntry(table_id=acl.table_id)))
    assert [e.table_entry for e in got] == [acl]
    bad_mask = P.TableEntry(); bad_mask.CopyFrom(acl)
    bad_mask.match[0].ternary.value = ip("10.0.1.1")
    c, msg = one_error(bad_mask)
    assert c == "INVALID_ARGUMENT" and "mask" in msg


def keyed_of(te):
    k = P.TableEntry(table_id=te.table_id, priority=te.priority)
    k.match.extend(te.match)
    return k


def test_default_entry_modify_and_read(sw, names, decode_write_errors):
    sp, ctl = sw
    tid = names.table_id("ipv4_lpm")
    d = ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid, is_default_action=True)))
    assert d[0].table_entry.is_default_action and d[0].table_entry.action.action.action_id == names.action_id("drop")
    new = P.TableEntry(table_id=tid, is_default_action=True)
    new.action.action.action_id = names.action_id("to_cpu")
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(table_entry=new)))
    d = ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid, is_default_action=True)))
    assert d[0].table_entry.action.action.action_id == names.action_id("to_cpu")
    # no action: back to the program's default
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(table_entry=P.TableEntry(table_id=tid, is_default_action=True))))
    d = ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid, is_default_action=True)))
    assert d[0].table_entry.action.action.action_id == names.action_id("drop")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=new)))
    assert decode_write_errors(ei.value)[0][0] == "INVALID_ARGUMENT"


# ------------------------------------------------------------------ packets
def test_forwarding_and_counters(sw, hosts, names):
    sp, ctl = sw
    tid = names.table_id("ipv4_lpm")
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.2.0"), 24, "ipv4_forward", [mac(MAC_H2), b"\x02"]))))
    sent = frame()
    for _ in range(3):
        hosts[1].send(sent)
    outs = [hosts[2].recv() for _ in range(3)]
    assert all(o is not None for o in outs)
    p = Ether(outs[0])
    assert p.dst == MAC_H2 and p.src == MAC_SW and p[IP].ttl == 63
    assert bytes(p[UDP].payload) == bytes(Ether(sent)[UDP].payload)
    chk = p[IP].chksum
    del p[IP].chksum
    assert Ether(bytes(p))[IP].chksum == chk  # checksum recomputed by the program
    # direct counter via table read with counter_data, and via DirectCounterEntry
    rd = P.TableEntry(table_id=tid)
    rd.counter_data.SetInParent()
    ents = ctl.read(P.Entity(table_entry=rd))
    assert ents[0].table_entry.counter_data.packet_count == 3
    assert ents[0].table_entry.counter_data.byte_count == 3 * len(sent)
    dce = ctl.read(P.Entity(direct_counter_entry=P.DirectCounterEntry(table_entry=P.TableEntry(table_id=tid))))
    assert dce[0].direct_counter_entry.data.packet_count == 3
    # indexed counter: one cell, and all cells
    cid = names.counter_id("port_counter")
    one = P.CounterEntry(counter_id=cid)
    one.index.index = 1
    cell = ctl.read(P.Entity(counter_entry=one))
    assert cell[0].counter_entry.data.packet_count == 3
    every = ctl.read(P.Entity(counter_entry=P.CounterEntry(counter_id=cid)))
    assert len(every) == 512 and sum(e.counter_entry.data.packet_count for e in every) == 3
    assert len(ctl.read(P.Entity(counter_entry=P.CounterEntry()))) == 512  # counter_id 0: all counters
    # write (reset) the cell and the direct counter
    reset = P.CounterEntry(counter_id=cid)
    reset.index.index = 1
    reset.data.packet_count = 0
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(counter_entry=reset)))
    assert ctl.read(P.Entity(counter_entry=one))[0].counter_entry.data.packet_count == 0
    d = P.DirectCounterEntry()
    d.table_entry.CopyFrom(keyed_of(ents[0].table_entry))
    d.data.packet_count = 100
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(direct_counter_entry=d)))
    dce = ctl.read(P.Entity(direct_counter_entry=P.DirectCounterEntry(table_entry=P.TableEntry(table_id=tid))))
    assert dce[0].direct_counter_entry.data.packet_count == 100


def test_packet_in_and_packet_out(sw, hosts, names):
    sp, ctl = sw
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.2.0"), 24, "to_cpu"))))
    sent = frame()
    hosts[1].send(sent)
    pin = ctl.expect("packet")
    assert pin.payload == sent
    md = {m.metadata_id: m.value for m in pin.metadata}
    assert md[names.cpm("packet_in", "ingress_port")] == b"\x01"
    # packet out to port 3: arrives unchanged, without the controller header
    out = P.PacketOut(payload=sent)
    out.metadata.add(metadata_id=names.cpm("packet_out", "egress_port"), value=b"\x03")
    ctl.send(packet=out)
    assert hosts[3].recv() == sent
    # a bad metadata id: dropped without a StreamError, as simple_switch_grpc (PI's stream error
    # reporting is off by default; tests/differential/test_packet_io.py)
    bad = P.PacketOut(payload=sent)
    bad.metadata.add(metadata_id=77, value=b"\x03")
    ctl.send(packet=bad)
    assert ctl.no_message("error")
    assert hosts[3].recv(0.3) is None


def test_packet_in_only_to_primary_and_backup_cannot_packet_out(sw, hosts, names, connect):
    sp, ctl = sw
    backup = connect(sp.grpc_addr)
    backup.arbitrate(3)
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.2.0"), 24, "to_cpu"))))
    hosts[1].send(frame())
    assert ctl.expect("packet").payload
    assert backup.no_message("packet")
    out = P.PacketOut(payload=frame())
    out.metadata.add(metadata_id=names.cpm("packet_out", "egress_port"), value=b"\x03")
    backup.send(packet=out)
    assert backup.no_message("error")   # (dropped, no answer: PI)
    assert hosts[3].recv(0.3) is None


def test_digest_lists_and_acks(sw, hosts, names, decode_write_errors):
    sp, ctl = sw
    did = names.digest_id("learn_t")
    de = P.DigestEntry(digest_id=did)
    de.config.max_list_size, de.config.max_timeout_ns, de.config.ack_timeout_ns = 1, 0, 5 * 10**9
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(digest_entry=de)))
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(digest_entry=de)))
    assert decode_write_errors(ei.value)[0][0] == "ALREADY_EXISTS"
    assert ctl.read(P.Entity(digest_entry=P.DigestEntry()))[0].digest_entry == de
    hosts[1].send(frame(src_mac="08:00:00:00:00:42"))
    dl = ctl.expect("digest")
    assert dl.digest_id == did and len(dl.data) == 1
    members = [m.bitstring for m in dl.data[0].struct.members]
    assert members == [mac("08:00:00:00:00:42").lstrip(b"\x00"), b"\x01"]
    hosts[1].send(frame(src_mac="08:00:00:00:00:42"))  # same data, not acked: filtered
    assert ctl.no_message("digest")
    ctl.send(digest_ack=P.DigestListAck(digest_id=did, list_id=dl.list_id))
    import time
    time.sleep(0.1)
    hosts[1].send(frame(src_mac="08:00:00:00:00:42"))  # acked: reported again
    assert ctl.expect("digest").data[0] == dl.data[0]
    ctl.write(P.Update(type=P.Update.DELETE, entity=P.Entity(digest_entry=P.DigestEntry(digest_id=did))))
    hosts[1].send(frame(src_mac="08:00:00:00:00:43"))
    assert ctl.no_message("digest")


def test_multicast_and_clone_sessions_with_egress_rid(sw, hosts, names, decode_write_errors):
    sp, ctl = sw
    grp = P.MulticastGroupEntry(multicast_group_id=7)
    grp.replicas.add(egress_port=2, instance=5)
    grp.replicas.add(egress_port=3, instance=6)
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        packet_replication_engine_entry=P.PacketReplicationEngineEntry(multicast_group_entry=grp))))
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
            packet_replication_engine_entry=P.PacketReplicationEngineEntry(multicast_group_entry=grp))))
    assert decode_write_errors(ei.value)[0] == ("ALREADY_EXISTS", "multicast group 7 already exists")
    cs = P.CloneSessionEntry(session_id=100)
    cs.replicas.add(egress_port=3, instance=9)
    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        packet_replication_engine_entry=P.PacketReplicationEngineEntry(clone_session_entry=cs))))
    pre = ctl.read(P.Entity(packet_replication_engine_entry=P.PacketReplicationEngineEntry(
        multicast_group_entry=P.MulticastGroupEntry())))
    # read back in BMv2's order: one node per instance, the last-written instance first
    back = P.MulticastGroupEntry(multicast_group_id=7)
    back.replicas.add(egress_port=3, instance=6)
    back.replicas.add(egress_port=2, instance=5)
    assert [e.packet_replication_engine_entry.multicast_group_entry for e in pre] == [back]
    pre = ctl.read(P.Entity(packet_replication_engine_entry=P.PacketReplicationEngineEntry(
        clone_session_entry=P.CloneSessionEntry(session_id=100))))
    assert pre[0].packet_replication_engine_entry.clone_session_entry == cs

    ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.7.0"), 24, "flood", [b"\x07"]))),
        P.Update(type=P.Update.INSERT, entity=P.Entity(
        table_entry=lpm_entry(names, ip("10.0.8.0"), 24, "mirror_and_forward", [b"\x02", b"\x64"]))))
    hosts[1].send(frame(dst_ip="10.0.7.1"))
    r2, r3 = Ether(hosts[2].recv()), Ether(hosts[3].recv())
    assert r2.src == "00:00:00:00:00:05" and r3.src == "00:00:00:00:00:06"  # egress_rid per replica
    hosts[1].send(frame(dst_ip="10.0.8.1"))
    orig, clone = Ether(hosts[2].recv()), Ether(hosts[3].recv())
    assert orig.src == MAC_H1 and orig.dst == MAC_SW  # original: egress_rid 0, untouched
    assert clone.src == "00:00:00:00:00:09"
    # modify the group, then delete it; missing ones are NOT_FOUND
    grp2 = P.MulticastGroupEntry(multicast_group_id=7)
    grp2.replicas.add(egress_port=3, instance=1)
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(
        packet_replication_engine_entry=P.PacketReplicationEngineEntry(multicast_group_entry=grp2))))
    hosts[1].send(frame(dst_ip="10.0.7.1"))
    assert Ether(hosts[3].recv()).src == "00:00:00:00:00:01" and hosts[2].recv(0.3) is None
    ctl.write(P.Update(type=P.Update.DELETE, entity=P.Entity(
        packet_replication_engine_entry=P.PacketReplicationEngineEntry(multicast_group_entry=grp2))))
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.DELETE, entity=P.Entity(
            packet_replication_engine_entry=P.PacketReplicationEngineEntry(multicast_group_entry=grp2))))
    assert decode_write_errors(ei.value)[0][0] == "NOT_FOUND"


def test_meter_and_register_entries(sw, names, decode_write_errors):
    sp, ctl = sw
    mid = next(m.preamble.id for m in ctl.stub.GetForwardingPipelineConfig(
        P.GetForwardingPipelineConfigRequest()).config.p4info.meters)
    me = P.MeterEntry(meter_id=mid)
    me.index.index = 3
    me.config.cir, me.config.cburst, me.config.pir, me.config.pburst = 1000, 1500, 2000, 3000
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(meter_entry=me)))
    q = P.MeterEntry(meter_id=mid)
    q.index.index = 3
    got = ctl.read(P.Entity(meter_entry=q))[0].meter_entry
    assert (got.config.cir, got.config.cburst, got.config.pir, got.config.pburst) == (1000, 1500, 2000, 3000)
    assert len(ctl.read(P.Entity(meter_entry=P.MeterEntry(meter_id=mid)))) == 16
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(meter_entry=me)))
    assert decode_write_errors(ei.value)[0][0] == "INVALID_ARGUMENT"
    rid = next(r.preamble.id for r in ctl.stub.GetForwardingPipelineConfig(
        P.GetForwardingPipelineConfigRequest()).config.p4info.registers)
    re_ = P.RegisterEntry(register_id=rid)
    re_.index.index = 1
    re_.data.bitstring = b"\x12\x34"
    ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(register_entry=re_)))
    q = P.RegisterEntry(register_id=rid)
    q.index.index = 1
    assert ctl.read(P.Entity(register_entry=q))[0].register_entry.data.bitstring == b"\x12\x34"
    re_.data.bitstring = b"\x01\x00\x00\x00\x00"  # 33 bits into bit<32>
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.MODIFY, entity=P.Entity(register_entry=re_)))
    c, msg = decode_write_errors(ei.value)[0]
    assert c == "INVALID_ARGUMENT" and "scratch_reg" in msg and "32 bits" in msg


def test_const_table_entries_read_and_write_refused(sw, names, decode_write_errors):
    sp, ctl = sw
    tid = names.table_id("ethertypes")
    got = [e.table_entry for e in ctl.read(P.Entity(table_entry=P.TableEntry(table_id=tid)))]
    assert sorted(e.match[0].exact.value for e in got) == [b"\x08\x00", b"\x86\xdd"]
    assert all(e.is_const for e in got)
    te = P.TableEntry(table_id=tid)
    te.match.add(field_id=names.field_id("ethertypes", "hdr.ethernet.etherType")).exact.value = b"\x08\x06"
    te.action.action.action_id = names.action_id("NoAction")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)))
    c, msg = decode_write_errors(ei.value)[0]
    assert c == "PERMISSION_DENIED" and "ethertypes" in msg and "const" in msg
