"""The v1model packet pipeline of the embedded switch: one loaded P4 program.

``Pipeline(device_config)`` takes the JSON IR written by ``checkmate-p4c`` (or
``switch.compiler.compile_file(...).device_config``), turns every parser and control
into generated Python functions (:mod:`.codegen`; no tree walking per packet) and
exposes

* the P4Runtime-facing control plane, by P4Info ids and Python ints:
  tables (:class:`TableEntry`, :class:`FieldMatch`), default actions, counters and
  direct counters, meters, registers, action profile members/groups, parser value sets,
  multicast groups and clone sessions;
* name-based helpers for tests (``insert``, ``set_default``, ``counter``, ``register``...);
* ``process(ingress_port, frame) -> [(egress_port, frame), ...]`` following BMv2
  simple_switch: parser -> verify checksum -> ingress -> (clone I2E, digest,
  resubmit, multicast / unicast / drop) -> egress -> (clone E2E, drop) ->
  compute checksum -> deparser -> (recirculate | out).

See docs/P4C.md for the BMv2 behaviours that are reproduced.
"""
from __future__ import annotations

from .entries import MATCH_KINDS, CounterData, FieldMatch, MeterConfig, TableEntry
from .errors import EntryExists, EntryNotFound, InvalidEntry, PipelineError, Unsupported
from .engine import TargetOptions
from .pipeline import DROP_PORT, Pipeline

__all__ = [
    "DROP_PORT", "MATCH_KINDS", "CounterData", "EntryExists", "EntryNotFound", "FieldMatch",
    "InvalidEntry", "MeterConfig", "Pipeline", "PipelineError", "TableEntry", "TargetOptions", "Unsupported",
]
