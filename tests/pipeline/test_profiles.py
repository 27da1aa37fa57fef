"""Action profiles and selectors (ecmp.p4): members, groups, selector hashing, P4Info."""
import pytest
from scapy.all import IP, Raw

from pipeline_helpers import compiled, pipeline
from switch.runtime import EntryNotFound, InvalidEntry
from tests.oracles import crc16_arc

MAC = bytes.fromhex("000000000000" "0a0000000001")


def test_p4info_action_profiles():
    info = compiled("ecmp.p4").p4info
    aps = {a.preamble.name: a for a in info.action_profiles}
    assert set(aps) == {"I.sel", "I.by_tos"}
    assert aps["I.sel"].with_selector and aps["I.sel"].size == 64
    assert not aps["I.by_tos"].with_selector and aps["I.by_tos"].size == 8
    tables = {t.preamble.name: t for t in info.tables}
    ecmp = tables["I.ecmp"]
    assert ecmp.implementation_id == aps["I.sel"].preamble.id
    assert [m.name for m in ecmp.match_fields] == ["h.ip.dst"]      # selector keys excluded
    assert list(aps["I.sel"].table_ids) == [ecmp.preamble.id]
    assert aps["I.sel"].preamble.id >> 24 == 0x11


def test_group_members_picked_by_selector_hash():
    pl = pipeline("ecmp.p4")
    for mid, port in ((1, 1), (2, 2), (3, 3)):
        pl.add_member("I.sel", mid, "I.set_nhop", {"dmac": 0x100 + port, "port": port})
    pl.add_group("I.sel", 10, [3, 1, 2])
    pl.insert_indirect("I.ecmp", {"h.ip.dst": ("10.0.0.0", 8)}, group_id=10)
    seen = set()
    for i in range(30):
        src = f"10.1.0.{i}"
        ip = bytes(IP(src=src, dst="10.2.3.4", proto=17) / Raw(b"x"))
        out = pl.process(0, MAC + b"\x08\x00" + ip)
        h = crc16_arc(bytes([10, 1, 0, i]) + bytes([17]))
        port = [1, 2, 3][h % 3]           # members in creation order
        assert out == [(port, (0x100 + port).to_bytes(6, "big") + MAC[6:] + b"\x08\x00" + ip)]
        seen.add(port)
    assert seen == {1, 2, 3}


def test_members_entries_and_errors():
    pl = pipeline("ecmp.p4")
    tos = pl.names.id("action_profile", "I.by_tos")
    pl.add_member("I.by_tos", 5, "I.set_nhop", {"dmac": 0xAB, "port": 7})
    pl.insert_indirect("I.by_tos", {"h.ip.tos": 4}, member_id=5)
    ip = bytes(IP(src="1.1.1.1", dst="2.2.2.2", tos=4))
    assert pl.process(0, MAC + b"\x08\x00" + ip) == [(7, (0xAB).to_bytes(6, "big") + MAC[6:] + b"\x08\x00" + ip)]
    assert pl.action_profile_members(tos) == {5: (pl.names.id("action", "I.set_nhop"), {1: 0xAB, 2: 7})}
    with pytest.raises(InvalidEntry, match="no selector"):
        pl.add_group("I.by_tos", 1, [5])
    with pytest.raises(InvalidEntry, match="no member 9"):
        pl.insert_indirect("I.by_tos", {"h.ip.tos": 5}, member_id=9)
    with pytest.raises(InvalidEntry, match="exactly one of member_id or group_id"):
        pl.insert("I.by_tos", {"h.ip.tos": 6}, "I.set_nhop", {"dmac": 1, "port": 1})
    # miss on both tables: ecmp's default_action drop() is not run -- BMv2 has none for a table
    # with an action selector (p4c warns) -- so the frame leaves on egress_spec's initial port 0
    frame = MAC + b"\x08\x00" + bytes(IP(tos=1))
    assert pl.process(0, frame) == [(0, frame)]
    assert pl.table_get_default(pl.names.table_id("I.ecmp")).action_id == 0


def test_indirect_entries_read_back_and_group_changes():
    pl = pipeline("ecmp.p4")
    sel = pl.names.id("action_profile", "I.sel")
    pl.add_member("I.sel", 1, "I.set_nhop", {"dmac": 1, "port": 1})
    pl.add_member("I.sel", 2, "I.set_nhop", {"dmac": 2, "port": 2})
    pl.add_group("I.sel", 7, [1, 2])
    pl.insert_indirect("I.ecmp", {"h.ip.dst": ("10.0.0.0", 8)}, group_id=7)
    (e,) = pl.table_entries(pl.names.table_id("I.ecmp"))
    assert (e.group_id, e.member_id, e.action_id) == (7, None, 0)
    pl.action_profile_group_set(sel, 7, [2], modify=True)
    assert pl.action_profile_groups(sel) == {7: [2]}
    ip = bytes(IP(src="10.1.0.1", dst="10.2.3.4"))
    assert [p for p, _ in pl.process(0, MAC + b"\x08\x00" + ip)] == [2]
    with pytest.raises(InvalidEntry, match="member 2 is in a group"):
        pl.action_profile_member_delete(sel, 2)
    pl.action_profile_group_set(sel, 7, [], modify=True)
    # an empty group (P4Runtime refuses one; the pipeline API allows it): the miss's result, no
    # action, so egress_spec's initial port 0
    assert pl.process(0, MAC + b"\x08\x00" + ip) == [(0, MAC + b"\x08\x00" + ip)]
