"""verify_checksum / update_checksum (csum16) for IPv4.

v1model/BMv2: a wrong checksum does not drop the packet; ingress sees
standard_metadata.checksum_error == 1 (simple_switch.md "Restrictions on code in the
VerifyChecksum control"); update_checksum in ComputeChecksum writes the RFC 1071
checksum of the listed fields (the checksum field itself excluded) before deparsing.
Expected frames are rebuilt with scapy, which computes the IPv4 checksum itself.
"""
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4conf import Switch

PROG = "checksum.p4"


@pytest.fixture(scope="module")
def sw():
    return Switch(PROG)


def pkt(ttl=64, chksum=None, **ip):
    return Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / \
        IP(src="192.168.1.1", dst="10.9.8.7", ttl=ttl, chksum=chksum, id=0x4242, **ip) / \
        UDP(sport=1, dport=2) / b"checksummed payload"


@pytest.mark.parametrize("ttl,tos,flags", [(64, 0, 0), (1, 0xB8, 2), (255, 3, 1)])
def test_good_checksum_ttl_decrement_and_update(sw, ttl, tos, flags):
    f = bytes(pkt(ttl, tos=tos, flags=flags))
    expect = pkt(ttl - 1, tos=tos, flags=flags)
    port, out = sw.send1(1, f)
    assert port == 1
    assert out == bytes(expect)
    # the UDP checksum was computed by scapy over the original header and is untouched
    assert out[14 + 20:] == f[14 + 20:]


def test_ttl_zero_wraps_to_255(sw):
    f = bytes(pkt(0))
    assert sw.send1(1, f) == (1, bytes(pkt(255)))


def test_bad_checksum_sets_checksum_error_and_is_repaired_on_output(sw):
    good = bytes(pkt(64))
    bad = bytearray(good)
    bad[14 + 10] ^= 0xFF             # corrupt hdrChecksum
    port, out = sw.send1(1, bytes(bad))
    assert port == 2                 # ingress saw checksum_error == 1, packet not dropped
    assert out == bytes(pkt(63))     # update_checksum recomputed it


def test_non_ipv4_untouched(sw):
    f = bytes(Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01", type=0x86DD)) + b"\x60" + b"\0" * 39
    assert sw.send1(1, f) == (1, f)
