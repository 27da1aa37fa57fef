"""Small dataclasses exchanged at the control-plane seam of the pipeline.

They mirror P4Runtime's messages with plain Python ints in place of byte strings
(the P4Runtime server does the bytes <-> int conversion, the pipeline validates
widths):

* :class:`FieldMatch` -- one match field of a table entry, addressed by its P4Info
  match-field id.  ``kind`` is one of ``exact``, ``lpm``, ``ternary``, ``range``,
  ``optional``.  As in P4Runtime, a ternary/lpm/range/optional field that is left
  out of an entry is a wildcard ("don't care").
* :class:`TableEntry` -- match key + priority + action (id and ``{param_id: int}``),
  with optional direct-counter data and direct-meter config.  Entries are keyed by
  (match, priority); tables with ternary/range/optional keys need ``priority > 0``
  and the highest priority wins (P4Runtime semantics; BMv2 inverts the number
  internally, we do not need to).  In a table compiled with ``support_timeout`` an entry
  carries its P4Runtime ``idle_timeout_ns``; the pipeline's reads add ``since_hit_ms`` (the
  milliseconds since the entry was last hit, inserted or modified).
* :class:`CounterData`, :class:`MeterConfig` -- counter cells and trTCM parameters.
"""
from __future__ import annotations

from dataclasses import dataclass, field

MATCH_KINDS = ("exact", "lpm", "ternary", "range", "optional")


@dataclass(frozen=True)
class FieldMatch:
    """One match field of an entry.

    ``value`` is the exact value, the LPM prefix, the ternary value, the range's low
    bound or the optional value; ``mask`` (ternary), ``prefix_len`` (lpm) and
    ``high`` (range) complete it.  Use the constructors :meth:`exact`, :meth:`lpm`,
    :meth:`ternary`, :meth:`range`, :meth:`optional`.
    """

    field_id: int
    kind: str
    value: int
    mask: int | None = None
    prefix_len: int | None = None
    high: int | None = None

    @classmethod
    def exact(cls, field_id: int, value: int) -> "FieldMatch":
        return cls(field_id, "exact", value)

    @classmethod
    def lpm(cls, field_id: int, value: int, prefix_len: int) -> "FieldMatch":
        return cls(field_id, "lpm", value, prefix_len=prefix_len)

    @classmethod
    def ternary(cls, field_id: int, value: int, mask: int) -> "FieldMatch":
        return cls(field_id, "ternary", value, mask=mask)

    @classmethod
    def range(cls, field_id: int, low: int, high: int) -> "FieldMatch":
        return cls(field_id, "range", low, high=high)

    @classmethod
    def optional(cls, field_id: int, value: int) -> "FieldMatch":
        return cls(field_id, "optional", value)


@dataclass
class CounterData:
    """One counter cell (both counts, whatever the counter's unit: BMv2 counts both)."""

    packets: int = 0
    bytes: int = 0


def unit_write(unit: str, cell, data: CounterData) -> list[int]:
    """A counter cell ``[packets, bytes]`` after a control-plane write of ``data``: the counts of the
    counter's unit (packets, bytes, packets_and_bytes) are set, the other one is kept -- BMv2 counts
    both in every counter, and simple_switch_grpc's P4Runtime writes set the unit's only (a counter
    entry or a direct counter entry keeps the other count; a table entry's counter_data on INSERT
    or MODIFY starts it from ``[0, 0]``)."""
    return [int(data.packets) if unit != "bytes" else cell[0],
            int(data.bytes) if unit != "packets" else cell[1]]


@dataclass
class MeterConfig:
    """Two-rate three-colour meter (RFC 2698) parameters, as P4Runtime's MeterConfig:
    committed/peak information rate in units (bytes or packets, per the meter's
    type) per second, bursts in units."""

    cir: int
    cburst: int
    pir: int
    pburst: int


@dataclass
class TableEntry:
    """A table entry in P4Runtime terms (ids and ints).

    ``params`` maps P4Info action-parameter ids (1..n) to values.  ``counter`` is the
    direct-counter cell (filled in by :meth:`Pipeline.table_entries`; on insert/modify
    it sets the initial value when given).  ``meter`` is the direct-meter config.
    ``is_const`` marks entries that came from the program's ``const entries``.
    Entries of a table with an action profile name a ``member_id`` or a ``group_id`` of
    the profile instead of an action (``action_id`` 0).
    """

    matches: list[FieldMatch] = field(default_factory=list)
    action_id: int = 0
    params: dict[int, int] = field(default_factory=dict)
    priority: int = 0
    counter: CounterData | None = None
    meter: MeterConfig | None = None
    is_default: bool = False
    is_const: bool = False
    member_id: int | None = None
    group_id: int | None = None
    idle_timeout_ns: int = 0
    since_hit_ms: int | None = None
    from_program: bool = False   # installed by the program's JSON, not written through P4Runtime
