"""Run p4c's BMv2 JSON on the embedded target: ``p4c --target bmv2`` -> ``checkmate-switch``.

A BMv2 controller sends the JSON that ``p4c --target bmv2 --arch v1model`` writes as
``p4_device_config`` (and ``simple_switch_grpc`` takes the same file on its command line).
:func:`translate` turns that JSON, with the P4Info p4c wrote beside it
(``--p4runtime-files``), into the embedded pipeline's IR (``checkmate-v1model-ir/1``, see
docs/P4C.md), which :class:`switch.runtime.Pipeline` then compiles to Python like any
``checkmate-p4c`` output.  So the packet path, the P4Runtime server, the traffic manager
are the same for both front ends, and running one program both ways separates compiler
bugs (checkmate-p4c) from runtime bugs (switch/runtime).

* :mod:`.model` -- header types and instances, IR structs, expressions (BMv2's unbounded
  ``Data`` arithmetic as ``int_lit`` values, truncated by a cast on every store);
* :mod:`.actions` -- action primitives (and ``_jump_if_zero`` back to ``if``/``else``);
* :mod:`.program` -- parser, deparser, checksums, tables, the ingress/egress control graphs
  (tables and conditionals rejoined into structured statements), externs, digests.

Stacks of header unions are IR stacks of a struct per union type, as checkmate-p4c
emits them (:meth:`.model.Model._union_stacks`).  Not supported (a :class:`Bmv2JsonError`
names the object): a plain header union as a value (other than ``assign_union`` /
``valid_union``), value sets on tuple keys, ``action_calls`` nodes.
For those, compile the program with ``checkmate-p4c``.  The JSON is never executed: every name becomes a checked identifier
and the IR goes through :func:`switch.compiler.ir_check.validate_device_config` in the
pipeline loader.
"""
from __future__ import annotations

from .model import Bmv2JsonError
from .program import Translator

__all__ = ["Bmv2JsonError", "is_bmv2_json", "translate"]


def is_bmv2_json(obj) -> bool:
    """True for a parsed BMv2 JSON (p4c's bmv2 backend output)."""
    return isinstance(obj, dict) and ("__meta__" in obj or ("pipelines" in obj and "header_types" in obj))


def translate(bmv2_json: dict, p4info=None) -> dict:
    """The embedded IR of a parsed BMv2 JSON.  ``p4info`` (a ``p4.config.v1.P4Info``) gives
    the P4Runtime ids, names matched as PI matches them for BMv2; without it, ids are
    private (fine for in-process use, not for a controller).  Raises
    :class:`Bmv2JsonError` naming what cannot be run."""
    try:
        return Translator(bmv2_json, p4info).translate()
    except Bmv2JsonError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise Bmv2JsonError(f"malformed BMv2 JSON: {type(exc).__name__}: {exc}") from None
