"""P4Info index and user objects against a hand-written P4Info (no compiler, no gRPC)."""
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from controller.entities import Entry, McastGroup
from controller.p4info import P4InfoError, P4InfoIndex, encode, format_value, to_int

P4INFO = """
tables { preamble { id: 1 name: "Ingress.route" alias: "route" }
  match_fields { id: 1 name: "hdr.ipv4.dstAddr" bitwidth: 32 match_type: LPM }
  action_refs { id: 10 } action_refs { id: 11 } size: 64 }
tables { preamble { id: 2 name: "Ingress.shards" alias: "shards" }
  match_fields { id: 1 name: "hdr.cm.job_id" bitwidth: 32 match_type: EXACT }
  match_fields { id: 2 name: "hdr.cm.param_id" bitwidth: 32 match_type: RANGE }
  match_fields { id: 3 name: "meta.tag" bitwidth: 8 match_type: TERNARY }
  action_refs { id: 12 } size: 64 }
tables { preamble { id: 3 name: "Egress.route" alias: "Egress.route" }
  match_fields { id: 1 name: "x" bitwidth: 8 match_type: EXACT } action_refs { id: 11 } }
actions { preamble { id: 10 name: "Ingress.forward" alias: "forward" }
  params { id: 1 name: "port" bitwidth: 9 } params { id: 2 name: "dmac" bitwidth: 48 } }
actions { preamble { id: 11 name: "Ingress.drop" alias: "drop" } }
actions { preamble { id: 12 name: "Ingress.set_shard" alias: "set_shard" } params { id: 1 name: "rid" bitwidth: 16 } }
counters { preamble { id: 20 name: "Egress.copies" alias: "copies" } spec { unit: BOTH } size: 8 }
digests { preamble { id: 30 name: "hb_t" alias: "hb_t" } type_spec { struct { name: "hb_t" } } }
type_info { structs { key: "hb_t" value {
  members { name: "job_id" type_spec { bitstring { bit { bitwidth: 32 } } } }
  members { name: "rank" type_spec { bitstring { bit { bitwidth: 16 } } } } } } }
"""


@pytest.fixture
def ix():
    return P4InfoIndex(text_format.Parse(P4INFO, p4info_pb2.P4Info()))


def test_names_suffixes_and_ambiguity(ix):
    assert ix.id("tables", "shards") == 2 and ix.id("tables", "Ingress.route") == 1
    assert ix.id("actions", "forward") == 10
    with pytest.raises(P4InfoError, match="ambiguous"):
        ix.get("tables", "route")
    with pytest.raises(P4InfoError, match=r"no table named 'nope'.*known: Egress.route, Ingress.route, shards"):
        ix.get("tables", "nope")
    assert ix.digest_fields("hb_t") == [("job_id", 32), ("rank", 16)]


def test_value_encoding():
    assert encode(0, 9) == b"\x00" and encode(256, 9) == b"\x01\x00"
    assert encode("10.0.0.1", 32) == bytes([10, 0, 0, 1])
    assert encode("08:00:00:00:00:01", 48) == b"\x08\x00\x00\x00\x00\x01"
    assert to_int("0x1f", 8) == 31
    with pytest.raises(P4InfoError, match=r"port: 512 does not fit in 9 bits"):
        encode(512, 9, "port")
    with pytest.raises(P4InfoError, match="cannot read 'ten'"):
        to_int("ten", 8)
    assert format_value(0x0A000001, 32, "hdr.ipv4.dstAddr") == "10.0.0.1"
    assert format_value(1, 48, "dmac") == "00:00:00:00:00:01"


def test_entry_roundtrip_and_canonical(ix):
    e = Entry("Ingress.route", {"hdr.ipv4.dstAddr": "10.0.0.7/24"}, "forward", {"port": 3, "dmac": "08:00:00:00:00:01"})
    msg = e.to_proto(ix)
    assert msg.match[0].lpm.value == bytes([10, 0, 0, 0]) and msg.match[0].lpm.prefix_len == 24  # masked, canonical
    back = Entry.from_proto(ix, msg)
    assert back == e.canonical(ix)
    assert back.action == "Ingress.forward" and back.params == {"port": 3, "dmac": 0x080000000001}


def test_dont_care_fields_left_out_and_priority_rules(ix):
    e = Entry("shards", {"hdr.cm.job_id": 1, "hdr.cm.param_id": (0, 2**32 - 1), "meta.tag": (5, 0)},
              "set_shard", {"rid": 1}, priority=1)
    msg = e.to_proto(ix)
    assert [m.field_id for m in msg.match] == [1]
    with pytest.raises(P4InfoError, match="needs a priority"):
        Entry("shards", {"hdr.cm.job_id": 1}, "set_shard", {"rid": 1}).to_proto(ix)
    with pytest.raises(P4InfoError, match="range low 5 > high 4"):
        Entry("shards", {"hdr.cm.param_id": (5, 4)}, "set_shard", {"rid": 1}, priority=1).to_proto(ix)


def test_entry_errors_name_table_field_value(ix):
    with pytest.raises(P4InfoError, match=r"table Ingress.route, action Ingress.forward, parameter port: 999"):
        Entry("Ingress.route", {"hdr.ipv4.dstAddr": "10.0.0.1/32"}, "forward", {"port": 999, "dmac": 1}).to_proto(ix)
    with pytest.raises(P4InfoError, match="parameter dmac missing"):
        Entry("Ingress.route", {}, "forward", {"port": 1}).to_proto(ix)
    with pytest.raises(P4InfoError, match="not an action of table Ingress.shards"):
        Entry("shards", {}, "forward", {}).to_proto(ix)
    with pytest.raises(P4InfoError, match="has no match field 'dst'"):
        Entry("Ingress.route", {"dst": 1}, "drop").to_proto(ix)


def test_mcast_group_proto_roundtrip():
    g = McastGroup.of(7, [(5, 1), (2, 0)])
    assert g.replicas == ((2, 0), (5, 1))
    assert McastGroup.from_proto(g.to_proto().multicast_group_entry) == g
