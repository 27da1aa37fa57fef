"""P4Info as p4c emits it for v1model programs.

* Names: fully-qualified control-local names ("MyIngress.t_exact"), NoAction
  global ("NoAction"), match fields named by their key expression ("hdr.t.k8"),
  match-field and action-parameter ids numbered 1.. in declaration order, alias =
  shortest unique suffix; digests named after the digest struct type.
* Ids: (P4Ids prefix << 24) | (Jenkins one-at-a-time hash of the name & 0xFFFFFF)
  (p4c control-plane/p4RuntimeSymbolTable); this reproduces the public P4Info of the
  p4lang tutorials' basic exercise: MyIngress.ipv4_lpm 37375156,
  MyIngress.ipv4_forward 28792405, MyIngress.drop 25652968, NoAction 21257015.
* Prefixes: p4info.proto P4Ids.Prefix (ACTION 0x01, TABLE 0x02, COUNTER 0x12,
  DIRECT_COUNTER 0x13, METER 0x14, DIRECT_METER 0x15, REGISTER 0x16, DIGEST 0x17).
"""
import pytest
from p4.config.v1 import p4info_pb2
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4conf import P4Info, Switch, compiled, eth
from switch.compiler.ids import jenkins_one_at_a_time

MT = p4info_pb2.MatchField
UNIT = p4info_pb2.CounterSpec
MUNIT = p4info_pb2.MeterSpec
PFX = p4info_pb2.P4Ids


def p4c_id(prefix: int, name: str) -> int:
    return (prefix << 24) | (jenkins_one_at_a_time(name.encode()) & 0xFFFFFF)


def test_id_model_reproduces_public_p4c_ids():
    # p4lang/tutorials basic exercise
    assert p4c_id(PFX.TABLE, "MyIngress.ipv4_lpm") == 37375156
    assert p4c_id(PFX.ACTION, "MyIngress.ipv4_forward") == 28792405
    # a public P4Info with counters: direct counter "acls" 325583051, counter
    # "PostQosPipe.post_qos_counter" 302958180
    assert p4c_id(PFX.DIRECT_COUNTER, "acls") == 325583051
    assert p4c_id(PFX.COUNTER, "PostQosPipe.post_qos_counter") == 302958180
    # ... and a digest named after its struct type: "ddn_digest_t" 396224266
    assert p4c_id(PFX.DIGEST, "ddn_digest_t") == 396224266


@pytest.fixture(scope="module")
def basic():
    return P4Info(compiled("basic.p4").p4info)


def test_basic_ids_match_p4c(basic):
    t = basic.tables["MyIngress.ipv4_lpm"]
    assert t.preamble.id == 37375156
    assert t.preamble.alias == "ipv4_lpm"
    assert basic.actions["MyIngress.ipv4_forward"].preamble.id == 28792405
    assert basic.actions["MyIngress.drop"].preamble.id == 25652968
    assert basic.actions["NoAction"].preamble.id == 21257015
    assert sorted(r.id for r in t.action_refs) == sorted([28792405, 25652968, 21257015])
    assert t.size == 1024


def test_basic_match_fields_and_params(basic):
    t = basic.tables["MyIngress.ipv4_lpm"]
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in t.match_fields] == [
        (1, "hdr.ipv4.dstAddr", 32, MT.LPM)]
    a = basic.actions["MyIngress.ipv4_forward"]
    assert [(p.id, p.name, p.bitwidth) for p in a.params] == [(1, "dstAddr", 48), (2, "port", 9)]
    assert list(basic.actions["MyIngress.drop"].params) == []


def test_basic_program_forwards():
    sw = Switch("basic.p4")
    sw.add("MyIngress.ipv4_lpm", "MyIngress.ipv4_forward", {"hdr.ipv4.dstAddr": (0x0A000200, 24)},
           {"dstAddr": 0x08000000_0022, "port": 2})
    p = Ether(dst="08:00:00:00:01:00", src="08:00:00:00:00:11") / \
        IP(src="10.0.1.1", dst="10.0.2.2", ttl=64) / UDP(sport=7, dport=9) / (b"x" * 30)
    exp = Ether(dst="08:00:00:00:00:22", src="08:00:00:00:01:00") / \
        IP(src="10.0.1.1", dst="10.0.2.2", ttl=63) / UDP(sport=7, dport=9) / (b"x" * 30)
    assert sw.send(1, bytes(p)) == [(2, bytes(exp))]
    # default_action = drop()
    q = Ether() / IP(src="10.0.1.1", dst="10.0.3.3") / b"y"
    assert sw.send(1, bytes(q)) == []
    # non-IPv4: table not applied, egress_spec stays 0 -> port 0
    r = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src="08:00:00:00:00:11", type=0x0806) / (b"\0" * 28))
    assert sw.send(1, r) == [(0, r)]


@pytest.fixture(scope="module")
def tables():
    return P4Info(compiled("tables.p4").p4info)


def test_table_names_and_ids(tables):
    names = {"MyIngress.t_exact", "MyIngress.t_lpm", "MyIngress.t_tern", "MyIngress.t_range",
             "MyIngress.t_opt", "MyIngress.t_const", "MyIngress.t_sw", "MyIngress.t_port"}
    assert set(tables.tables) == names
    for n, t in tables.tables.items():
        assert t.preamble.id == p4c_id(PFX.TABLE, n), n
        assert t.preamble.alias == n.split(".")[-1]
    for n, a in tables.actions.items():
        assert a.preamble.id == p4c_id(PFX.ACTION, n), n


def test_match_kinds_and_fields(tables):
    def fields(t):
        return [(m.id, m.name, m.bitwidth, m.match_type) for m in tables.tables[t].match_fields]

    assert fields("MyIngress.t_exact") == [(1, "hdr.t.k8", 8, MT.EXACT)]
    assert fields("MyIngress.t_lpm") == [(1, "hdr.t.addr", 32, MT.LPM)]
    assert fields("MyIngress.t_tern") == [(1, "hdr.t.k8", 8, MT.TERNARY)]
    assert fields("MyIngress.t_range") == [(1, "hdr.t.port", 16, MT.RANGE)]
    assert fields("MyIngress.t_opt") == [(1, "hdr.t.k8", 8, MT.EXACT),
                                         (2, "hdr.t.opt", 8, MT.OPTIONAL)]


def test_actions_params_and_refs(tables):
    assert "NoAction" in tables.actions
    for n in ("set_a", "set_b", "set_c", "set_d", "set_e", "set_f"):
        a = tables.actions[f"MyIngress.{n}"]
        assert [(p.id, p.name, p.bitwidth) for p in a.params] == [(1, "v", 8)]
    assert [(p.id, p.name, p.bitwidth) for p in tables.actions["MyIngress.to_port"].params] == \
        [(1, "port", 9)]
    refs = {r.id for r in tables.tables["MyIngress.t_exact"].action_refs}
    assert refs == {tables.actions["MyIngress.set_a"].preamble.id,
                    tables.actions["NoAction"].preamble.id}


def test_const_table_and_size(tables):
    t = tables.tables["MyIngress.t_const"]
    assert t.is_const_table
    assert t.const_default_action_id == tables.actions["MyIngress.set_f"].preamble.id
    assert tables.tables["MyIngress.t_port"].size == 64
    assert not tables.tables["MyIngress.t_exact"].is_const_table


@pytest.fixture(scope="module")
def stateful():
    return P4Info(compiled("stateful.p4").p4info)


def test_counters_registers_digest(stateful):
    c = stateful.counters
    assert set(c) == {"MyIngress.c_both", "MyIngress.c_pkts", "MyIngress.c_bytes"}
    assert (c["MyIngress.c_both"].spec.unit, c["MyIngress.c_both"].size) == (UNIT.BOTH, 8)
    assert c["MyIngress.c_pkts"].spec.unit == UNIT.PACKETS
    assert c["MyIngress.c_bytes"].spec.unit == UNIT.BYTES
    for n, obj in c.items():
        assert obj.preamble.id == p4c_id(PFX.COUNTER, n)

    dc = stateful.direct_counters["MyIngress.dc"]
    t = stateful.tables["MyIngress.t_dc"]
    assert dc.preamble.id == p4c_id(PFX.DIRECT_COUNTER, "MyIngress.dc")
    assert dc.direct_table_id == t.preamble.id
    assert dc.spec.unit == UNIT.BOTH
    assert list(t.direct_resource_ids) == [dc.preamble.id]

    r = stateful.registers["MyIngress.acc"]
    assert r.preamble.id == p4c_id(PFX.REGISTER, "MyIngress.acc")
    assert r.size == 8 and r.type_spec.bitstring.bit.bitwidth == 32

    d = stateful.digests["learn_t"]
    assert d.preamble.id == p4c_id(PFX.DIGEST, "learn_t")
    assert d.type_spec.struct.name == "learn_t"
    members = stateful.msg.type_info.structs["learn_t"].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [
        ("mac", 48), ("port", 9), ("tag", 8)]


def test_meters(tmp_path):
    info = P4Info(compiled("meters.p4").p4info)
    m = info.meters["MyIngress.m"]
    assert m.preamble.id == p4c_id(PFX.METER, "MyIngress.m")
    assert (m.spec.unit, m.size) == (MUNIT.PACKETS, 4)
    dm = info.direct_meters["MyIngress.dm"]
    assert dm.preamble.id == p4c_id(PFX.DIRECT_METER, "MyIngress.dm")
    assert dm.direct_table_id == info.tables["MyIngress.t_dm"].preamble.id


def test_ids_stable_across_compiles():
    from switch.compiler import compile_file

    from p4conf import PROGRAMS

    a = compile_file(str(PROGRAMS / "tables.p4")).p4info
    b = compile_file(str(PROGRAMS / "tables.p4")).p4info
    assert a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


@pytest.fixture(scope="module")
def annotated():
    return P4Info(compiled("annotations.p4").p4info)


def test_name_and_id_annotations(annotated):
    # @name("x") inside MyIngress -> "MyIngress.x"; @name(".x") -> "x"; @id fixes the id
    assert set(annotated.tables) == {"MyIngress.renamed_table", "MyIngress.t_scoped"}
    names = set(annotated.actions)
    assert {"MyIngress.renamed_set", "global_set", "MyIngress.set_c", "NoAction"} <= names
    assert annotated.actions["MyIngress.set_c"].preamble.id == 0x01000042
    assert annotated.actions["global_set"].preamble.id == p4c_id(PFX.ACTION, "global_set")
    t = annotated.tables["MyIngress.renamed_table"]
    assert t.preamble.id == p4c_id(PFX.TABLE, "MyIngress.renamed_table")
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in t.match_fields] == [
        (1, "top8", 8, MT.EXACT), (2, "hdr.t.port", 16, MT.EXACT)]


def test_slice_key_matches_only_its_bits():
    sw = Switch("annotations.p4")
    sw.add("MyIngress.renamed_table", "MyIngress.renamed_set", {"top8": 10, "hdr.t.port": 80},
           {"v": 0x33})
    sw.add("MyIngress.renamed_table", "global_set", {"top8": 11, "hdr.t.port": 80}, {"v": 0x40})
    sw.add("MyIngress.renamed_table", "MyIngress.set_c", {"top8": 12, "hdr.t.port": 80},
           {"v": 0x50})

    def run(addr, port):
        f = eth(0x1234) + addr.to_bytes(4, "big") + port.to_bytes(2, "big") + b"\x00" + b"pp"
        out = sw.send1(1, f)
        assert out[0] == 1 and out[1][:20] == f[:20] and out[1][21:] == b"pp"
        return out[1][20]

    assert run(0x0AFFFFFF, 80) == 0x33
    assert run(0x0A000000, 80) == 0x33
    assert run(0x0B123456, 80) == 0x41
    assert run(0x0C000001, 80) == 0x52
    assert run(0x0A000000, 81) == 0x00
    assert run(0x09FFFFFF, 80) == 0x00


def test_action_scopes_in_p4info_and_enforced(annotated):
    refs = {r.id: r.scope for r in annotated.tables["MyIngress.t_scoped"].action_refs}
    a_id = annotated.actions["MyIngress.renamed_set"].preamble.id
    c_id = annotated.actions["MyIngress.set_c"].preamble.id
    assert refs == {a_id: p4info_pb2.ActionRef.TABLE_ONLY, c_id: p4info_pb2.ActionRef.DEFAULT_ONLY}
    from switch.runtime import PipelineError

    sw = Switch("annotations.p4")
    with pytest.raises(PipelineError):        # @defaultonly action in an entry
        sw.add("MyIngress.t_scoped", "MyIngress.set_c", {"hdr.t.port": 1}, {"v": 1})
    with pytest.raises(PipelineError):        # @tableonly action as default
        sw.set_default("MyIngress.t_scoped", "MyIngress.renamed_set", {"v": 1})
    sw.add("MyIngress.t_scoped", "MyIngress.renamed_set", {"hdr.t.port": 7}, {"v": 0x21})
    f = eth(0x1234) + bytes(4) + b"\x00\x07" + b"\x00" + b"pp"
    assert sw.send1(1, f)[1][20] == 0x21
    g = eth(0x1234) + bytes(4) + b"\x00\x08" + b"\x00" + b"pp"
    assert sw.send1(1, g)[1][20] == 0x12        # default set_c(0x10): v + 2


def test_pkg_info_and_default_table_size(tables):
    assert tables.msg.pkg_info.arch == "v1model"
    # no `size` property -> p4c's default table size 1024
    assert tables.tables["MyIngress.t_exact"].size == 1024


def test_controller_packet_metadata():
    info = compiled("cpu.p4").p4info
    cpm = {c.preamble.name: c for c in info.controller_packet_metadata}
    assert set(cpm) == {"packet_in", "packet_out"}
    # The id is hashed from the header *type* name, not from the P4Info name: public
    # P4Infos show packet_in 80671331 / packet_out 75327753 for types packet_in_t /
    # packet_out_t (SAI P4) and packet_in 81826293 for type packet_in_header_t (fabric)
    assert p4c_id(PFX.CONTROLLER_HEADER, "packet_in_t") == 80671331
    assert p4c_id(PFX.CONTROLLER_HEADER, "packet_out_t") == 75327753
    assert p4c_id(PFX.CONTROLLER_HEADER, "packet_in_header_t") == 81826293
    assert cpm["packet_in"].preamble.id == 80671331
    assert cpm["packet_out"].preamble.id == 75327753
    assert list(cpm["packet_in"].preamble.annotations) == ['@controller_header("packet_in")']
    assert [(m.id, m.name, m.bitwidth) for m in cpm["packet_in"].metadata] == [
        (1, "ingress_port", 9), (2, "_pad", 7)]
    assert [(m.id, m.name, m.bitwidth) for m in cpm["packet_out"].metadata] == [
        (1, "egress_port", 9), (2, "_pad", 7), (3, "flags", 8)]


def test_cpu_port_packet_in_and_out():
    sw = Switch("cpu.p4")
    frame = bytes(Ether(dst="00:00:00:00:00:09", src="00:00:00:00:00:08", type=0x1234)) + b"data"
    # to the CPU: packet_in header (ingress_port 9 bits + 7 pad) prepended
    assert sw.send(7, frame) == [(255, bytes([7 >> 1, (7 & 1) << 7]) + frame)]
    # from the CPU: packet_out header stripped, egress port taken from it
    pout = bytes([5 >> 1, (5 & 1) << 7, 0xAA])
    assert sw.send(255, pout + frame) == [(5, frame)]


def test_validity_and_slice_keys():
    # p4c names an isValid() key "<header>.$valid$" (bitwidth 1) and a slice key by its
    # expression text (frontend output: `hdr.x.isValid(): exact @name("hdr.x.$valid$")`)
    info = P4Info(compiled("keys.p4").p4info)
    t = info.tables["MyIngress.k"]
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in t.match_fields] == [
        (1, "hdr.vlan.$valid$", 1, MT.EXACT), (2, "hdr.t.addr[31:24]", 8, MT.TERNARY)]
    sw = Switch("keys.p4")
    sw.add("MyIngress.k", "MyIngress.set_a", {"hdr.vlan.$valid$": 1,
                                               "hdr.t.addr[31:24]": (0x0A, 0xFF)}, {"v": 1}, 10)
    sw.add("MyIngress.k", "MyIngress.set_a", {"hdr.vlan.$valid$": 0}, {"v": 2}, 5)
    tagged = eth(0x8100) + b"\x00\x05\x12\x34" + b"\x0a\x01\x02\x03" + b"\x00"
    untagged = eth(0x1234) + b"\x0a\x01\x02\x03" + b"\x00"
    other = eth(0x8100) + b"\x00\x05\x12\x34" + b"\x0b\x01\x02\x03" + b"\x00"
    assert sw.send1(1, tagged) == (1, tagged[:-1] + b"\x01")
    assert sw.send1(1, untagged) == (1, untagged[:-1] + b"\x02")
    assert sw.send1(1, other) == (1, other)


def test_names_inside_an_instantiated_subcontrol():
    # p4c qualifies by the instance path: MyIngress instantiates Sub as `sub`
    info = P4Info(compiled("subcontrol.p4").p4info)
    assert set(info.tables) == {"MyIngress.sub.t_sub"}
    assert "MyIngress.sub.mark" in info.actions
    t = info.tables["MyIngress.sub.t_sub"]
    assert t.preamble.id == p4c_id(PFX.TABLE, "MyIngress.sub.t_sub")
    assert [(m.name, m.bitwidth) for m in t.match_fields] == [("t.op", 8)]
    sw = Switch("subcontrol.p4")
    sw.add("MyIngress.sub.t_sub", "MyIngress.sub.mark", {"t.op": 7}, {"v": 0x10})
    f = eth(0x1234) + bytes([7, 0, 0x40]) + b"x"
    assert sw.send1(1, f) == (3, eth(0x1234) + bytes([7, 0xE2, 0x51]) + b"x")


# Facts from a public p4c output (testdata/p4_16_samples_outputs/
# v1model-special-ops-bmv2.p4.p4info.txtpb for v1model-special-ops-bmv2.p4): tables
# without `size` get 1024; a table with no default action and no NoAction gets
# NoAction added as @defaultonly; a top-level action is named without prefix; the ids of
# "ingress.ipv4_da_lpm" (35996228), "my_drop" (32609675) and "egress.send_frame"
# (49367184) follow the same Jenkins-hash rule.

def test_id_model_reproduces_special_ops_ids():
    assert p4c_id(PFX.TABLE, "ingress.ipv4_da_lpm") == 35996228
    assert p4c_id(PFX.ACTION, "my_drop") == 32609675
    assert p4c_id(PFX.TABLE, "egress.send_frame") == 49367184


def test_implicit_noaction_default_is_defaultonly():
    info = P4Info(compiled("implicit_default.p4").p4info)
    t = info.tables["MyIngress.no_default"]
    noaction = info.actions["NoAction"].preamble.id
    refs = {r.id: r for r in t.action_refs}
    assert set(refs) == {info.actions["MyIngress.set_a"].preamble.id, noaction}
    assert refs[noaction].scope == p4info_pb2.ActionRef.DEFAULT_ONLY
    assert "@defaultonly" in list(refs[noaction].annotations)
    assert t.size == 1024
    sw = Switch("implicit_default.p4")
    sw.add("MyIngress.no_default", "MyIngress.set_a", {"hdr.t.k": 1}, {"v": 0x11})
    assert sw.send1(0, eth(0x1234) + b"\x01\x00") == (1, eth(0x1234) + b"\x01\x11")
    assert sw.send1(0, eth(0x1234) + b"\x02\x05") == (1, eth(0x1234) + b"\x02\x85")


def test_top_level_action_with_bound_argument():
    info = P4Info(compiled("bound_args.p4").p4info)
    assert "my_drop" in info.actions
    assert list(info.actions["my_drop"].params) == []
    t = info.tables["MyIngress.t"]
    assert info.actions["my_drop"].preamble.id in {r.id for r in t.action_refs}
    sw = Switch("bound_args.p4")
    sw.add("MyIngress.t", "MyIngress.fwd", {"hdr.t.k": 1}, {"port": 6})
    sw.add("MyIngress.t", "my_drop", {"hdr.t.k": 2})
    assert sw.send(0, eth(0x1234) + b"\x01\x00") == [(6, eth(0x1234) + b"\x01\x00")]
    assert sw.send(0, eth(0x1234) + b"\x02\x00") == []      # entry -> my_drop(sm)
    assert sw.send(0, eth(0x1234) + b"\x03\x00") == []      # default my_drop(sm)


def test_directly_called_actions_are_listed_without_directional_params():
    # p4c testdata gauntlet_inout_slice_table_key-bmv2.p4: `action simple_action(inout
    # bit<4> dummy)` only called from apply appears in P4Info as "ingress.simple_action"
    # with no params (directional parameters are not control-plane parameters)
    info = P4Info(compiled("actions.p4").p4info)
    params = {n: [(p.id, p.name, p.bitwidth) for p in a.params] for n, a in info.actions.items()}
    assert params["MyIngress.add_to"] == []
    assert params["MyIngress.sum_of"] == []
    assert params["MyIngress.set_e"] == []
    assert params["MyIngress.twice"] == [(1, "k", 8)]
    assert params["MyIngress.do_exit"] == []
    assert set(info.tables) == {"MyIngress.t_act"}


def test_aliases_stay_unique_for_repeated_local_names():
    # p4c testdata flowlet_switching-bmv2.p4.p4info.txtpb: actions "ingress._drop" and
    # "egress._drop" get aliases "ingress._drop" / "egress._drop", unique names keep
    # their last component ("set_nhop"); register ids follow the hash rule
    assert p4c_id(PFX.ACTION, "ingress._drop") == 19344232
    assert p4c_id(PFX.REGISTER, "ingress.flowlet_id") == 384519412
    info = P4Info(compiled("aliases.p4").p4info)
    alias = {n: o.preamble.alias for n, o in info.actions.items()}
    assert alias["MyIngress.drop"] == "MyIngress.drop"
    assert alias["MyEgress.drop"] == "MyEgress.drop"
    assert alias["MyIngress.fwd"] == "fwd"
    assert {n: o.preamble.alias for n, o in info.tables.items()} == {
        "MyIngress.t": "MyIngress.t", "MyEgress.t": "MyEgress.t"}
    assert {n: o.preamble.alias for n, o in info.registers.items()} == {
        "MyIngress.seen": "MyIngress.seen", "MyEgress.seen": "MyEgress.seen"}
    sw = Switch("aliases.p4")
    sw.add("MyEgress.t", "MyEgress.drop", {"hdr.eth.dst": 0x0000000000AA})
    assert sw.send(3, eth(0x4321, dst=bytes(5) + b"\xaa")) == []
    assert sw.send(3, eth(0x4321)) == [(1, eth(0x4321))]
    assert sw.register_read("MyIngress.seen", 0) == 0x4321
    assert sw.register_read("MyEgress.seen", 1) == 0x4321
