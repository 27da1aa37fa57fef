"""Malformed P4Runtime writes to a running checkmate-switch that runs p4src/checkmate.p4, programmed by
the controller: unknown ids, wrong byte widths, duplicate inserts, deletes of missing entries, bad
priorities, bad multicast groups and clone sessions, bad counter/register indices.  Each is refused
with the right code (top-level UNKNOWN + one p4.v1.Error per update, as PI/BMv2) and a message naming
the culprit; the switch's tables and PRE are unchanged afterwards and it still forwards.  Also: only
the primary controller can write (a backup gets PERMISSION_DENIED)."""
from __future__ import annotations

import grpc
import pytest

from .conftest import P, P4RT, pipeline_config, valid_chunk, write_errors

T_ROUTE, T_SHARD, T_TRAINER, T_ARP = (44101641, 35493532, 39503455, 47276302)
A_FORWARD, A_SET_SHARD, A_MARK, A_DROP_NR = 29197385, 32713403, 21603226, 23086960
C_MALFORMED, R_HB = 302774968, 381388701


def ip(a):
    return bytes(int(x) for x in a.split("."))


def route(dst, plen=32, params=(b"\x02", b"\x02\xcc\x00\x00\x00\x02", b"\x08\x00\x00\x00\x00\x02"),
          action=A_FORWARD, table=T_ROUTE, field_id=1, priority=0, param_ids=None):
    te = P.TableEntry(table_id=table, priority=priority)
    fm = te.match.add(field_id=field_id)
    fm.lpm.value, fm.lpm.prefix_len = dst, plen
    te.action.action.action_id = action
    for i, v in enumerate(params):
        te.action.action.params.add(param_id=(param_ids[i] if param_ids else i + 1), value=v)
    return te


def shard(lo, hi, job=b"\x01", priority=1, rid=b"\x01"):
    te = P.TableEntry(table_id=T_SHARD, priority=priority)
    e = te.match.add(field_id=1)
    e.exact.value = job
    r = te.match.add(field_id=2)
    r.range.low, r.range.high = lo, hi
    te.action.action.action_id = A_SET_SHARD
    te.action.action.params.add(param_id=1, value=rid)
    return te


def trainer(port=b"\x07", priority=0):
    te = P.TableEntry(table_id=T_TRAINER, priority=priority)
    te.match.add(field_id=1).exact.value = port
    te.action.action.action_id = A_MARK
    return te


def U(kind, **entity):
    return P.Update(type=P.Update.Type.Value(kind), entity=P.Entity(**entity))


def mcast(gid, replicas):
    e = P.PacketReplicationEngineEntry()
    e.multicast_group_entry.multicast_group_id = gid
    for port, rid in replicas:
        e.multicast_group_entry.replicas.add(egress_port=port, instance=rid)
    return e


def clone(sid, replicas, cos=0, plen=0):
    e = P.PacketReplicationEngineEntry()
    e.clone_session_entry.session_id = sid
    e.clone_session_entry.class_of_service = cos
    e.clone_session_entry.packet_length_bytes = plen
    for port, rid in replicas:
        e.clone_session_entry.replicas.add(egress_port=port, instance=rid)
    return e


def snapshot(ctl: P4RT):
    tables = sorted(e.SerializeToString(deterministic=True) for e in ctl.read(P.Entity(table_entry=P.TableEntry())))
    pre = sorted(e.SerializeToString(deterministic=True) for e in ctl.read(
        P.Entity(packet_replication_engine_entry=P.PacketReplicationEngineEntry(
            multicast_group_entry=P.MulticastGroupEntry()))))
    clones = sorted(e.SerializeToString(deterministic=True) for e in ctl.read(
        P.Entity(packet_replication_engine_entry=P.PacketReplicationEngineEntry(
            clone_session_entry=P.CloneSessionEntry()))))
    return tables, pre, clones


def cases():
    """(id, update, expected p4.v1.Error code, substrings of which one must appear in the message)."""
    no_table = P.TableEntry(table_id=0x02FFFFFF)
    no_table.match.add(field_id=1).exact.value = b"\x01"
    bad_cnt = P.CounterEntry(counter_id=C_MALFORMED)
    bad_cnt.index.index = 2
    bad_cnt.data.packet_count = 1
    no_cnt = P.CounterEntry(counter_id=0x12FFFFFF)
    no_cnt.index.index = 0
    reg = P.RegisterEntry(register_id=R_HB)
    reg.index.index = 1024
    reg.data.bitstring = b"\x00\x00\x00\x01"
    missing_param = route(ip("10.1.0.1"), params=(b"\x02", b"\x02\xcc\x00\x00\x00\x02"))
    extra_param = route(ip("10.1.0.2"), params=(b"\x02", b"\x02\xcc\x00\x00\x00\x02", b"\x08" + bytes(5), b"\x01"))
    dup_param = route(ip("10.1.0.3"), param_ids=[1, 1, 3])
    no_match = P.TableEntry(table_id=T_TRAINER)
    no_match.action.action.action_id = A_MARK
    return [
        ("unknown table id", U("INSERT", table_entry=no_table), "INVALID_ARGUMENT",   # PI: Invalid P4 id
         ["0x2ffffff", "33554431", "table"]),
        ("unknown action id", U("INSERT", table_entry=route(ip("10.1.0.4"), action=0x01ABCDEF)),
         "INVALID_ARGUMENT", ["0x1abcdef", "28036591", "action"]),
        ("action not in table", U("INSERT", table_entry=route(ip("10.1.0.5"), action=A_SET_SHARD, params=(b"\x01",))),
         "INVALID_ARGUMENT", ["set_shard"]),
        ("unknown match field id", U("INSERT", table_entry=route(ip("10.1.0.6"), field_id=9)),
         "INVALID_ARGUMENT", ["field id 9", "field 9", "match field"]),
        ("unknown param id", U("INSERT", table_entry=route(ip("10.1.0.7"), param_ids=[1, 2, 9])),
         "INVALID_ARGUMENT", ["param"]),
        ("missing param", U("INSERT", table_entry=missing_param), "INVALID_ARGUMENT", ["dmac", "param"]),
        ("extra param", U("INSERT", table_entry=extra_param), "INVALID_ARGUMENT", ["param"]),
        ("duplicate param", U("INSERT", table_entry=dup_param), "INVALID_ARGUMENT", ["param"]),
        ("ip 5 bytes", U("INSERT", table_entry=route(b"\x01" + ip("10.1.0.8"))),
         "INVALID_ARGUMENT", ["hdr.ipv4.dstAddr"]),
        ("port 0x0200 > bit<9>", U("INSERT", table_entry=route(ip("10.1.0.9"), params=(
            b"\x02\x00", b"\x02\xcc\x00\x00\x00\x02", b"\x08\x00\x00\x00\x00\x02"))), "INVALID_ARGUMENT", ["port"]),
        ("mac 7 bytes", U("INSERT", table_entry=route(ip("10.1.0.10"), params=(
            b"\x02", b"\x01\x02\xcc\x00\x00\x00\x02", b"\x08\x00\x00\x00\x00\x02"))), "INVALID_ARGUMENT", ["smac"]),
        ("lpm prefix 33", U("INSERT", table_entry=route(ip("10.1.0.11"), plen=33)), "INVALID_ARGUMENT", ["prefix", "33"]),
        ("lpm bits beyond prefix", U("INSERT", table_entry=route(ip("10.1.0.12"), plen=24)),
         "INVALID_ARGUMENT", ["beyond"]),
        ("missing exact match", U("INSERT", table_entry=no_match), "INVALID_ARGUMENT", ["ingress_port", "missing"]),
        ("duplicate insert", U("INSERT", table_entry=trainer(b"\x01")), "ALREADY_EXISTS", ["trainer_port"]),
        ("delete missing", U("DELETE", table_entry=trainer(b"\x09")), "NOT_FOUND", ["trainer_port"]),
        ("modify missing", U("MODIFY", table_entry=trainer(b"\x0a")), "NOT_FOUND", ["trainer_port"]),
        ("range table priority 0", U("INSERT", table_entry=shard(b"\x00\x01\x00\x00", b"\x00\x02\x00\x00", priority=0)),
         "INVALID_ARGUMENT", ["priority"]),
        ("exact table priority 5", U("INSERT", table_entry=trainer(b"\x08", priority=5)),
         "INVALID_ARGUMENT", ["priority"]),
        ("lpm table priority 5", U("INSERT", table_entry=route(ip("10.1.0.13"), priority=5)),
         "INVALID_ARGUMENT", ["priority"]),
        ("range low > high", U("INSERT", table_entry=shard(b"\x00\x09\x00\x00", b"\x00\x01\x00\x00", job=b"\x02")),
         "INVALID_ARGUMENT", ["param_id", "range"]),
        ("job 5 bytes", U("INSERT", table_entry=shard(b"\x00", b"\x10", job=b"\x01\x00\x00\x00\x01")),
         "INVALID_ARGUMENT", ["job_id"]),
        ("unspecified update type", P.Update(type=P.Update.UNSPECIFIED, entity=P.Entity(table_entry=trainer(b"\x0b"))),
         "INVALID_ARGUMENT", ["type", "UNSPECIFIED"]),
        ("empty entity", P.Update(type=P.Update.INSERT, entity=P.Entity()), "INVALID_ARGUMENT", ["entity"]),
        ("mcast group exists", U("INSERT", packet_replication_engine_entry=mcast(1 << 7 | 1, [(1, 0)])),
         "ALREADY_EXISTS", ["129", "group"]),
        ("mcast group 0", U("INSERT", packet_replication_engine_entry=mcast(0, [(1, 0)])),
         "INVALID_ARGUMENT", ["0", "group"]),
        ("mcast delete missing", U("DELETE", packet_replication_engine_entry=mcast(4000, [])), "NOT_FOUND", ["4000"]),
        ("mcast modify missing", U("MODIFY", packet_replication_engine_entry=mcast(4001, [(1, 0)])),
         "NOT_FOUND", ["4001"]),
        ("mcast port > 511", U("INSERT", packet_replication_engine_entry=mcast(4002, [(600, 0)])),
         "INVALID_ARGUMENT", ["600", "port"]),
        ("clone session 0", U("INSERT", packet_replication_engine_entry=clone(0, [(1, 0)])),
         "INVALID_ARGUMENT", ["session"]),
        ("clone delete missing", U("DELETE", packet_replication_engine_entry=clone(77, [])), "NOT_FOUND", ["77"]),
        ("clone negative length", U("INSERT", packet_replication_engine_entry=clone(78, [(1, 0)], plen=-5)),
         "UNKNOWN", ["packet_length"]),   # any length but 0: the target refuses it (simple_switch_grpc)
        ("clone port > 511", U("INSERT", packet_replication_engine_entry=clone(79, [(9999, 0)])),
         "INVALID_ARGUMENT", ["9999", "port"]),
        ("counter index out of range", U("MODIFY", counter_entry=bad_cnt), "OUT_OF_RANGE|INVALID_ARGUMENT",
         ["index", "2"]),
        ("unknown counter", U("MODIFY", counter_entry=no_cnt), "INVALID_ARGUMENT", ["counter"]),
        ("register index out of range", U("MODIFY", register_entry=reg), "OUT_OF_RANGE|INVALID_ARGUMENT",
         ["1024", "index"]),
        ("counter INSERT", U("INSERT", counter_entry=P.CounterEntry(counter_id=C_MALFORMED)),
         "INVALID_ARGUMENT|UNIMPLEMENTED", ["INSERT", "MODIFY"]),
    ]


@pytest.fixture
def primary(programmed_switch):
    ctl = P4RT(programmed_switch.grpc_addr)
    try:
        assert ctl.arbitrate(10).status.code == 0
        yield programmed_switch, ctl
    finally:
        ctl.close()


def test_malformed_writes_refused_state_unchanged(primary):
    sp, ctl = primary
    before = snapshot(ctl)
    assert len(before[0]) > 20 and before[1], "the controller's program must be installed"
    problems = []
    for name, upd, want, needles in cases():
        try:
            ctl.write(upd)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNKNOWN:
                problems.append(f"{name}: top-level {e.code().name} ({e.details()}), expected UNKNOWN + p4.v1.Error")
                continue
            (code, msg), = write_errors(e)
            if code not in want.split("|"):
                problems.append(f"{name}: {code} ({msg}), expected {want}")
            elif not any(n.lower() in msg.lower() for n in needles):
                problems.append(f"{name}: message does not name the culprit {needles}: {msg!r}")
        else:
            problems.append(f"{name}: ACCEPTED, expected {want}")
        if not sp.alive():
            problems.append(f"{name}: the switch died")
            break
    after = snapshot(ctl)
    assert sp.alive(), sp.log_path.read_text()[-2000:]
    assert not problems, "\n".join(problems)
    assert after == before, "refused writes changed the switch's tables / PRE"


def test_switch_forwards_after_malformed_writes(primary):
    sp, ctl = primary
    for _, upd, _, _ in cases():
        try:
            ctl.write(upd)
        except grpc.RpcError:
            pass
    f = valid_chunk(param_id=1, iteration=7)
    sp.send(1, f)
    assert sp.recv(2, 5) is not None and sp.recv(4, 5) is not None, "switch no longer forwards/copies"


def test_batch_mixed_good_and_bad(primary):
    """CONTINUE_ON_ERROR: the good update is applied, each bad one reported in order."""
    sp, ctl = primary
    good = trainer(b"\x0c")
    with pytest.raises(grpc.RpcError) as ei:
        ctl.write(U("INSERT", table_entry=trainer(b"\x01")), U("INSERT", table_entry=good),
                  U("DELETE", table_entry=trainer(b"\x0d")), U("INSERT", table_entry=trainer(b"\x0e", priority=3)))
    assert ei.value.code() == grpc.StatusCode.UNKNOWN
    assert [c for c, _ in write_errors(ei.value)] == ["ALREADY_EXISTS", "OK", "NOT_FOUND", "INVALID_ARGUMENT"]
    got = [e.table_entry for e in ctl.read(P.Entity(table_entry=P.TableEntry(table_id=T_TRAINER)))]
    assert good in got and len(got) == 4  # 3 trainer ports of the star + the good one


def test_only_primary_writes(primary):
    """Access: a backup controller (lower election id) and a client without election id are refused
    with PERMISSION_DENIED; the primary's state is untouched; a higher id takes over."""
    sp, ctl = primary
    before = snapshot(ctl)
    backup = P4RT(sp.grpc_addr)
    anon = P4RT(sp.grpc_addr)
    try:
        assert backup.arbitrate(5).status.code == 6  # ALREADY_EXISTS: backup
        for who, c, eid in (("backup", backup, None), ("no election id", anon, None),
                            ("backup claiming a higher id", backup, 11)):
            for upd in (U("INSERT", table_entry=trainer(b"\x10")), U("DELETE", table_entry=trainer(b"\x01")),
                        U("MODIFY", packet_replication_engine_entry=mcast(1 << 7 | 1, [(9, 0)]))):
                try:
                    c.write(upd, election_id=eid)
                except grpc.RpcError as e:
                    assert e.code() == grpc.StatusCode.PERMISSION_DENIED, f"{who}: {e.code().name}: {e.details()}"
                else:
                    raise AssertionError(f"{who}: write {upd.type} ACCEPTED from a non-primary client")
        with pytest.raises(grpc.RpcError) as ei:
            backup.set_pipeline(pipeline_config(__import__("switch.compiler", fromlist=["x"]).compile_file(
                __import__("checkmate.paths", fromlist=["P4SRC"]).P4SRC / "checkmate.p4").p4info, b"{}"))
        assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert snapshot(ctl) == before
    finally:
        backup.close()
        anon.close()


def _mutate_ir(ir, rng):
    """One random structural mutation of a JSON IR: delete a key / replace a value / shrink a list."""
    import copy
    ir = copy.deepcopy(ir)
    node, path = ir, []
    for _ in range(rng.randint(1, 7)):
        kids = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        kids = [(k, v) for k, v in kids if isinstance(v, (dict, list)) and v]
        if not kids:
            break
        k, v = rng.choice(kids)
        path.append(k)
        node = v
    keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
    k = rng.choice(keys)
    how = rng.choice(["delete", "none", "neg", "str", "list", "dict", "huge", "bool"])
    if how == "delete":
        del node[k]
    else:
        node[k] = {"none": None, "neg": -1, "str": "zz", "list": [], "dict": {}, "huge": 1 << 70, "bool": True}[how]
    return ir, f"{'/'.join(map(str, path + [k]))} {how}"


def test_malformed_pipeline_configs_refused(primary, compiled):
    """SetForwardingPipelineConfig with garbage device configs: INVALID_ARGUMENT naming the problem, the
    running program stays (VERIFY_AND_COMMIT refused) and the switch still forwards.  60 random structural
    mutations of the real IR through VERIFY: OK or INVALID_ARGUMENT, never UNKNOWN/INTERNAL, never a crash."""
    import json
    import random
    sp, ctl = primary
    before = snapshot(ctl)
    ir = compiled.device_config
    real = json.dumps(ir).encode()
    fixed = {
        "not JSON": b"\x00\x01garbage",
        "empty object": b"{}",
        "JSON list": b"[1,2]",
        "BMv2 JSON": json.dumps({"__meta__": {"version": [2, 23]}, "pipelines": []}).encode(),
        "truncated": real[: len(real) // 2],
        "wrong format tag": json.dumps({**ir, "format": "bmv2/9"}).encode(),
        "no tables": json.dumps({**ir, "tables": []}).encode(),
    }
    problems = []
    for what, cfg in fixed.items():
        try:
            ctl.set_pipeline(pipeline_config(compiled.p4info, cfg))
            problems.append(f"{what}: ACCEPTED")
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                problems.append(f"{what}: {e.code().name}: {e.details()[:150]}")
    rng = random.Random(31)
    req_v = P.SetForwardingPipelineConfigRequest.VERIFY
    for _ in range(60):
        mir, what = _mutate_ir(ir, rng)
        req = P.SetForwardingPipelineConfigRequest(device_id=0, action=req_v)
        req.election_id.low = ctl.election_id
        req.config.p4info.CopyFrom(compiled.p4info)
        req.config.p4_device_config = json.dumps(mir).encode()
        try:
            ctl.stub.SetForwardingPipelineConfig(req, timeout=30)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                problems.append(f"VERIFY of IR with {what}: {e.code().name}: {e.details()[:150]}")
        if not sp.alive():
            problems.append(f"VERIFY of IR with {what}: the switch DIED")
            break
    assert sp.alive()
    assert snapshot(ctl) == before, "a refused SetForwardingPipelineConfig changed the switch's state"
    f = valid_chunk(param_id=1, iteration=8)
    sp.send(1, f)
    assert sp.recv(2, 5) is not None and sp.recv(4, 5) is not None, "switch no longer forwards/copies"
    assert not problems, f"{len(problems)} bad configs not refused with INVALID_ARGUMENT:\n" + "\n".join(problems[:15])


def test_absurd_sizes_and_widths_refused_quickly(primary, compiled):
    """A device config declaring a 2**40-cell counter/register or a 2**40-bit field must be refused with
    INVALID_ARGUMENT at once -- not make the switch allocate until it hangs or is killed."""
    import copy
    import json
    import time as _time
    sp, ctl = primary
    ir = compiled.device_config
    cases = []
    for kind, key in (("counters", "size"), ("registers", "size"), ("registers", "width")):
        m = copy.deepcopy(ir)
        m[kind][0][key] = 1 << 40
        cases.append((f"{kind}[0].{key} = 2**40", m))
    m = copy.deepcopy(ir)
    m["headers"]["ipv4_t"]["fields"][0][1] = 1 << 40
    cases.append(("ipv4_t.version is 2**40 bits", m))
    for what, m in cases:
        req = P.SetForwardingPipelineConfigRequest(device_id=0, action=P.SetForwardingPipelineConfigRequest.VERIFY)
        req.election_id.low = ctl.election_id
        req.config.p4info.CopyFrom(compiled.p4info)
        req.config.p4_device_config = json.dumps(m).encode()
        t0 = _time.monotonic()
        with pytest.raises(grpc.RpcError) as ei:
            ctl.stub.SetForwardingPipelineConfig(req, timeout=15)
        assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT, f"{what}: {ei.value.code().name}"
        assert _time.monotonic() - t0 < 10, f"{what}: took {_time.monotonic() - t0:.1f}s"
        assert "2**40" in what and ("1099511627776" in ei.value.details() or "wide" in ei.value.details()), \
            ei.value.details()
    assert sp.alive()
