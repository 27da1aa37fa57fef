"""v1model extern objects and functions of the embedded target.

Stateful arrays (:class:`CounterArray`, :class:`RegisterArray`, :class:`MeterArray`)
are shared by the generated code and the control plane.  Their cells live in a plain
list allocated at load for arrays of up to :data:`DENSE_CELLS` cells (the common case:
one list index per access), and in a :class:`SparseCells` dict of the cells written so
far for larger ones, so that ``register<bit<32>>(1 << 28)`` (p4c compiles any bit<32>
size) loads at once and costs memory only for the cells the program or the control
plane wrote; both are indexed the same way (``cells[i]``, ``cells[i] = v``), so the
methods below have one code path.  A counter keeps two such arrays (packets, bytes) of
ints.  :func:`hash_value` and
:func:`csum16` implement the hash algorithms of v1model as BMv2 computes them over
the byte string of a field list (fields concatenated MSB first, padded with zero bits
at the end to a whole byte).
"""
from __future__ import annotations

import struct
import zlib

from .entries import CounterData, MeterConfig, unit_write
from .errors import EntryNotFound, InvalidEntry, Unsupported

GREEN, YELLOW, RED = 0, 1, 2


def _index_check(kind: str, name: str, size: int, index: int) -> None:
    if not isinstance(index, int) or not 0 <= index < size:
        raise InvalidEntry(f"{kind} {name}: index {index!r} out of range 0..{size - 1}")


#: most cells of one counter/register/meter: p4c's sizes are bit<32> (its JSON holds 2**32-1 for a
#: counter of size -1); a larger size can only come from a hand-written device config
MAX_CELLS = (1 << 32) - 1
#: arrays of at most this many cells are lists allocated at load (8 MiB of references at most)
DENSE_CELLS = 1 << 20


class SparseCells(dict):
    """The cells of a large array that were written (index -> value); any other cell reads
    ``default`` -- a read stores nothing, so reading costs no memory."""

    __slots__ = ("default",)

    def __init__(self, default):
        super().__init__()
        self.default = default

    def __missing__(self, index):
        return self.default


def new_cells(kind: str, name: str, size: int, default):
    """``size`` cells reading ``default`` (an immutable value): a list, or :class:`SparseCells`
    above :data:`DENSE_CELLS` cells."""
    if not isinstance(size, int) or not 0 <= size <= MAX_CELLS:
        raise ValueError(f"{kind} {name}: size {size} is more cells than the embedded target allocates "
                         f"(at most {MAX_CELLS})")
    return [default] * size if size <= DENSE_CELLS else SparseCells(default)


class CounterArray:
    """An indexed (or direct) counter; ``kind`` is packets, bytes or packets_and_bytes."""

    def __init__(self, spec: dict):
        self.name, self.id, self.size = spec["name"], spec["id"], spec.get("size", 0)
        self.kind = spec["unit"]
        self.packets = new_cells("counter", self.name, self.size, 0)
        self.bytes = new_cells("counter", self.name, self.size, 0)

    def count(self, index: int, nbytes: int) -> None:
        if 0 <= index < self.size:
            self.packets[index] += 1
            self.bytes[index] += nbytes

    def read(self, index: int) -> CounterData:
        """Both counts whatever the unit: BMv2 counts packets and bytes in every counter, and
        simple_switch_grpc answers a P4Runtime read of a packets-only (bytes-only) counter with both."""
        _index_check("counter", self.name, self.size, index)
        return CounterData(self.packets[index], self.bytes[index])

    def read_all(self, start: int = 0, stop: int | None = None) -> list[CounterData]:
        """Every cell, in index order (a wildcard read: as BMv2, whatever the size), or those of
        ``start``..``stop`` (a chunk of one: Pipeline.array_cells)."""
        stop = self.size if stop is None else min(stop, self.size)
        pk, by = self.packets, self.bytes
        if isinstance(pk, list):
            return [CounterData(p, b) for p, b in zip(pk[start:stop], by[start:stop])]
        return [CounterData(pk[i], by[i]) for i in range(start, stop)]

    def write(self, index: int, data: CounterData) -> None:
        _index_check("counter", self.name, self.size, index)
        self.packets[index], self.bytes[index] = unit_write(
            self.kind, (self.packets[index], self.bytes[index]), data)



class RegisterArray:
    """A ``register<bit<W>>(N)``; values are stored as unsigned ints of width W."""

    def __init__(self, spec: dict):
        self.name, self.id, self.size, self.width = spec["name"], spec["id"], spec["size"], spec["width"]
        self.values = new_cells("register", self.name, self.size, 0)

    def read(self, index: int) -> int:
        _index_check("register", self.name, self.size, index)
        return self.values[index]

    def read_all(self, start: int = 0, stop: int | None = None) -> list[int]:
        """Every value, in index order (or those of ``start``..``stop``, as CounterArray.read_all)."""
        stop = self.size if stop is None else min(stop, self.size)
        v = self.values
        return v[start:stop] if isinstance(v, list) else [v[i] for i in range(start, stop)]

    def get(self, index: int) -> int:
        """Data-plane read: an index out of range reads 0."""
        return self.values[index] if 0 <= index < self.size else 0

    def get_or_none(self, index: int) -> int | None:
        """``register.read``'s cell: None for an index out of range (BMv2's register_read then
        writes nothing: the destination keeps its value)."""
        return self.values[index] if 0 <= index < self.size else None

    def put(self, index: int, value: int) -> None:
        """Data-plane write: an index out of range is ignored."""
        if 0 <= index < self.size:
            self.values[index] = value

    def write(self, index: int | None, value: int) -> None:
        """One cell, or every cell when ``index`` is None (a P4Runtime write without an index: one
        step for a sparse array, not one per cell)."""
        if index is not None:
            _index_check("register", self.name, self.size, index)
        if not isinstance(value, int) or not 0 <= value < (1 << self.width):
            raise InvalidEntry(f"register {self.name}: value {value!r} does not fit in bit<{self.width}>")
        if index is not None:
            self.values[index] = value
        elif isinstance(self.values, list):
            self.values[:] = [value] * self.size
        else:
            self.values.clear()
            self.values.default = value


class MeterState:
    """Token buckets of one two-rate three-colour meter cell (RFC 2698, colour-blind)."""

    __slots__ = ("cfg", "tc", "tp", "last")

    def __init__(self, cfg: MeterConfig, now_us: int):
        self.cfg, self.tc, self.tp, self.last = cfg, cfg.cburst, cfg.pburst, now_us

    def execute(self, units: int, now_us: int) -> int:
        cfg = self.cfg
        dt = max(0, now_us - self.last)
        self.last = now_us
        self.tc = min(cfg.cburst, self.tc + cfg.cir * dt / 1e6)
        self.tp = min(cfg.pburst, self.tp + cfg.pir * dt / 1e6)
        if self.tp < units:
            return RED
        self.tp -= units
        if self.tc < units:
            return YELLOW
        self.tc -= units
        return GREEN


class ValueSet:
    """A parser ``value_set``: members are (value, mask) pairs over the select key; a key
    matches a member when ``key & mask == value``.  A ``value_set<S>`` of a struct has one
    P4Runtime match field per member of ``S`` (ids 1.., widths in ``spec["fields"]``); the
    select key is then the concatenation of the tuple's keys, first key most significant,
    as in BMv2's ``parse_vset`` (exact fields get an all-ones mask, ternary ones their
    mask, LPM ones the prefix's mask).  A field p4c lists as ``@match(range)`` takes a
    range member (BMv2 cannot be written at all, see docs/CONFORMANCE.md): it adds a
    ``low <= bits <= high`` test on its slice of the key and nothing to the mask."""

    def __init__(self, spec: dict):
        self.name, self.id, self.size, self.width = spec["name"], spec["id"], spec["size"], spec["width"]
        self.fields: list[int] = [int(f["width"]) for f in spec.get("fields") or []] or [self.width]
        # their P4Runtime ids (p4c's FieldIdAllocator: a field's @id, ids.field_ids), else positions
        self.field_ids: list[int] = [int(f.get("id", i)) for i, f in enumerate(spec.get("fields") or [], 1)] or [1]
        self.pairs: list[tuple[int, int, tuple]] = []   # (value, mask, range tests)
        self.members: list[list] = []

    def match(self, key: int) -> bool:
        for v, m, ranges in self.pairs:
            if key & m == v and all(lo <= (key >> sh) & full <= hi for sh, full, lo, hi in ranges):
                return True
        return False

    def _member(self, mem) -> tuple[int, int, tuple]:
        by_id = {}
        for fm in mem:
            if fm.field_id not in self.field_ids:
                raise InvalidEntry(f"value_set {self.name}: no match field with id {fm.field_id}")
            if fm.field_id in by_id:
                raise InvalidEntry(f"value_set {self.name}: match field {fm.field_id} given twice")
            by_id[fm.field_id] = fm
        value = mask = 0
        ranges, shift = [], sum(self.fields)
        for fid, w in zip(self.field_ids, self.fields):
            full = (1 << w) - 1
            shift -= w
            fm = by_id.get(fid)
            if fm is None:
                raise InvalidEntry(f"value_set {self.name}: a member lacks match field {fid}")
            if fm.kind == "range" and fm.high is not None:
                if not 0 <= fm.value <= fm.high <= full:
                    raise InvalidEntry(f"value_set {self.name}: range {fm.value!r}..{fm.high!r} of field {fid} "
                                       f"is empty or does not fit bit<{w}>")
                ranges.append((shift, full, fm.value, fm.high))
                value, mask = value << w, mask << w
                continue
            if fm.kind == "exact":
                m = full
            elif fm.kind == "ternary" and fm.mask is not None:
                m = fm.mask
            elif fm.kind == "lpm" and fm.prefix_len is not None and 0 <= fm.prefix_len <= w:
                m = full ^ ((1 << (w - fm.prefix_len)) - 1)
            else:
                raise InvalidEntry(f"value_set {self.name}: member match must be exact, ternary, lpm or range")
            if not 0 <= fm.value <= full or not 0 <= m <= full or fm.value & ~m:
                raise InvalidEntry(f"value_set {self.name}: value {fm.value!r}/mask {m!r} of field {fid} does "
                                   f"not fit bit<{w}>")
            value, mask = (value << w) | fm.value, (mask << w) | m
        return value, mask, tuple(ranges)

    def write(self, members) -> None:
        """Replace the members: each is [FieldMatch] (exact, ternary, lpm or range) as in P4Runtime."""
        members = list(members)
        if len(members) > self.size:
            raise InvalidEntry(f"value_set {self.name}: {len(members)} members, size is {self.size}")
        self.pairs = [self._member(mem) for mem in members]
        self.members = [sorted(mem, key=lambda fm: fm.field_id) for mem in members]

    def read(self) -> list:
        """The members as written (their FieldMatch lists, field order by id)."""
        return [list(m) for m in self.members]


def check_meter_config(name: str, cfg: MeterConfig) -> None:
    for f in ("cir", "cburst", "pir", "pburst"):
        v = getattr(cfg, f)
        if not isinstance(v, int) or v < 0:
            raise InvalidEntry(f"meter {name}: {f} {v!r} must be a non-negative int")
    if cfg.pir < cfg.cir:
        raise InvalidEntry(f"meter {name}: pir {cfg.pir} < cir {cfg.cir}")


def left_after_refusal(old: MeterConfig | None, cfg: MeterConfig) -> MeterConfig | None:
    """The config a cell holds after ``cfg`` was refused (:func:`check_meter_config` raised),
    as on BMv2 1.15.5: a write with ``pir < cir`` to a configured cell is refused only after
    BMv2 sorted the two (rate, burst) pairs by rate and stored them, so the cell then reads
    (and meters with) cir/cburst = the refused pir/pburst and pir/pburst = the refused
    cir/cburst; an unconfigured cell stays unconfigured, and any other refusal changes nothing
    (fuzz_p4rt seed 52)."""
    if old is None or cfg.pir >= cfg.cir or min(cfg.cir, cfg.cburst, cfg.pir, cfg.pburst) < 0:
        return old
    return MeterConfig(cir=cfg.pir, cburst=cfg.pburst, pir=cfg.cir, pburst=cfg.cburst)


class MeterArray:
    """An indexed meter; an unconfigured cell marks every packet GREEN (as BMv2)."""

    def __init__(self, spec: dict):
        self.name, self.id, self.size = spec["name"], spec["id"], spec.get("size", 0)
        self.unit = spec["unit"]
        self.cells: list[MeterState | None] | SparseCells = new_cells("meter", self.name, self.size, None)

    def set(self, index: int, cfg: MeterConfig | None, now_us: int) -> None:
        _index_check("meter", self.name, self.size, index)
        if cfg is None:
            self.cells[index] = None
            return
        try:
            check_meter_config(self.name, cfg)
        except InvalidEntry:
            old = self.cells[index]
            left = left_after_refusal(None if old is None else old.cfg, cfg)
            if old is not None and left is not old.cfg:
                self.cells[index] = MeterState(left, now_us)
            raise
        self.cells[index] = MeterState(cfg, now_us)

    def get(self, index: int) -> MeterConfig | None:
        _index_check("meter", self.name, self.size, index)
        c = self.cells[index]
        return None if c is None else c.cfg

    def execute(self, index: int, nbytes: int, now_us: int) -> int | None:
        """The colour of a packet of ``nbytes``; None for an index out of range (BMv2 then
        updates nothing, the destination included)."""
        if not 0 <= index < self.size:
            return None
        c = self.cells[index]
        if c is None:
            return GREEN
        return c.execute(nbytes if self.unit == "bytes" else 1, now_us)


# -- hashes ---------------------------------------------------------------------------

def _to_bytes(value: int, bits: int) -> bytes:
    pad = (-bits) % 8
    return (value << pad).to_bytes((bits + pad) // 8, "big")


def csum16(value: int, bits: int) -> int:
    """Internet checksum (RFC 1071) of a field list, as BMv2's ``csum16``.

    The ones'-complement sum of the 16-bit words of ``v`` (zero-padded at the end to a
    multiple of 16 bits) is congruent to ``v`` modulo 0xFFFF (2**16 = 1 mod 0xFFFF), and
    lies in 1..0xFFFF unless every word is 0, so one big-int modulo replaces the loop.
    """
    v = value << ((-bits) % 16)
    if v == 0:
        return 0xFFFF
    return 0xFFFF - (v % 0xFFFF or 0xFFFF)


def csum16_reference(data: bytes) -> int:
    """Word-by-word RFC 1071 checksum of a byte string (tests compare against it)."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _crc16_arc(data: bytes) -> int:
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def _xor16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    r = 0
    for i in range(0, len(data), 2):
        r ^= (data[i] << 8) | data[i + 1]
    return r


# p4c's JSON names crc16_custom / crc32_custom as such; unconfigured, BMv2 computes them with
# crc16's / crc32's parameters (checkmate-p4c maps the names when compiling)
_UNCONFIGURED_CUSTOM = {"crc16_custom": "crc16", "crc32_custom": "crc32"}


def hash_value(algo: str, value: int, bits: int) -> int:
    """Hash of a field list (``value`` of ``bits`` bits) with a v1model HashAlgorithm."""
    algo = _UNCONFIGURED_CUSTOM.get(algo, algo)
    if algo == "csum16":
        return csum16(value, bits)
    data = _to_bytes(value, bits)
    if algo == "identity":
        # BMv2's identity reads the field list's bytes (zero-padded at the end to whole bytes)
        # as a big-endian uint64_t: a wider list keeps its first 8 bytes
        return int.from_bytes(data[:8], "big")
    if algo == "crc32":
        return zlib.crc32(data)
    if algo == "crc16":
        return _crc16_arc(data)
    if algo == "xor16":
        return _xor16(data)
    raise Unsupported(f"hash algorithm {algo} is not supported by the embedded target")


__all__ = ["CounterArray", "EntryNotFound", "GREEN", "MeterArray", "RED", "RegisterArray",
           "SparseCells", "YELLOW", "csum16", "hash_value", "new_cells"]
