"""Reference values the tests compare the switch against, written independently of it.

The embedded target's hash externs live in ``switch/runtime/externs.py``; a test that imported them
to compute its expectation could never fail.  These are the textbook definitions, kept in one place
so every test that needs one uses the same oracle.
"""
from __future__ import annotations


def crc16_arc(data: bytes) -> int:
    """CRC-16/ARC (what v1model calls ``crc16``): poly 0x8005 reflected (0xA001), init 0, no xorout."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc
