"""Parser: extract, select (value / mask / range / default), lookahead, header stacks
in the parser (next / last), verify() and parser errors, unparsed payload.

BMv2 facts used (docs/CONFORMANCE.md, "Parser"):
* a parser error does not drop the packet: ingress runs with
  standard_metadata.parser_error set (simple_switch.md, "Restrictions on parser code");
* on an error BMv2 stops parsing, keeps the headers extracted so far valid and keeps
  every byte not yet extracted as payload (bm_sim/parser.cpp, Parser::parse:
  `break; ... pkt->remove(bytes_parsed)`);
* extracting into a full stack raises StackOutOfBounds, a short packet
  PacketTooShort (parser.cpp, ParserOpExtractStack / check_enough_data_for_extract).
"""
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4conf import Switch, eth, u8, u16

PROG = "parser.p4"

E_OK, E_SHORT, E_NOMATCH, E_STACK, E_BADIHL = 0, 1, 2, 3, 10
V_ETH, V_VLAN0, V_VLAN1, V_IPV4, V_UDP, V_TAG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


@pytest.fixture
def sw():
    return Switch(PROG)


def rep(err=E_OK, path=0, valid=V_ETH, la=0):
    return u8(err, path, valid, la)


def with_report(frame: bytes, report: bytes) -> bytes:
    """The ingress inserts report_t right after the 14-byte Ethernet header."""
    return frame[:14] + report + frame[14:]


def ipv4_udp(payload=b"hello, payload"):
    p = Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / \
        IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1234, dport=5678) / payload
    return bytes(p)


def test_ipv4_udp_all_headers_valid_payload_kept(sw):
    f = ipv4_udp()
    port, out = sw.send1(1, f)
    assert port == 2
    assert out == with_report(f, rep(valid=V_ETH | V_IPV4 | V_UDP))


def test_ipv4_non_udp_default_transition(sw):
    f = bytes(Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") /
              IP(src="1.2.3.4", dst="5.6.7.8", proto=6) / (b"\x00" * 20))
    assert sw.send1(1, f) == (2, with_report(f, rep(valid=V_ETH | V_IPV4)))


@pytest.mark.parametrize("etype", [0x9000, 0x9ABC, 0x9FFF])
def test_select_mask_matches(sw, etype):
    f = eth(etype) + b"\xde\xad\xbe\xef"
    assert sw.send1(0, f) == (2, with_report(f, rep(path=2)))


@pytest.mark.parametrize("etype", [0x0600, 0x0655, 0x06FF])
def test_select_range_matches_inclusive_bounds(sw, etype):
    f = eth(etype) + b"\x01\x02"
    assert sw.send1(3, f) == (2, with_report(f, rep(path=3)))


@pytest.mark.parametrize("etype", [0x05FF, 0x0700, 0x8FFF, 0xA000, 0x1234])
def test_select_default(sw, etype):
    f = eth(etype) + b"\x01\x02\x03"
    assert sw.send1(3, f) == (2, with_report(f, rep(path=0)))


def test_lookahead_selects_and_does_not_consume(sw):
    f = eth(0x88B5) + u8(0x01, 0x7F) + b"rest"
    # lookahead reads 0x01 without advancing; tag_t is then extracted from the same bytes;
    # the tuple select (0x01, 0x00 &&& 0x80) matches value 0x7F -> tag_low (path 5)
    assert sw.send1(1, f) == (2, with_report(f, rep(path=5, valid=V_ETH | V_TAG, la=0x01)))


@pytest.mark.parametrize("value,path", [(0x00, 5), (0x7F, 5), (0x80, 4), (0xEF, 4),
                                        (0xF0, 6), (0xFF, 6)])
def test_tuple_select_mask_range_and_wildcard(sw, value, path):
    f = eth(0x88B5) + u8(0x01, value) + b"rest"
    # (0x01, mask) -> 5; (0x01, range) -> 6; (_, _) -> accept with meta.path still 4
    assert sw.send1(1, f) == (2, with_report(f, rep(path=path, valid=V_ETH | V_TAG, la=0x01)))


def test_sub_byte_lookahead_selects_ipv4_by_version(sw):
    inner = ipv4_udp()[14:]
    f = eth(0x8847) + inner
    assert sw.send1(1, f) == (2, with_report(f, rep(path=7, valid=V_ETH | V_IPV4 | V_UDP)))
    g = eth(0x8847) + b"\x60" + inner[1:]          # version 6: default -> accept
    assert sw.send1(1, g) == (2, with_report(g, rep(path=7)))


def test_lookahead_default_branch_keeps_bytes_as_payload(sw):
    f = eth(0x88B5) + u8(0x07, 0x7F) + b"rest"
    assert sw.send1(1, f) == (2, with_report(f, rep(path=4, la=0x07)))


def test_lookahead_past_end_is_packet_too_short(sw):
    f = eth(0x88B5)  # nothing after Ethernet: lookahead<bit<8>> cannot be satisfied
    # meta.path was assigned before the failing lookahead: parser side effects stay
    assert sw.send1(1, f) == (2, with_report(f, rep(err=E_SHORT, path=4)))


def test_truncated_ipv4_packet_too_short_reaches_ingress(sw):
    full = ipv4_udp()
    f = full[:14 + 10]            # Ethernet + half an IPv4 header
    port, out = sw.send1(1, f)
    assert port == 2
    # ipv4 not extracted; its 10 bytes stay as payload behind the emitted headers
    assert out == with_report(f, rep(err=E_SHORT, valid=V_ETH))


def test_truncated_udp_keeps_ipv4_valid(sw):
    full = ipv4_udp(payload=b"")
    f = full[:14 + 20 + 5]        # IPv4 complete, UDP cut after 5 bytes
    assert sw.send1(1, f) == (2, with_report(f, rep(err=E_SHORT, valid=V_ETH | V_IPV4)))


def test_verify_failure_sets_custom_error_header_stays_valid(sw):
    # ihl = 6: verify(hdr.ipv4.ihl == 5, error.BadIhl) fails after the extract
    ip = bytearray(bytes(IP(src="10.0.0.1", dst="10.0.0.2", proto=17)))
    ip[0] = 0x46
    f = eth(0x0800) + bytes(ip) + u16(1, 2, 8, 0) + b"xyz"
    port, out = sw.send1(1, f)
    assert port == 2
    # ipv4 is valid (and re-emitted unchanged); UDP never parsed -> payload
    assert out == with_report(f, rep(err=E_BADIHL, valid=V_ETH | V_IPV4))


def vlan(vid, etype, pcp=0):
    return u16((pcp << 13) | vid, etype)


def test_single_vlan_then_ipv4(sw):
    inner = ipv4_udp()[14:]
    f = eth(0x8100) + vlan(10, 0x0800, pcp=5) + inner
    assert sw.send1(1, f) == (2, with_report(f, rep(valid=V_ETH | V_VLAN0 | V_IPV4 | V_UDP)))


def test_two_vlans_stack_last_drives_select(sw):
    inner = ipv4_udp()[14:]
    f = eth(0x8100) + vlan(10, 0x8100) + vlan(20, 0x0800) + inner
    assert sw.send1(1, f) == (
        2, with_report(f, rep(valid=V_ETH | V_VLAN0 | V_VLAN1 | V_IPV4 | V_UDP)))


def test_vlan_default_after_stack(sw):
    f = eth(0x8100) + vlan(10, 0x1234) + b"payload!"
    assert sw.send1(1, f) == (2, with_report(f, rep(valid=V_ETH | V_VLAN0)))


def test_third_vlan_stack_out_of_bounds(sw):
    inner = ipv4_udp()[14:]
    f = eth(0x8100) + vlan(1, 0x8100) + vlan(2, 0x8100) + vlan(3, 0x0800) + inner
    port, out = sw.send1(1, f)
    assert port == 2
    # both stack elements valid, the third tag and everything after it is payload
    assert out == with_report(f, rep(err=E_STACK, valid=V_ETH | V_VLAN0 | V_VLAN1))


def test_minimum_frame_only_ethernet(sw):
    f = eth(0x4321)
    assert sw.send1(5, f) == (2, with_report(f, rep()))


def test_large_payload_preserved(sw):
    payload = bytes(range(256)) * 6
    f = ipv4_udp(payload=payload)
    assert sw.send1(1, f) == (2, with_report(f, rep(valid=V_ETH | V_IPV4 | V_UDP)))


@pytest.mark.parametrize("first,port", [(0x45, 4), (0x60, 6), (0x10, 9)])
def test_lookahead_of_header_type(first, port):
    sw = Switch("lookahead_hdr.p4")
    body = u8(first, 0x3C) + b"\x01\x02\x03\x04\x05\x06" + b"tail"
    # parser copies lookahead<probe_t>().kind (0x3C) to metadata; ingress writes it to
    # etherType; the version nibble chooses the header, nothing is consumed by lookahead
    assert sw.send1(1, eth(0x0800) + body) == (port, eth(0x003C) + body)


def test_advance_drops_skipped_bytes():
    sw = Switch("advance.p4")
    f = eth(0x1234) + b"\xAA\xBB" + u8(0x10) + b"rest"
    assert sw.send1(1, f) == (2, eth(0x1234) + u8(0x11) + b"rest")


@pytest.mark.parametrize("count", [0, 1, 3, 4, 5])
def test_counter_driven_parser_loop(count):
    sw = Switch("parser_loop.p4")
    items = b"".join(u16(0x1100 + i) for i in range(6))
    f = eth(0x1234) + u8(count, 0) + items + b"end"
    parsed = min(count, 4)
    seen = parsed | (0x80 if count > 4 else 0)   # 5th extract: StackOutOfBounds
    # the parsed items are re-emitted, the rest (and "end") stays payload: bytes unchanged
    assert sw.send1(1, f) == (1, eth(0x1234) + u8(count, seen) + items + b"end")


def test_frame_shorter_than_ethernet_still_reaches_ingress(sw):
    # the very first extract fails: nothing valid, all 10 bytes stay payload, and the
    # report header made valid by ingress is emitted in front of them
    f = bytes(range(10))
    assert sw.send1(7, f) == (2, rep(err=E_SHORT, valid=0) + f)
