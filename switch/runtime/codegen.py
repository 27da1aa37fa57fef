"""IR -> generated Python: the per-program packet functions of the embedded target.

:func:`load` turns the JSON IR into Python source (one class per header/struct type
with ``extract``/``pack``/``copy``; one function per parser, control, action, table
apply and P4 function), ``exec``s it once and returns an :class:`~.engine.Engine`
that drives packets through it.  Nothing is interpreted per packet: a field access
is an attribute access, ``hdr.ipv4.ttl - 1`` becomes ``((p_hdr.ipv4.ttl - 1) &
255)``, a table apply is one lookup plus one call.

Conventions of the generated code: ``P`` is the per-packet state
(:class:`~.engine.PacketState`), ``L`` the per-invocation locals of a control (its
control-scope variables, visible to its actions), ``p_<name>`` a parser/control
parameter, ``X_<name>`` an extern instance, ``TBL_<id>`` a table, ``A_<id>`` an action.
``print(pipeline.program.source)`` shows the whole thing.

The generator is split by theme: :mod:`.gen_types` (header/struct classes),
:mod:`.gen_expressions`, :mod:`.gen_statements`, :mod:`.gen_subcontrol` (sub-control
arguments), :mod:`.gen_blocks` (actions, tables,
parser, controls) and :mod:`.gen_helpers` (run-time helpers the generated code calls).
"""
from __future__ import annotations

import struct

from . import gen_helpers
from .engine import DROP_PORT, Engine, ExitSignal, ParserError, Stack
from .errors import Unsupported
from ..log_format import bmv2_render
from .externs import MeterState, csum16, hash_value
from .gen_blocks import BlockGen
from .gen_expressions import ExpressionGen
from .gen_statements import StatementGen
from .gen_subcontrol import SubControlGen
from .gen_types import TypeGen

IR_FORMAT = "checkmate-v1model-ir/1"


class Gen(TypeGen, ExpressionGen, StatementGen, SubControlGen, BlockGen):
    """Python source for one program IR (the rules are in the mixins)."""

    def __init__(self, ir: dict):
        self.ir = ir
        self.lines: list[str] = []
        self.tmp = 0
        self.errors = {n: i for i, n in enumerate(ir["errors"])}
        self.action_by_name = {a["name"]: a for a in ir["actions"]}
        self.table_by_name = {t["name"]: t for t in ir["tables"]}
        self.digest_ids = {d["name"]: d["id"] for d in ir["digests"]}
        self.dmeter_by_name = {m["name"]: m for m in ir["direct_meters"]}
        self.control_of_action: dict[str, str] = {}
        self.role = None
        self.action_outs = None
        self.fn_outs = None

    def emit(self, ind: int, s: str) -> None:
        self.lines.append("    " * ind + s)

    def fresh(self, base: str = "t") -> str:
        self.tmp += 1
        return f"_{base}{self.tmp}"


def load(ir: dict, pipeline) -> Engine:
    """Generate, exec and wire the program of ``ir`` to ``pipeline``'s state."""
    gen = Gen(ir)
    src = gen.generate()
    ns: dict = {name: getattr(gen_helpers, name) for name in (
        "Locals", "AssertionFailed", "_sw", "_shl", "_shr", "_div", "_mod", "_sat", "_mk", "_peek",
        "_copy_into", "_apply_dead", "_hdr_out", "_agg_out", "_eq", "_lookahead", "_cat_valid", "_VB", "_vb_in", "_tracked")}
    ns.update({
        "_Struct": struct.Struct, "Stack": Stack, "ParserError": ParserError, "ExitSignal": ExitSignal, "csum16": csum16,
        "hash_value": hash_value, "CLOCK": pipeline.clock, "_DROP": DROP_PORT, "_logfmt": bmv2_render,
        "_random": lambda lo, hi: pipeline.rng.randint(lo, hi) if lo <= hi else None,   # (BMv2: no write)
    })
    for t in ir["tables"]:
        ns[f"TBL_{t['id']}"] = pipeline.tables[t["id"]]
    for kind, store in (("counters", pipeline.counters), ("registers", pipeline.registers),
                        ("meters", pipeline.meters), ("value_sets", pipeline.value_sets)):
        for o in ir.get(kind, ()):
            ns[o["py"]] = store[o["id"]]

    def direct_meter(ent, nbytes, unit):
        cfg = ent.meter
        if cfg is None:
            return 0
        now = pipeline.clock()
        if ent.meter_state is None or ent.meter_state.cfg is not cfg:
            ent.meter_state = MeterState(cfg, now)
        return ent.meter_state.execute(nbytes if unit == "bytes" else 1, now)
    ns["_direct_meter"] = direct_meter
    try:
        code = compile(src, f"<p4 program {ir['program']}>", "exec")
    except (SyntaxError, RecursionError, MemoryError) as e:   # nesting past CPython's parser limits
        raise Unsupported(f"the program's expressions nest too deeply for the embedded target's generated "
                          f"Python ({type(e).__name__}: {getattr(e, 'msg', e)}); split the expression with "
                          "local variables") from None
    exec(code, ns)  # noqa: S102 - source generated above from the typed IR
    return Engine(ir, pipeline, ns, src)
