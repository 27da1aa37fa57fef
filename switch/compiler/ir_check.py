"""Validation of a device config (the JSON IR) before it is turned into Python source.

:mod:`switch.runtime.codegen` builds Python source from the IR and ``exec``s it: names
from the IR (``n``, ``py``, ``f``, ``fn``, ``hdr``, type names, action/table/control
names, ...) are pasted into that source as identifiers or inside string literals, and
numbers as literals.  The compiler only ever writes identifiers and ints there, but the
IR is also *loaded from a file* (``checkmate-switch --config x.json``, P4Runtime
``SetForwardingPipelineConfig``), and a hand-edited or hostile file would otherwise
reach ``exec``.  :func:`validate_device_config` checks, without trusting anything in the
file, that

* the top level has the expected format tag and containers;
* every string is a (dotted) identifier with no special ``__name__`` component, and
  those pasted bare as Python names (``n``, ``py``, ``f``, ``fn``, ``obj``) are no Python
  keyword either -- except the few free-text fields that the generator only ever uses through
  ``repr()`` or not at all (``program``, ``format``, log messages, annotations,
  P4Runtime key names and table/action names, aliases and references -- p4c keeps any ``@name`` text --
  which are restricted to printable text without quotes or backslashes);
* every dict key is an identifier (or a decimal id, as in ``field_lists``);
* every operator (``o``) is one the generator knows;
* every number is an ``int`` (not a float or a numeric string) of bounded size, widths,
  sizes and ids are non-negative and bounded, and type lists are well formed;
* nesting is bounded (the compiler never nests deeper than ``MAX_IR_DEPTH``).

Call it from the loader before code generation -- see docs/P4C.md ("Validating a device
config").  It raises :class:`InvalidDeviceConfig` (a ``ValueError``) naming the JSON path
of the first offending value.
"""
from __future__ import annotations

import keyword
import re

from .elab_common import IR_FORMAT
from .elab_types import MAX_STACK_SIZE, MAX_VARBIT_WIDTH, MAX_WIDTH
from .lexer import MAX_LITERAL_BITS

__all__ = ["InvalidDeviceConfig", "MAX_IR_DEPTH", "validate_device_config"]

# The compiler's own IR nests < 300 JSON levels, < 70 expressions ({"op": ...}) and < 70
# statements ({"s": ...}) deep even at parser.MAX_NESTING; p4c's BMv2 JSON nests deeper
# expressions (a `++` chain of n one-bit values: about 4n levels, which BMv2 runs).  These
# bounds keep the code generator's recursion and the generated source within CPython's
# limits (100 indentation levels; about 200 nested parentheses, which the expressions of the
# generated source reach at 1-2 per level: a deeper line is refused by codegen.load, named).
MAX_IR_DEPTH = 600
MAX_IR_NESTING = 80         # statements
MAX_IR_EXPR_NESTING = 190   # expressions

_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DIGITS = re.compile(r"[0-9]{1,10}\Z")
# P4Runtime match-field names: "hdr.ipv4.dstAddr", "hdr.t.addr[31:24]", "hdr.vlan.$valid$"
_KEY_NAME = re.compile(r"[A-Za-z0-9_.\[\]:$ &]{1,256}\Z")  # p4c: "hdr.f & 0xf0" for a masked key
_OPERATORS = {
    "!", "~", "-", "+", "*", "/", "%", "&", "|", "^", "<<", ">>", "++", "|+|", "|-|",
    "==", "!=", "<", ">", "<=", ">=", "&&", "||",
}
_TYPE_TAGS = {"bit", "int", "varbit", "bool", "int_lit", "header", "header_union", "union", "struct",
              "stack", "error", "enum", "serenum", "extern", "void", "string", "tuple", "list",
              "match_kind"}   # (an action argument nothing reads: a constant, elab_expressions.match_kind_value)
# keys whose string values are free text, used by the generator only via repr() or not at all
_TEXT_KEYS = {"program", "msg", "annos", "doc", "format", "where", "load_error", "grpc_load_error", "field_cp_names",
              "fe_whole_reads"}  # where: an assert's location; fe_whole_reads: paths union_defuse reads (never generated)
# keys whose string values are pasted bare into the generated source as Python names or
# attributes (``{n}``, ``{base}.{f}``, ``{fn}(P, ...)``): the compiler has already made
# them Python-safe (prefixes such as ``p_``/``v3_``/``X_``, ``pyname``): no keywords
_CODE_KEYS = {"n", "py", "fn", "obj", "f", "mem", "others", "members"}
# keys whose int values are sizes, widths, ids or bit positions (never negative)
# ("lo"/"hi" are not here: besides slice bounds they are select ranges and random() bounds, which
# are values -- negative for int<N>, and up to the field width's maximum)
_NONNEG_KEYS = {"id", "size", "width", "bytes", "bits", "count", "prefix_len", "priority",
                "table_id", "implementation_id", "direct_counter", "direct_meter", "fl", "max"}
_TOP_LEVEL = {
    "format": str, "program": str, "headers": dict, "structs": dict, "header_fields": dict,
    "errors": list, "enums": dict, "field_lists": dict, "blocks": dict, "subcontrols": list,
    "subparsers": list, "action_profiles": list, "value_sets": list, "actions": list,
    "tables": list, "counters": list, "registers": list, "meters": list, "direct_counters": list,
    "direct_meters": list, "digests": list, "functions": list, "controller_headers": dict,
    "load_error": str,   # a program p4c compiles and BMv2 refuses to load: the pipeline refuses it
    "grpc_load_error": str,   # what simple_switch_grpc refuses of it when that is less ("": nothing)
}

# the runtime reads these with .get(...) and a default
_OPTIONAL = {"enums", "field_lists", "subcontrols", "subparsers", "value_sets", "direct_counters",
             "controller_headers", "load_error", "grpc_load_error"}


class InvalidDeviceConfig(ValueError):
    """A device config (IR) that must not be loaded; ``path`` is where (e.g. ``actions[3].name``)."""

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"invalid device config at {path or '<top>'}: {message}")


def _special(part: str) -> bool:
    return len(part) > 4 and part.startswith("__") and part.endswith("__")


def _safe_ident(s: str) -> bool:
    """A dotted identifier (``a``, ``L.v3_x``) that is safe to paste bare into Python
    source: no keyword (``lambda``, ``import``...), no special name (``__import__``,
    ``__class__``)."""
    return _dotted(s) and not any(keyword.iskeyword(p) for p in s.split("."))


def _dotted(s: str) -> bool:
    """Any other name (P4 names, tags such as "if"/"in"): identifier characters and dots
    only, so that it cannot leave the string literal or comment it is pasted into."""
    return 0 < len(s) <= 512 and all(_ID.match(part) and not _special(part) for part in s.split("."))


def _free_name(s: str) -> bool:
    """A P4 ``@name`` that is not identifier-like (p4c keeps any text: ``prefix|t``,
    emoji): printable, no quote or backslash, bounded.  Allowed only where the generator
    uses the name as data or through ``repr()`` (table names and aliases, references to a
    table, match-field names), never pasted bare into the source."""
    return 0 < len(s) <= 512 and s.isprintable() and not any(c in s for c in "'\"\\")


# top-level lists whose objects' names and aliases are data only (the generator refers to an
# extern object by its "py"): a P4 @name may be any text -- p4c keeps one of two leading dots
# (`@name("..c")` is ".c"), and a BMv2 JSON names objects so
_NAMED_LISTS = ("tables", "actions", "counters", "registers", "meters", "direct_counters", "direct_meters",
                "value_sets", "action_profiles")


def _table_name_slot(path: list, key) -> bool:
    """``tables[i].name``/``.alias``, ``actions[i].name``/``.alias`` (and an extern object's),
    a table's action
    reference ``tables[i].actions[j].name``, or a ``table`` reference (apply statements,
    ``hit``/``action_run`` expressions, direct counters and meters)."""
    if key == "table":
        return True
    if key in ("name", "alias") and len(path) == 3 and path[0] in _NAMED_LISTS and isinstance(path[1], int):
        return True
    return (key == "name" and len(path) == 5 and path[0] == "tables" and path[2] == "actions"
            and isinstance(path[1], int) and isinstance(path[3], int))


def _fmt(path: list) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out if len(out) <= 160 else "..." + out[-157:]


def _show(v) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def validate_device_config(cfg) -> dict:
    """Check a device config (dict loaded from the JSON IR) before code generation.

    Returns ``cfg`` unchanged; raises :class:`InvalidDeviceConfig` (a ``ValueError``)
    at the first value that would be unsafe or malformed in the generated Python source.
    """
    if not isinstance(cfg, dict):
        raise InvalidDeviceConfig("", f"expected a JSON object, got {type(cfg).__name__}")
    if cfg.get("format") != IR_FORMAT:
        raise InvalidDeviceConfig("format", f"expected {IR_FORMAT!r}, got {_show(cfg.get('format'))}")
    for key, typ in _TOP_LEVEL.items():
        if key not in cfg:
            if key in _OPTIONAL:
                continue
            raise InvalidDeviceConfig(key, "missing")
        if not isinstance(cfg[key], typ):
            raise InvalidDeviceConfig(key, f"expected a {typ.__name__}, got {type(cfg[key]).__name__}")
    if not isinstance(cfg["blocks"].get("parser"), dict):
        raise InvalidDeviceConfig("blocks.parser", "missing")
    if not cfg["errors"] or not all(isinstance(e, str) for e in cfg["errors"]):
        raise InvalidDeviceConfig("errors", "expected a non-empty list of error names")

    # iterative walk (a hostile file may nest deeper than Python's recursion limit)
    stack: list = [(cfg, [], None, 0, False, 0, 0)]
    while stack:
        x, path, key, depth, text, edepth, sdepth = stack.pop()
        if depth > MAX_IR_DEPTH:
            raise InvalidDeviceConfig(_fmt(path), f"nested more than {MAX_IR_DEPTH} levels deep")
        if isinstance(x, dict):
            if not text:
                edepth += "op" in x
                sdepth += "s" in x and x["s"] != "block"  # a block adds no indentation
                if edepth > MAX_IR_EXPR_NESTING or sdepth > MAX_IR_NESTING:
                    raise InvalidDeviceConfig(_fmt(path), f"expressions nested more than {MAX_IR_EXPR_NESTING} or "
                                                          f"statements more than {MAX_IR_NESTING} deep")
            for k, v in x.items():
                # keys are schema names ("if", "else"...), type/member names (pasted with a
                # prefix: H_<name>) or decimal ids: identifiers, keywords allowed, no dunder
                if not isinstance(k, str) or not (text or _DIGITS.match(k) or (_ID.match(k) and not _special(k))):
                    raise InvalidDeviceConfig(_fmt(path), f"key {_show(k)} is not an identifier")
                stack.append((v, path + [k], k, depth + 1, text or k in _TEXT_KEYS, edepth, sdepth))
        elif isinstance(x, list):
            # (under a top-level name map -- header_fields, enums ... -- "t"/"ret"/"elem" is a
            # user's type name, e.g. `header elem`, and its list is not a type)
            named = len(path) == 2 and isinstance(cfg.get(path[0]), dict)
            if key in ("t", "ret", "elem") and x and isinstance(x[0], str) and not text and not named:
                _check_type(x, path)
            # a field [name, type] of a struct/digest: its type is checked like any "t"
            pair = key == "fields" and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], list)
            for i, v in enumerate(x):
                stack.append((v, path + [i], "t" if pair and i == 1 else key, depth + 1, text, edepth, sdepth))
        elif x is None or isinstance(x, bool):
            continue
        elif isinstance(x, int):
            if x.bit_length() > MAX_LITERAL_BITS + 1:
                raise InvalidDeviceConfig(_fmt(path), f"integer of {x.bit_length()} bits is too large")
            if key in _NONNEG_KEYS and not text:
                limit = MAX_VARBIT_WIDTH if key in ("width", "bits") else (1 << 64)   # (a varbit's is the widest)
                if not 0 <= x <= limit:
                    raise InvalidDeviceConfig(_fmt(path), f"{key} {x} out of range 0..{limit}")
        elif isinstance(x, str):
            if text:
                if "\x00" in x:
                    raise InvalidDeviceConfig(_fmt(path), "NUL character in text")
                continue
            if key == "o":
                if x not in _OPERATORS:
                    raise InvalidDeviceConfig(_fmt(path), f"unknown operator {_show(x)}")
            elif key == "name" and len(path) >= 4 and path[-3] == "keys":
                if not (x == "" or _KEY_NAME.match(x) or _free_name(x)):   # (`@name("")`: p4c and BMv2 take it)
                    raise InvalidDeviceConfig(_fmt(path), f"match field name {_show(x)} has unsafe characters")
            elif _table_name_slot(path, key):
                # (an empty alias: `@name("")` names a table "I." -- p4c and BMv2 take it)
                if not (_dotted(x) or _free_name(x) or key == "alias" and x == ""):
                    raise InvalidDeviceConfig(_fmt(path), f"table or action name {_show(x)} has unsafe characters")
            elif key == "action" and x.endswith(".") and _dotted(x[:-1]):
                pass   # (an action `@name("")` names "I.", called directly: a lookup key only; errs18 probe d_ann_name_empty)
            elif key in _CODE_KEYS:
                if not _safe_ident(x):
                    raise InvalidDeviceConfig(_fmt(path), f"{_show(x)} is not a safe Python identifier")
            elif not _dotted(x):
                raise InvalidDeviceConfig(_fmt(path), f"{_show(x)} is not a (dotted) identifier")
        else:  # float, or anything json.load cannot even produce
            raise InvalidDeviceConfig(_fmt(path), f"unexpected {type(x).__name__} {_show(x)} (numbers must be ints)")
    return cfg


def _check_type(t: list, path: list) -> None:
    tag = t[0]
    where = _fmt(path)
    if tag not in _TYPE_TAGS:
        raise InvalidDeviceConfig(where, f"unknown type {_show(tag)}")
    if tag in ("bit", "int", "varbit"):
        low = 0 if tag == "bit" else 1  # bit<0> is a valid (empty) type
        top = MAX_VARBIT_WIDTH if tag == "varbit" else MAX_WIDTH
        if len(t) < 2 or isinstance(t[1], bool) or not isinstance(t[1], int) or not low <= t[1] <= top:
            raise InvalidDeviceConfig(where, f"{tag} width must be an int in {low}..{top}, got "
                                             f"{_show(t[1] if len(t) > 1 else None)}")
    elif tag in ("header", "struct", "enum", "serenum", "extern", "header_union", "union"):
        if len(t) < 2 or not isinstance(t[1], str):
            raise InvalidDeviceConfig(where, f"{tag} type needs a name")
    elif tag == "stack":
        if len(t) < 3 or not isinstance(t[1], str) or isinstance(t[2], bool) or not isinstance(t[2], int) \
                or not 0 <= t[2] <= MAX_STACK_SIZE:
            raise InvalidDeviceConfig(where, f"stack type needs a header name and a size in 0..{MAX_STACK_SIZE}")
