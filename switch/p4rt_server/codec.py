"""P4Runtime byte strings <-> Python ints, with width checks.

P4Runtime carries every ``bit<W>`` value as a big-endian byte string.  A client may
send the *canonical* form (no leading zero bytes, one ``\\x00`` byte for zero) or a
form padded with zero bytes; both are accepted as long as the value fits in W bits
(as PI/BMv2 do).  The server always answers with the canonical form, so that what a
client reads back is byte-for-byte what a canonical client wrote (read/write
symmetry).  An empty string -- what an unset ``bytes`` field looks like -- is zero,
as PI/BMv2 read it: an exact or optional match value, a range's low end, an action
parameter (``fuzz_p4rt`` seeds 3020/3023/3049; tests/differential/test_p4rt_vs_bmv2_writes.py).

Errors are :class:`~switch.p4rt_server.errors.P4RTError` with INVALID_ARGUMENT and a
message naming the object and field (``what``) and the offending value.
"""
from __future__ import annotations

from grpc import StatusCode

from .errors import P4RTError


def decode(data: bytes, bitwidth: int, what: str) -> int:
    """Return the int carried by ``data``; raise INVALID_ARGUMENT if it does not fit ``bitwidth``."""
    value = int.from_bytes(data, "big")
    if bitwidth > 0 and value >> bitwidth:
        raise P4RTError(StatusCode.INVALID_ARGUMENT,
                        f"{what}: value 0x{data.hex()} does not fit in {bitwidth} bits")
    return value


def encode(value: int, bitwidth: int = 0) -> bytes:
    """Canonical P4Runtime byte string of a non-negative int (``b'\\x00'`` for zero)."""
    if value < 0:
        value &= (1 << bitwidth) - 1 if bitwidth else 0
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def encode_padded(value: int, bitwidth: int) -> bytes:
    """Full-width big-endian encoding (used for controller headers on the wire)."""
    return value.to_bytes((bitwidth + 7) // 8, "big")


def mask_of(bitwidth: int) -> int:
    return (1 << bitwidth) - 1


def prefix_mask(bitwidth: int, prefix_len: int) -> int:
    """The mask that keeps the ``prefix_len`` most significant bits of a ``bitwidth`` field."""
    return mask_of(bitwidth) ^ mask_of(bitwidth - prefix_len)
