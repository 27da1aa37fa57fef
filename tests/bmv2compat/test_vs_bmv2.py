"""checkmate-switch against real BMv2 (simple_switch), frame for frame, over veth pairs.

Where the P4-16 spec and BMv2 differ, BMv2 wins (docs/CONFORMANCE.md):

* an 802.1Q / 802.1ad tagged frame keeps its tag on an AF_PACKET port (the kernel strips
  it and reports it in PACKET_AUXDATA; libpcap, hence BMv2, puts it back);
* a ``select`` with no matching case and no ``default`` -- and an explicit ``reject`` --
  ends the parse in accept without ``error.NoMatch`` (p4c's BMv2 JSON has no reject
  transition);
* a resubmitted or recirculated packet starts with reset ``standard_metadata``
  (``ingress_port`` 0, ...) except what the preserved field list carries;
* a header the parser did not extract reads the previous packet's field values (BMv2
  reuses the PHV, only marking its headers invalid).

Each program runs on simple_switch (compiled by real p4c) and on checkmate-switch (the
embedded compiler from the .p4, and p4c's JSON through switch/bmv2json); outputs per
port must be identical, and are also checked against the expected meaning so that two
equally wrong switches cannot pass. Root + p4c + simple_switch, else skipped.
"""
from __future__ import annotations

import struct

import pytest

from refrig import Bmv2, Bmv2Grpc, Checkmate, Rig, missing_tools, p4c_compile, p4runtime_program

from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs"

_why = missing_tools("p4c", "simple_switch")
pytestmark = [pytest.mark.root, pytest.mark.skipif(_why is not None, reason=_why or "")]

TARGETS = ("bmv2", "checkmate-p4", "checkmate-json")
DST, SRC = bytes.fromhex("000000000002"), bytes.fromhex("000000000001")


def eth(t: int) -> bytes:
    return DST + SRC + struct.pack("!H", t)


@pytest.fixture(scope="module")
def rig():
    with Rig(ports=(1, 2, 3), tag=f"cv{__import__('os').getpid() % 10000}") as r:
        yield r


def run_all(rig, tmp_path, name, frames, expect):
    """{target: {port: [frames out]}} for BMv2, checkmate-switch on the .p4, and on p4c's
    JSON.  Frames go in one at a time, each after the ``expect`` outputs of the previous
    one came out: BMv2 interleaves the passes of different packets (a recirculated copy
    may leave after the next packet), so only the order per input frame is defined."""
    src = PROGRAMS / name
    js, p4info = p4c_compile(src, tmp_path / "p4c")
    res = {}
    for target in TARGETS:
        if target == "bmv2":
            sw = Bmv2(rig, js)
        elif target == "checkmate-p4":
            sw = Checkmate(rig, src)
        else:
            sw = Checkmate(rig, js, extra=["--p4info", p4info])
        try:
            res[target] = out = {n: [] for n in rig.hosts}
            for frame in frames:
                for port, got in rig.exchange([frame], expect).items():
                    out[port] += got
        finally:
            sw.stop()
    return res


def assert_same(res):
    ref = res["bmv2"]
    for target, out in res.items():
        assert out == ref, f"{target} differs from BMv2:\n{target}: {out!r}\nbmv2: {ref!r}"
    return ref


def test_vlan_tag_survives_af_packet_ports(rig, tmp_path):
    payload = bytes(range(20))
    tagged = eth(0x8100) + struct.pack("!HH", (5 << 13) | 0x123, 0x0800) + payload
    qinq = eth(0x88A8) + struct.pack("!HH", 0x042, 0x0800) + payload
    untagged = eth(0x0800) + payload
    frames = [(1, tagged), (1, qinq), (1, untagged)]
    out = assert_same(run_all(rig, tmp_path, "vlan.p4", frames, expect=1))
    got = out[2]
    assert len(got) == 3 and out[1] == [] and out[3] == []
    # tagged: eth + vlan (pcp 5, vid 0x123) + res(a=1, b=0x23, c=0x0800) + payload
    assert got[0] == tagged[:18] + bytes([1, 0x23]) + b"\x08\x00" + payload
    assert got[1] == qinq[:18] + bytes([1, 0x42]) + b"\x08\x00" + payload
    assert got[2] == untagged[:14] + bytes([0, 0]) + b"\x08\x00" + payload


def test_select_without_match_or_default_accepts(rig, tmp_path):
    body = b"\xaa\xbb" + bytes(10)
    frames = [(1, eth(0x1234) + body), (1, eth(0x5555) + body), (1, eth(0x9999) + body)]
    out = assert_same(run_all(rig, tmp_path, "select_nomatch.p4", frames, expect=1))[2]
    assert len(out) == 3
    # matched: eth + tag(aa bb) + res(0 NoError, ingress_port 1) + rest
    assert out[0] == eth(0x1234) + b"\xaa\xbb" + b"\x00\x01" + bytes(10)
    # no case, no default / explicit reject: accept, NoError, tag not extracted
    for o, t in zip(out[1:], (0x5555, 0x9999)):
        assert o == eth(t) + b"\x00\x01" + body


def test_resubmit_and_recirculate_reset_standard_metadata(rig, tmp_path):
    pad = bytes(46)
    frames = [(1, eth(0x0001) + pad), (1, eth(0x0002) + pad), (1, eth(0x0003) + pad)]
    out = assert_same(run_all(rig, tmp_path, "stdmeta_passes.p4", frames, expect=1))[2]
    assert len(out) == 3
    info = [struct.unpack("!HIIHBHH", o[14:31]) for o in out[:2]]
    n = len(eth(1) + pad)
    # resubmit: ingress_port 0, RESUBMIT 6, the ingress length, kept preserved, lost reset
    assert info[0] == (0, 6, n, 0x101, 0, 0, 0)
    # recirculate: ingress_port 0, RECIRC 4, the deparsed length, kept preserved
    assert info[1] == (0, 4, n, 0x101, 0, 0, 0)
    assert out[2] == eth(0x0003) + pad


def _profile_updates(p4info):
    """P4Runtime writes (by name, ids from ``p4info``) for profiles_vsets.p4: a 3-member
    selector group, a direct member and an action-profile member."""
    from p4.v1 import p4runtime_pb2 as P

    def obj(kind, name):
        return next(o for o in getattr(p4info, kind) if o.preamble.name == name)
    fwd, mark = obj("actions", "I.fwd"), obj("actions", "I.mark")
    sel, prof = obj("action_profiles", "I.sel").preamble.id, obj("action_profiles", "I.prof").preamble.id
    ups = []

    def member(prof_id, mid, action, value):
        m = P.ActionProfileMember(action_profile_id=prof_id, member_id=mid)
        m.action.action_id = action.preamble.id
        m.action.params.add(param_id=action.params[0].id, value=value)
        ups.append(P.Update(type=P.Update.INSERT, entity=P.Entity(action_profile_member=m)))
    for mid, port in ((1, 1), (2, 2), (3, 3)):
        member(sel, mid, fwd, bytes([port]))
    member(prof, 5, mark, b"\x55")
    g = P.ActionProfileGroup(action_profile_id=sel, group_id=10, max_size=3)
    for mid in (1, 2, 3):
        g.members.add(member_id=mid, weight=1)
    ups.append(P.Update(type=P.Update.INSERT, entity=P.Entity(action_profile_group=g)))

    def entry(table, value, **target):
        t = obj("tables", table)
        te = P.TableEntry(table_id=t.preamble.id)
        te.match.add(field_id=t.match_fields[0].id).exact.value = value
        if "group" in target:
            te.action.action_profile_group_id = target["group"]
        else:
            te.action.action_profile_member_id = target["member"]
        ups.append(P.Update(type=P.Update.INSERT, entity=P.Entity(table_entry=te)))
    entry("I.t", b"\x08\x00", group=10)
    entry("I.t", b"\x08\x01", member=2)
    entry("I.t2", b"\xaa", member=5)
    return ups  # no value set: BMv2's P4Runtime answers "ValueSet writes are not supported yet"


def test_action_selector_and_profile_match_bmv2(rig, tmp_path):
    """The group member the selector picks for each flow: the same P4Runtime writes and
    frames (over veths) to simple_switch_grpc and to checkmate-switch on p4c's JSON, and
    the embedded pipeline in process on checkmate-p4c's IR.  Members and groups read back."""
    from switch.bmv2json.p4c import load_p4c_output
    from switch.compiler import compile_file
    from switch.runtime import Pipeline

    src = PROGRAMS / "profiles_vsets.p4"
    js, p4info_path = p4c_compile(src, tmp_path / "p4c")
    theirs = load_p4c_output(js, p4info_path)
    dst = bytes.fromhex("0000000000aa")
    frames = [(1, dst + bytes([2, 0, 0, 0, k, 7 * k]) + b"\x08\x00") for k in range(16)]
    frames += [(1, dst + bytes(6) + b"\x08\x01")]
    res = {}
    sw = Bmv2Grpc(rig)
    try:
        p4runtime_program(sw.addr, theirs.p4info, js.read_bytes(), _profile_updates(theirs.p4info))
        res["bmv2"] = out = {n: [] for n in rig.hosts}
        for frame in frames:
            for port, got in rig.exchange([frame], 1, timeout=5).items():
                out[port] += got
    finally:
        sw.stop()
    sw = Checkmate(rig, "--no-p4")
    try:
        ups = _profile_updates(theirs.p4info)
        p4runtime_program(sw.info["grpc"], theirs.p4info, js.read_bytes(), ups)
        res["checkmate-json"] = out = {n: [] for n in rig.hosts}
        for frame in frames:
            for port, got in rig.exchange([frame], 1, timeout=5).items():
                out[port] += got
        _check_profile_reads(sw.info["grpc"], ups)
    finally:
        sw.stop()
    for target, prog in (("checkmate-p4", compile_file(str(src))),):
        pl = Pipeline(prog.device_config)
        for mid, port in ((1, 1), (2, 2), (3, 3)):
            pl.add_member("I.sel", mid, "I.fwd", {"p": port})
        pl.add_group("I.sel", 10, [1, 2, 3])
        pl.add_member("I.prof", 5, "I.mark", {"v": 0x55})
        pl.insert_indirect("I.t", {"hdr.eth.type": 0x0800}, group_id=10)
        pl.insert_indirect("I.t", {"hdr.eth.type": 0x0801}, member_id=2)
        pl.insert_indirect("I.t2", {"hdr.eth.dst": 0xAA}, member_id=5)
        res[target] = out = {n: [] for n in rig.hosts}
        for port, frame in frames:
            for eport, data in pl.process(port, frame):
                out[eport].append(data)
    out = assert_same(res)
    assert sum(len(v) for v in out.values()) == 17
    assert len([p for p, v in out.items() if v]) >= 2  # the group spreads flows over members
    assert dst + bytes(6) + b"\x08\x01\x00\x55" in out[2]  # member 2 (port 2), t2 member 5 marks 0x55


def _check_profile_reads(addr, ups):
    """Every member and group written reads back as written (max_size too, as BMv2)."""
    import grpc
    from p4.v1 import p4runtime_pb2 as P
    from p4.v1 import p4runtime_pb2_grpc
    ch = grpc.insecure_channel(addr)
    try:
        stub = p4runtime_pb2_grpc.P4RuntimeStub(ch)
        req = P.ReadRequest(device_id=0)
        req.entities.add().action_profile_member.SetInParent()
        req.entities.add().action_profile_group.SetInParent()
        got = [e for r in stub.Read(req, timeout=10) for e in r.entities]
    finally:
        ch.close()
    want = [u.entity for u in ups if u.entity.WhichOneof("entity") in ("action_profile_member", "action_profile_group")]
    assert sorted(e.SerializeToString(deterministic=True) for e in got) == \
        sorted(e.SerializeToString(deterministic=True) for e in want)


def _ipv4(proto: int, l4: bytes, src=0x0A000101, dst=0x0A000202) -> bytes:
    return eth(0x0800) + struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(l4), 0, 0, 64, proto, 0, src, dst) + l4


def test_unextracted_header_reads_the_previous_packets_values(rig, tmp_path):
    """Tutorial-style ECMP over a 5-tuple: a UDP packet's hash still reads the TCP ports.
    BMv2 marks a PHV's headers invalid for the next packet but keeps their fields, so such a
    read sees the last packet's TCP header -- also after ``setInvalid()``; a stack element the
    parser did not reach likewise (tutorial load_balance / flowcache do this)."""
    tcp = lambda sp, dp, seq: struct.pack("!HHI", sp, dp, seq)  # noqa: E731
    udp = struct.pack("!HH", 53, 5353)
    opts = eth(0x88B5) + tcp(1, 2, 0x01020304) + tcp(3, 4, 0x55667788)
    frames = [(1, _ipv4(6, tcp(0x1111, 0x2222, 0xAABBCCDD))), (1, _ipv4(17, udp)), (1, eth(0x0806) + bytes(28)),
              (2, _ipv4(17, udp, src=0x0A000102)), (1, _ipv4(6, tcp(0x3333, 9, 0x01010101))), (3, _ipv4(17, udp)),
              (1, eth(0x88B6) + bytes(20)), (1, opts), (1, eth(0x88B6) + bytes(20))]
    out = assert_same(run_all(rig, tmp_path, "stale_fields.p4", frames, expect=1))
    assert sum(len(v) for v in out.values()) == len(frames)
    ids = {}
    for p, fs in out.items():
        for f in fs:
            if f[12:14] == b"\x08\x00":
                ids.setdefault(f[23], []).append((struct.unpack("!H", f[18:20])[0], f[8:12].hex()))
    # TCP frames carry their own sport; every UDP frame shows the sport/seq of the TCP before it
    assert sorted(ids[6]) == [(0x1111, "aabbccdd"), (0x3333, "01010101")]
    assert sorted(ids[17]) == [(0x1111, "aabbccdd"), (0x1111, "aabbccdd"), (0x3333, "01010101")]
    stack_reads = sorted(f[6:12] for fs in out.values() for f in fs if f[12:14] == b"\x88\xb6")
    assert stack_reads == [bytes(6), bytes.fromhex("000055667788")]


def test_enum_action_params_and_controller_header_enums(rig, tmp_path):
    """Tutorial flowcache's punt path in our own program: actions with serializable-enum
    parameters (table const entries, default action, direct call) fill metadata of the enum
    type; egress writes them into the packet_in header.  checkmate-p4c compiles it (it used to
    type the parameters as bit<8>) and its P4Info equals p4c's, controller-header enums included."""
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2
    from switch.compiler import compile_file
    from switch.compiler.p4info import canonical_text

    src = PROGRAMS / "punt_reasons.p4"
    _js, p4info = p4c_compile(src, tmp_path / "p4info")
    ref = text_format.Parse(p4info.read_text(), p4info_pb2.P4Info())
    assert canonical_text(compile_file(str(src)).p4info) == canonical_text(ref)
    assert set(ref.type_info.serializable_enums) == {"Reason_t", "Op_t"}
    assert set(ref.type_info.new_types) == {"cpu_port_t"}
    small = lambda ttl: eth(0x88B5) + bytes([ttl, 0]) + bytes(30)  # noqa: E731
    frames = [(1, eth(0x0800) + bytes(32)), (1, eth(0x88B6) + bytes(32)), (2, eth(0x1234) + bytes(32)),
              (1, small(1)), (1, small(5)), (3, bytes([2, 1]) + eth(0x0800) + bytes(32))]
    out = assert_same(run_all(rig, tmp_path, "punt_reasons.p4", frames, expect=1))
    assert out[2] == [frames[0][1], frames[4][1]]
    assert out[1] == [frames[5][1][2:]]
    assert out[3] == [bytes([0, 1, 7, 1]) + frames[1][1], bytes([0, 2, 7, 2]) + frames[2][1],
                      bytes([0, 1, 9, 1]) + frames[3][1]]
