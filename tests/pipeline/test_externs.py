"""Hash/checksum algorithms against independent references, and small language corners."""
import random
import zlib

import pytest

from switch.compiler import compile_source
from switch.runtime import Pipeline
from switch.runtime.externs import _to_bytes, csum16, csum16_reference, hash_value


def test_csum16_modulo_form_equals_word_sum():
    r = random.Random(7)
    for _ in range(5000):
        bits = r.choice([1, 8, 13, 16, 24, 32, 64, 160, 168, 272])
        v = r.choice([0, (1 << bits) - 1, r.getrandbits(bits)])
        assert csum16(v, bits) == csum16_reference(_to_bytes(v, bits)), (v, bits)


def test_known_check_values():
    msg = int.from_bytes(b"123456789", "big")
    assert hash_value("crc16", msg, 72) == 0xBB3D          # CRC-16/ARC check value
    assert hash_value("crc32", msg, 72) == 0xCBF43926 == zlib.crc32(b"123456789")
    assert hash_value("identity", 0x1234, 16) == 0x1234
    # RFC 1071 example words 0001 f203 f4f5 f6f7 -> sum ddf2 -> checksum 220d
    assert csum16(0x0001F203F4F5F6F7, 64) == 0x220D


PROG = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; bit<8> f; }
struct m_t { }
struct hs { h_t h; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
void split(in bit<8> v, out bit<8> hi, out bit<8> lo) { hi = v >> 4; lo = v & 0x0F; }
bit<8> clamp(in bit<8> v) { if (v > 100) { return 100; } return v; }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        split(h.h.a, h.h.b, h.h.c);
        h.h.d = clamp(h.h.a);
        // p4c precedence: & binds tighter than ==, comparisons looser than |
        if (h.h.a & 0x0F == 0x05) { h.h.e = 1; } else { h.h.e = 2; }
        h.h.f = (h.h.a |+| 200) ++ 4w0 == 12w0 ? 8w9 : (bit<8>) (h.h.a |-| 8w250);
        sm.egress_spec = 1;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""


@pytest.mark.parametrize("a", [0x35, 0xE5, 0x00])
def test_function_out_params_precedence_saturation(a):
    pl = Pipeline(compile_source(PROG, "corners.p4").device_config)
    out = pl.process(0, bytes([a, 0, 0, 0, 0, 0]) + b"!")
    sat = min(a + 200, 255)
    f = 9 if ((sat << 4) & 0xFFF) == 0 else max(a - 250, 0)
    assert out == [(1, bytes([a, a >> 4, a & 15, min(a, 100), 1 if a & 15 == 5 else 2, f]) + b"!")]


DIGEST_PROG = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct d_t { bit<8> x; bit<9> port; }
struct m_t { d_t d; }
struct hs { h_t h; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        m.d.x = h.h.a;
        m.d.port = sm.ingress_port;
        if (h.h.b == 1) {
            digest<d_t>(1, m.d);
        } else {
            digest<d_t>(1, { h.h.a, sm.ingress_port });
        }
        m.d.x = m.d.x + 1;        // after the call
        h.h.a = h.h.a + 1;
        sm.egress_spec = 2;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""


def test_digest_reads_lvalue_at_end_of_ingress_and_lists_at_the_call():
    prog = compile_source(DIGEST_PROG, "digest.p4")
    pl = Pipeline(prog.device_config)
    got = []
    pl.on_digest = lambda did, vals: got.append((did, vals))
    pl.process(5, bytes([10, 1]))
    pl.process(6, bytes([20, 0]))
    did = prog.p4info.digests[0].preamble.id
    assert got == [(did, (11, 5)), (did, (20, 6))]


CSUM_PROG = """#include <core.p4>
#include <v1model.p4>
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header out_t { bit<8> err; bit<8> size; }
struct m_t { }
struct hs { ipv4_t ip; out_t o; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.ip); transition accept; } }
control VC(inout hs h, inout m_t m) {
    apply {
        verify_checksum(h.ip.isValid(),
            { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags, h.ip.frag,
              h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst }, h.ip.csum, HashAlgorithm.csum16);
    }
}
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.err = (bit<8>) sm.checksum_error;
        h.o.size = h.ip.minSizeInBytes() + (bit<8>) hs.minSizeInBits();
        sm.egress_spec = 1;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.ip); p.emit(h.o); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""


def test_verify_checksum_sets_checksum_error_without_dropping():
    from scapy.all import IP
    pl = Pipeline(compile_source(CSUM_PROG, "csum.p4").device_config)
    good = bytes(IP(src="1.2.3.4", dst="5.6.7.8"))
    bad = good[:10] + bytes([good[10] ^ 0xFF]) + good[11:]
    assert pl.process(0, good) == [(1, good + bytes([0, 20 + 176]))]
    assert pl.process(0, bad) == [(1, bad + bytes([1, 20 + 176]))]


def test_field_names_that_clash_with_python():
    text = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> copy; bit<8> pack; bit<8> class; bit<8> copy_; }
struct m_t { bit<8> reset; bit<8> lambda; }
struct hs { h_t h; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        m.reset = h.h.copy; m.lambda = h.h.class;
        h.h.copy = h.h.pack; h.h.pack = m.reset; h.h.class = m.lambda + h.h.copy_;
        sm.egress_spec = 3;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""
    pl = Pipeline(compile_source(text, "names.p4").device_config)
    assert pl.process(0, bytes([1, 2, 3, 4])) == [(3, bytes([2, 1, 7, 4]))]


UDP_PROG = """#include <core.p4>
#include <v1model.p4>
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
struct m_t { }
struct hs { ipv4_t ip; udp_t udp; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.ip); p.extract(h.udp); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply { h.udp.dport = 5353; sm.egress_spec = 1; }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) {
    apply {
        update_checksum_with_payload(h.udp.isValid(),
            { h.ip.src, h.ip.dst, 8w0, h.ip.proto, h.udp.len,
              h.udp.sport, h.udp.dport, h.udp.len }, h.udp.csum, HashAlgorithm.csum16);
    }
}
control D(packet_out p, in hs h) { apply { p.emit(h.ip); p.emit(h.udp); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""


def test_udp_checksum_with_payload_matches_scapy():
    from scapy.all import IP, UDP, Raw
    pl = Pipeline(compile_source(UDP_PROG, "udp.p4").device_config)
    for payload in (b"", b"odd", b"even", bytes(range(200))):
        f = IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1000, dport=53) / Raw(payload)
        exp = IP(bytes(f))
        exp[UDP].dport = 5353
        del exp[UDP].chksum
        out = pl.process(0, bytes(f))
        assert out == [(1, bytes(IP(bytes(exp))))]


def test_bad_device_config_is_a_clear_error():
    from switch.runtime import Unsupported
    with pytest.raises(Unsupported, match="checkmate-v1model-ir/1"):
        Pipeline({"program": "x"})
    with pytest.raises(Unsupported, match="not a checkmate-v1model-ir/1 IR"):
        Pipeline({"format": "bmv2-json", "program": "x"})


def test_dynamic_stack_index_out_of_bounds_drops_with_a_trace_line():
    text = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> i; }
header e_t { bit<8> v; }
struct m_t { }
struct hs { h_t h; e_t[2] s; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply { h.s[h.h.i].setValid(); h.s[h.h.i].v = 7; sm.egress_spec = 1; }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); p.emit(h.s); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""
    pl = Pipeline(compile_source(text, "idx.p4").device_config)
    assert pl.process(0, b"\x01") == [(1, b"\x01\x07")]
    lines = []
    pl.trace = lines.append
    assert pl.process(0, b"\x05") == []
    assert any("out of bounds" in ln for ln in lines)


def test_signed_fields_in_tables_selects_and_arithmetic():
    text = """#include <core.p4>
#include <v1model.p4>
header h_t { int<8> s; bit<8> res; int<8> neg; }
struct m_t { }
struct hs { h_t h; }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start {
        p.extract(h.h);
        transition select(h.h.s) { -128 .. -2: accept; default: accept; }
    } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    action set(bit<8> v) { h.h.res = v; }
    table t { key = { h.h.s : exact; } actions = { set; NoAction; }
              const entries = { 5 : set(0x33); } }
    table u { key = { h.h.s : exact; } actions = { set; NoAction; } }
    apply {
        t.apply(); u.apply();
        h.h.neg = -h.h.s >> 1;
        sm.egress_spec = 1;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""
    # (a negative single label, `-1: accept`, is refused at load as simple_switch refuses p4c's
    # "-0x01" -- test_load_refused2; the range is written as masks and loads on both)
    pl = Pipeline(compile_source(text, "signed.p4").device_config)
    pl.insert("I.u", {"h.h.s": 0xFE}, "I.set", {"v": 0x22})     # -2 as the control plane sends it
    # (a negative const entry value, `-3 : set(0x33)`, is refused as by p4c: "Negative values not supported yet")
    assert pl.process(0, bytes([0xFD, 0, 0])) == [(1, bytes([0xFD, 0x00, 1]))]   # -(-3) >> 1 = 1
    assert pl.process(0, bytes([0xFE, 0, 0])) == [(1, bytes([0xFE, 0x22, 1]))]
    assert pl.process(0, bytes([0x05, 0, 0])) == [(1, bytes([0x05, 0x33, 0xFD]))]  # -5 >> 1 = -3
