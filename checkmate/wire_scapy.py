"""Scapy dissector for the Checkmate header (tests, pcaps, interactive use).

Built from :data:`checkmate.wire.FIELDS`, so it cannot drift from the packer.
Bound to UDP on both :data:`CHECKMATE_UDP_PORT` and :data:`SHADOW_UDP_PORT`.
Keep scapy out of hot paths: it parses only a few thousand packets per second.
"""
from __future__ import annotations

from scapy.fields import BitField, ByteEnumField, FlagsField
from scapy.layers.inet import UDP
from scapy.packet import Packet, Raw, bind_layers, split_layers

from . import wire

_FLAG_NAMES = ["FINAL", "ACK", "RETX", "CTRL", "F4", "F5", "F6", "F7"]


def _field(name: str, bits: int):
    if name == "flags":
        return FlagsField("flags", 0, 8, _FLAG_NAMES)
    if name == "dtype":
        return ByteEnumField("dtype", wire.DTYPE_FP32, dict(wire.DTYPE_NAME))
    if name == "version":
        return BitField("version", wire.WIRE_VERSION, 8)
    return BitField(name, 0, bits)


class Checkmate(Packet):
    name = "Checkmate"
    fields_desc = [_field(n, b) for n, b in wire.FIELDS]

    def extract_padding(self, s):
        n = self.count * wire.DTYPE_SIZE.get(self.dtype, 4)
        return s[:n], s[n:]

    def mysummary(self):
        return self.sprintf("Checkmate job=%job_id% it=%iteration% rank=%rank% "
                            "param=%param_id%+%offset% n=%count% %flags%")


# scapy's VXLAN layer also claims UDP 48879 (0xBEEF) in both directions; on a
# Checkmate testbed that port is ours, so drop VXLAN's claim before binding.
try:
    from scapy.layers.vxlan import VXLAN
except ImportError:  # pragma: no cover - VXLAN ships with scapy
    VXLAN = None
if VXLAN is not None:
    for _port in (wire.CHECKMATE_UDP_PORT, wire.SHADOW_UDP_PORT):
        for _direction in ("dport", "sport"):
            split_layers(UDP, VXLAN, **{_direction: _port})
bind_layers(UDP, Checkmate, dport=wire.CHECKMATE_UDP_PORT)
bind_layers(UDP, Checkmate, dport=wire.SHADOW_UDP_PORT)
bind_layers(Checkmate, Raw)
