"""The forwarding-pipeline state the server holds: one committed (and maybe one saved) config."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from grpc import StatusCode
from p4.config.v1 import p4info_pb2

from switch.bmv2json import Bmv2JsonError, is_bmv2_json, translate
from switch.runtime import Pipeline, PipelineError
from switch.runtime.externs import MAX_CELLS

from .errors import P4RTError
from .p4info_index import P4InfoIndex


@dataclass
class ForwardingState:
    """A verified config: P4Info, its index, the device-config bytes, cookie and pipeline."""

    p4info: p4info_pb2.P4Info
    index: P4InfoIndex
    device_config: bytes
    cookie: int
    pipeline: Pipeline
    group_max_size: dict = field(default_factory=dict)   # (profile id, group id) -> max_size, read back


#: The switch's clock origin: simple_switch sets its ``start`` when the switch is built (process start)
#: and keeps it across SetForwardingPipelineConfig, so ``*_global_timestamp`` counts from there, not from
#: the pipeline's load (a program comparing a timestamp with a few seconds -- ibrahimssd's credit-based
#: flow control clones once egress_global_timestamp passes 3 s -- saw the load's origin here; corpus23).
SWITCH_T0_NS = time.monotonic_ns()


def switch_clock() -> int:
    """Microseconds since the switch started (BMv2's ``get_ts()``)."""
    return (time.monotonic_ns() - SWITCH_T0_NS) // 1000


#: Largest value set a device config may declare; an indexed counter / register / meter may have any
#: bit<32> size (externs.MAX_CELLS: their cells are allocated lazily, so a size costs no memory).
MAX_EXTERN_CELLS = 1 << 22
#: Widest bit<W> / int<W> / header field a device config may declare (masks are computed as Python ints).
MAX_WIDTH_BITS = 1 << 16


def _check_ir_limits(ir) -> None:
    """Refuse absurd sizes and widths in an untrusted device config before anything is allocated."""
    if not isinstance(ir, dict):
        raise P4RTError(StatusCode.INVALID_ARGUMENT,
                        f"p4_device_config is malformed: a JSON {type(ir).__name__}, expected the checkmate-p4c object")
    for kind in ("counters", "registers", "meters", "value_sets"):
        for spec in ir.get(kind) or ():
            if not isinstance(spec, dict):
                continue
            size, top = spec.get("size", 0), MAX_EXTERN_CELLS if kind == "value_sets" else MAX_CELLS
            if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= top:
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                f"p4_device_config: {kind[:-1]} '{spec.get('name')}': size {size!r} is not an "
                                f"integer in 0..{top}")
    stack = [ir]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            w = v.get("width")
            if isinstance(w, int) and not isinstance(w, bool) and not 0 <= w <= MAX_WIDTH_BITS:
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                f"p4_device_config: '{v.get('name')}': width {w} is not in 0..{MAX_WIDTH_BITS}")
            stack.extend(v.values())
        elif isinstance(v, list):
            if (len(v) >= 2 and v[0] in ("bit", "int", "varbit") and isinstance(v[1], int)
                    and not 0 <= v[1] <= MAX_WIDTH_BITS):
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                f"p4_device_config: type {v[0]}<{v[1]}> is wider than {MAX_WIDTH_BITS} bits")
            if (len(v) >= 2 and isinstance(v[0], str) and isinstance(v[1], int) and not isinstance(v[1], bool)
                    and v[1] > MAX_WIDTH_BITS and all(isinstance(x, (str, int, bool)) for x in v[:3])):
                raise P4RTError(StatusCode.INVALID_ARGUMENT,
                                f"p4_device_config: field '{v[0]}' is {v[1]} bits wide (at most {MAX_WIDTH_BITS})")
            stack.extend(v)


def build_state(config) -> ForwardingState:
    """Verify a ``p4.v1.ForwardingPipelineConfig`` and load its pipeline (not yet live).

    ``p4_device_config`` is the JSON IR written by ``checkmate-p4c`` or p4c's BMv2 JSON
    (translated with the config's P4Info, :mod:`switch.bmv2json`).  Raises
    INVALID_ARGUMENT naming what is wrong (bad JSON, IR the pipeline refuses, P4Info
    objects missing from the IR).
    """
    if not config.HasField("p4info"):
        raise P4RTError(StatusCode.INVALID_ARGUMENT, "ForwardingPipelineConfig has no p4info")
    if not config.p4_device_config:
        raise P4RTError(StatusCode.INVALID_ARGUMENT,
                        "ForwardingPipelineConfig has an empty p4_device_config (expected checkmate-p4c JSON "
                        "or p4c's BMv2 JSON)")
    try:
        ir = json.loads(config.p4_device_config)
    except (UnicodeDecodeError, ValueError) as exc:
        raise P4RTError(StatusCode.INVALID_ARGUMENT,
                        f"p4_device_config is not JSON (expected checkmate-p4c output or p4c's BMv2 "
                        f"JSON): {exc}") from None
    from_p4c = is_bmv2_json(ir)
    if from_p4c:
        # what p4c --target bmv2 writes and every BMv2 controller sends: translated to the
        # embedded IR with the P4Info's ids (switch/bmv2json)
        try:
            ir = translate(ir, config.p4info)
        except Bmv2JsonError as exc:
            raise P4RTError(StatusCode.INVALID_ARGUMENT, f"p4_device_config (BMv2 JSON): {exc}") from None
    _check_ir_limits(ir)
    try:
        pipeline = Pipeline(ir, grpc_load=True, clock=switch_clock)
    except PipelineError as exc:
        raise P4RTError(StatusCode.INVALID_ARGUMENT, f"p4_device_config rejected: {exc}") from None
    except Exception as exc:  # noqa: BLE001 -- untrusted input: any failure to load it is the config's fault
        # (KeyError/TypeError/... from a malformed IR, SyntaxError from code generated out of it,
        # RecursionError from absurd nesting): refuse it by name instead of failing the RPC with UNKNOWN.
        raise P4RTError(StatusCode.INVALID_ARGUMENT,
                        f"p4_device_config is malformed: {type(exc).__name__}: {exc}") from None
    index = P4InfoIndex.build(config.p4info)
    for a in index.actions.values():
        spec = pipeline.actions.get(a.id)
        # a parameter whose P4Info width (a wider @p4runtime_translation) is more than the
        # pipeline's: BMv2 takes values that fit the P4Info width and runs the low bits
        if spec is not None:
            spec.cp_widths = {pid: a.params[pid].bitwidth for pid, _, w in spec.params
                              if pid in a.params and a.params[pid].bitwidth > w}
    if not from_p4c:
        _cp_key_widths(pipeline, index)
    for t in index.tables.values():
        # p4c's P4Info lists a table its midend then removed as never applied (a branch it
        # folded away): absent from its BMv2 JSON, which BMv2 loads all the same
        if t.id not in pipeline.tables and not from_p4c and t.id not in pipeline.removed_tables:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"P4Info table '{t.name}' (id {t.id:#x}) is not in p4_device_config: "
                            f"P4Info and device config come from different programs")
    for c in index.counters.values():
        if c.id not in pipeline.counters:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"P4Info counter '{c.name}' (id {c.id:#x}) is not in p4_device_config")
    cookie = config.cookie.cookie if config.HasField("cookie") else 0
    return ForwardingState(config.p4info, index, bytes(config.p4_device_config), cookie, pipeline)


def _cp_key_widths(pipeline, index) -> None:
    """A key whose P4Info width is not the pipeline's -- a type translated to a wider
    ``@p4runtime_translation`` width, an ``error`` key (P4Info 0, 32 bits) -- on checkmate-p4c's
    build: the control plane's values are checked against the P4Info width and the field's own
    width kept apart (``KeySpec.field_width``), as the BMv2 JSON loader does for p4c's JSON
    (switch/bmv2json: ``field_width``).  A MODIFY of ``0x100`` on a 12-bit key over ``bit<8>`` is
    then NOT_FOUND as on BMv2, not INVALID_ARGUMENT (helper p4rt39, test_p4rt_widths on the build)."""
    for t in index.tables.values():
        rt = pipeline.tables.get(t.id)
        if rt is None:
            continue
        for k in rt.keys:
            mf = t.match_fields.get(k.id)
            if mf is not None and k.field_width is None and mf.bitwidth != k.width:
                k.field_width, k.width, k.mask = k.width, mf.bitwidth, None   # (tables.key_mask: none)
        rt.masked = any(k.mask is not None for k in rt.keys)
