"""The Checkmate wire format: the one definition every component imports.

A gradient chunk travels as an ordinary UDP datagram (Ethernet / IPv4 / UDP)
whose payload starts with the fixed 32-byte *Checkmate header* below and is
followed by ``count`` gradient elements of ``dtype``.  All fields are in network
byte order (big endian), so the P4 parser in ``p4src/`` extracts them as
``bit<N>`` fields without any swapping.

    offset size field      meaning
    ------ ---- ---------- ---------------------------------------------------
       0    1   version    WIRE_VERSION (1); anything else is malformed
       1    1   flags      FLAG_FINAL | FLAG_ACK | FLAG_RETX | FLAG_CTRL
       2    1   dtype      DTYPE_FP32 (0), DTYPE_FP16 (1), DTYPE_BF16 (2)
       3    1   step       ring step of the collective that produced the packet
       4    4   job_id     training job (the switch keys shards and heartbeats on it)
       8    4   iteration  optimizer step the gradient belongs to (the heartbeat)
      12    2   rank       sender's data-parallel rank
      14    2   bucket     collective id within the iteration (DDP bucket index)
      16    4   param_id   chunk address, part 1: index of the parameter in
                           ``model.parameters()`` order -- stable across DDP's
                           bucket rebuild after step 0
      20    4   offset     chunk address, part 2: first element within that param
      24    2   count      number of elements in the payload
      26    2   aux        transport-specific (e.g. ack window); 0 if unused
      28    4   seq        transport sequence number (per sender -> receiver flow)

The payload elements are in network byte order too (big-endian IEEE 754), so
a capture reads the same on every host; ``PAYLOAD_NUMPY_DTYPE`` gives the numpy
dtype to view or build a payload with.

FINAL marks the first all-gather transmission of a fully reduced chunk: the
switch forwards it normally and replicates exactly one copy to the shadow that
owns ``(job_id, param_id)``.  A retransmitted FINAL chunk keeps FINAL and adds
RETX.  ACK packets carry no payload (``count == 0``); in an ACK ``seq`` is the
cumulative ack, ``aux`` a selective-ack bitmap and ``offset`` the receiver's
duplicate count (docs/WIRE.md).

Two ways to read a header: :meth:`ChunkHeader.unpack` builds a validated frozen
dataclass (control paths, tests); :func:`unpack_fields` returns the raw tuple
from one ``struct.unpack_from`` call with the same validation, for hot paths
that must not create objects per packet.  See ``docs/WIRE.md``.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace

#: UDP destination port of Checkmate gradient traffic between trainers.
CHECKMATE_UDP_PORT = 48879
#: Default UDP port a shadow listens on for the copies the switch rewrites to it.
SHADOW_UDP_PORT = 48880

WIRE_VERSION = 1

FLAG_FINAL = 0x01  #: fully reduced chunk, first all-gather transmission: replicate
FLAG_ACK = 0x02  #: transport acknowledgement (no payload)
FLAG_RETX = 0x04  #: retransmission (a FINAL chunk keeps FINAL)
FLAG_CTRL = 0x08  #: transport control message (no gradient payload)
FLAGS_KNOWN = FLAG_FINAL | FLAG_ACK | FLAG_RETX | FLAG_CTRL

DTYPE_FP32 = 0
DTYPE_FP16 = 1
DTYPE_BF16 = 2
DTYPE_SIZE = {DTYPE_FP32: 4, DTYPE_FP16: 2, DTYPE_BF16: 2}
DTYPE_NAME = {DTYPE_FP32: "float32", DTYPE_FP16: "float16", DTYPE_BF16: "bfloat16"}
#: Byte order of payload elements on the wire.
PAYLOAD_BYTEORDER = "big"
#: numpy dtype of payload elements (numpy has no bfloat16: move those as ">u2" and reinterpret).
PAYLOAD_NUMPY_DTYPE = {DTYPE_FP32: ">f4", DTYPE_FP16: ">f2", DTYPE_BF16: ">u2"}

HEADER = struct.Struct("!BBBBIIHHIIHHI")
HEADER_LEN = HEADER.size  # 32
assert HEADER_LEN == 32

ETH_LEN, IPV4_LEN, UDP_LEN = 14, 20, 8
#: Bytes in front of the Checkmate header inside an IPv4 packet (counts against the MTU).
IP_UDP_OVERHEAD = IPV4_LEN + UDP_LEN

# (name, bit width) in wire order -- the P4 header type mirrors this list.
FIELDS: tuple[tuple[str, int], ...] = (
    ("version", 8), ("flags", 8), ("dtype", 8), ("step", 8),
    ("job_id", 32), ("iteration", 32), ("rank", 16), ("bucket", 16),
    ("param_id", 32), ("offset", 32), ("count", 16), ("aux", 16), ("seq", 32),
)
FIELD_MAX = {name: (1 << bits) - 1 for name, bits in FIELDS}
assert HEADER.format == "!" + "".join({8: "B", 16: "H", 32: "I"}[b] for _, b in FIELDS)  # one layout
#: Byte offset of each field inside the header.
FIELD_OFFSET = {name: sum(b for _, b in FIELDS[:i]) // 8 for i, (name, _) in enumerate(FIELDS)}
#: The header as a numpy structured-type spec (``np.dtype(HEADER_RECORD)``): network byte order; a batch
#: of datagrams in one buffer is then a strided array of these records.  No numpy import here.
HEADER_RECORD = [(name, f">u{bits // 8}" if bits > 8 else "u1") for name, bits in FIELDS]


class WireError(ValueError):
    """A buffer is not a well-formed Checkmate packet; ``field`` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"checkmate header field '{field}': {message}")
        self.field = field


class TruncatedError(WireError):
    """Fewer bytes than the header (or than the header says the payload holds)."""


class VersionError(WireError):
    """Unknown header version."""


class LengthError(WireError):
    """``count`` elements of ``dtype`` do not fit in the bytes that follow the header."""


class FieldError(WireError):
    """A field holds a value that is out of range or not defined."""


def max_elements(mtu: int = 1500, dtype: int = DTYPE_FP32) -> int:
    """Largest ``count`` that fits in one IPv4/UDP datagram of the given MTU."""
    room = mtu - IP_UDP_OVERHEAD - HEADER_LEN
    if room <= 0:
        raise FieldError("count", f"MTU {mtu} leaves no room for a payload")
    return min(room // DTYPE_SIZE[dtype], FIELD_MAX["count"])


def _check_header(version: int, flags: int, dtype: int) -> None:
    if version != WIRE_VERSION:
        raise VersionError("version", f"unsupported version {version} (expected {WIRE_VERSION})")
    if flags & ~FLAGS_KNOWN:
        raise FieldError("flags", f"unknown flag bits 0x{flags & ~FLAGS_KNOWN:02x}")
    if dtype not in DTYPE_SIZE:
        raise FieldError("dtype", f"unknown dtype {dtype}")


def unpack_fields(buf, offset: int = 0, *, payload_len: int | None = None) -> tuple:
    """Validate and return the header as a raw tuple in ``FIELDS`` order.

    ``payload_len`` is the number of bytes after the header that belong to this
    packet; it defaults to the rest of ``buf``.  Raises a :class:`WireError`.
    """
    if len(buf) - offset < HEADER_LEN:
        raise TruncatedError("version", f"need {HEADER_LEN} header bytes, have {max(len(buf) - offset, 0)}")
    t = HEADER.unpack_from(buf, offset)
    _check_header(t[0], t[1], t[2])
    if payload_len is None:
        payload_len = len(buf) - offset - HEADER_LEN
    need = t[10] * DTYPE_SIZE[t[2]]
    if need > payload_len:
        raise LengthError("count", f"{t[10]} x {DTYPE_NAME[t[2]]} = {need} bytes, but only {payload_len} follow the header")
    return t


@dataclass(frozen=True, slots=True)
class ChunkHeader:
    """One Checkmate header.  Construct with keywords; ``pack`` checks ranges."""

    job_id: int = 0
    iteration: int = 0
    rank: int = 0
    param_id: int = 0
    offset: int = 0
    count: int = 0
    flags: int = 0
    dtype: int = DTYPE_FP32
    step: int = 0
    bucket: int = 0
    aux: int = 0
    seq: int = 0
    version: int = field(default=WIRE_VERSION)

    # -- encoding -------------------------------------------------------------
    def _values(self) -> tuple:
        for name, _ in FIELDS:
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0 or v > FIELD_MAX[name]:
                raise FieldError(name, f"value {v!r} outside 0..{FIELD_MAX[name]}")
        return tuple(getattr(self, name) for name, _ in FIELDS)

    def pack(self) -> bytes:
        return HEADER.pack(*self._values())

    def pack_into(self, buf, offset: int = 0) -> None:
        HEADER.pack_into(buf, offset, *self._values())

    @classmethod
    def unpack(cls, buf, offset: int = 0, *, payload_len: int | None = None) -> "ChunkHeader":
        t = unpack_fields(buf, offset, payload_len=payload_len)
        return cls(**{name: v for (name, _), v in zip(FIELDS, t)})

    # -- helpers ----------------------------------------------------------------
    @property
    def is_final(self) -> bool:
        return bool(self.flags & FLAG_FINAL)

    @property
    def is_ack(self) -> bool:
        return bool(self.flags & FLAG_ACK)

    @property
    def payload_bytes(self) -> int:
        return self.count * DTYPE_SIZE[self.dtype]

    def replace(self, **changes) -> "ChunkHeader":
        return replace(self, **changes)


def encode(header: ChunkHeader, payload=b"") -> bytes:
    """Header plus payload as one UDP payload; checks ``count`` against the payload."""
    mv = memoryview(payload).cast("B")
    if len(mv) != header.payload_bytes:
        raise LengthError("count", f"header says {header.payload_bytes} payload bytes, got {len(mv)}")
    return header.pack() + bytes(mv)


def decode(buf) -> tuple[ChunkHeader, memoryview]:
    """Split a UDP payload into its header and a zero-copy view of exactly ``count`` elements."""
    h = ChunkHeader.unpack(buf)
    mv = memoryview(buf)
    return h, mv[HEADER_LEN:HEADER_LEN + h.payload_bytes]
