"""STF packet tests (p4c's ``*.stf`` format) read into commands, and their names resolved.

p4c ships most of its BMv2 sample programs with a small script of table writes, input
frames and expected output frames.  This module is the part of the STF runner that needs
no switch (it is what the unit test covers):

* :func:`parse_stf` turns the text into :class:`Cmd` objects, each with its line number;
  a line it cannot read raises :class:`StfError` naming ``file:line``.
* :func:`to_entry` turns an ``add``/``setdefault`` command into a
  :class:`controller.entities.Entry`, resolving the STF's names against the program's
  P4Info the way p4c's ``bmv2stf.py`` does: a table or action may be given without its
  control prefix (unique suffix), a key by the name p4c gives it (``hdr.h.a``,
  ``h.$valid$`` for ``h.isValid()``) or by a unique suffix of it.  STF priorities follow
  the P4Runtime order (a larger number wins; STF's may be 0, so 1 is added); an entry of a ternary/range table written
  without one gets a priority that makes earlier entries win.
* :class:`Expect` compares one expected frame with an output frame (``*`` is a don't-care
  nibble, ``$`` ends the frame exactly; without ``$`` extra trailing bytes are ignored).

Commands understood: ``add``, ``setdefault``, ``packet``, ``expect``, ``wait``,
``mirroring_add``, ``mc_mgrp_create``, ``mc_node_create``, ``mc_node_associate``,
``check_counter``, ``#`` comments.  Anything else (e.g. ``register_write``) is kept as an
``unsupported`` command so the runner can say why it skips a program.

The runner, the CLI and the comparison with BMv2 are in :mod:`stf_run`
(``python -m tests.differential.stf DIR_OR_FILES``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from controller.entities import Entry
from controller.p4info import P4InfoError, P4InfoIndex

COMMANDS = {"add", "setdefault", "packet", "expect", "wait", "mirroring_add", "mc_mgrp_create",
            "mc_node_create", "mc_node_associate", "check_counter"}


class StfError(ValueError):
    """An STF line that cannot be read, or a name the program's P4Info does not have."""


@dataclass
class Cmd:
    kind: str            # one of COMMANDS, or "unsupported"
    line: int
    text: str
    table: str = ""
    priority: int | None = None
    keys: list = field(default_factory=list)      # [(name, value text)]
    action: str = ""
    args: list = field(default_factory=list)      # [(name, value text)]
    port: int = 0
    data: bytes = b""                             # packet
    expect: "Expect | None" = None
    ints: list = field(default_factory=list)      # mirroring/multicast operands
    counter: str = ""                             # check_counter NAME(INDEX) [packets|bytes] OP VALUE
    index: int = 0
    what: str = ""
    op: str = ""
    value: int = 0


@dataclass
class Expect:
    """One expected frame: ``pattern`` is a string of hex nibbles and ``*``."""

    port: int
    pattern: str
    exact_end: bool

    def matches(self, frame: bytes) -> bool:
        got = frame.hex()
        if len(got) < len(self.pattern) or (self.exact_end and len(got) != len(self.pattern)):
            return False
        return all(p == "*" or p == g for p, g in zip(self.pattern, got))

    def __str__(self) -> str:
        return self.pattern + ("$" if self.exact_end else "")


def _tokens(rest: str) -> list[str]:
    """Whitespace-split, but an action call ``a(x:1, y:2)`` stays one token."""
    out, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def _hexdata(text: str, where: str, allow_wild: bool) -> tuple[str, bool]:
    s = re.sub(r"\s+", "", text).lower()
    end = s.endswith("$")
    s = s.rstrip("$")
    ok = "0123456789abcdef*" if allow_wild else "0123456789abcdef"
    if any(c not in ok for c in s):
        raise StfError(f"{where}: not a frame in hex{' (with * wildcards)' if allow_wild else ''}: {text.strip()!r}")
    if len(s) % 2:  # bmv2stf pads a frame with an odd number of nibbles
        s += "*" if allow_wild else "0"
    return s, end


def _key_value(tok: str) -> tuple[str, str]:
    """``NAME:VALUE`` split at the first colon outside brackets: a slice key is named
    ``hdr.f[7:0]`` in P4Info."""
    depth = 0
    for i, ch in enumerate(tok):
        depth += ch == "["
        depth -= ch == "]"
        if ch == ":" and depth == 0:
            return tok[:i], tok[i + 1:]
    raise ValueError(tok)


def _action(tok: str, where: str) -> tuple[str, list]:
    m = re.fullmatch(r"([\w.$]+)\((.*)\)", tok, re.S)
    if not m:
        raise StfError(f"{where}: expected an action call NAME(ARG:VALUE, ...), got {tok!r}")
    args = []
    for part in filter(None, (p.strip() for p in m.group(2).split(","))):
        if ":" not in part:
            raise StfError(f"{where}: action argument {part!r} is not NAME:VALUE")
        k, v = part.split(":", 1)
        args.append((k.strip(), v.strip()))
    return m.group(1), args


def parse_stf(text: str, name: str = "<stf>") -> list[Cmd]:
    cmds = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{no}"
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        c = Cmd(word if word in COMMANDS else "unsupported", no, line)
        toks = _tokens(rest)
        try:
            if word == "add":
                if len(toks) < 2:
                    raise StfError(f"{where}: add needs TABLE [PRIORITY] KEY:VALUE... ACTION(...)")
                c.table, toks = toks[0], toks[1:]
                if re.fullmatch(r"\d+", toks[0]):
                    c.priority, toks = int(toks[0]), toks[1:]
                c.action, c.args = _action(toks[-1], where)
                for k in toks[:-1]:
                    try:
                        n, v = _key_value(k)
                    except ValueError:
                        raise StfError(f"{where}: key {k!r} is not NAME:VALUE") from None
                    c.keys.append((n, v))
            elif word == "setdefault":
                if len(toks) != 2:
                    raise StfError(f"{where}: setdefault needs TABLE ACTION(...)")
                c.table = toks[0]
                c.action, c.args = _action(toks[1], where)
            elif word in ("packet", "expect"):
                port, _, data = rest.partition(" ")
                if not port.isdigit():
                    raise StfError(f"{where}: {word} needs a port number, got {port!r}")
                c.port = int(port)
                pat, end = _hexdata(data, where, word == "expect")
                if word == "packet":
                    c.data = bytes.fromhex(pat)
                else:
                    c.expect = Expect(c.port, pat, end)
            elif word in ("mirroring_add", "mc_mgrp_create", "mc_node_create", "mc_node_associate"):
                c.ints = [int(t, 0) for t in toks]
                need = {"mirroring_add": 2, "mc_mgrp_create": 1, "mc_node_associate": 2}.get(word, 2)
                if len(c.ints) < need:
                    raise StfError(f"{where}: {word} needs {need} numbers")
            elif word == "check_counter":
                m = re.fullmatch(r"([\w.$]+)\((\w+)\)\s*(?:(packets|bytes)\s*)?(==|!=|<=|>=|<|>)\s*(\w+)", rest)
                if not m:
                    raise StfError(f"{where}: check_counter needs NAME(INDEX) [packets|bytes] OP VALUE")
                c.counter, c.index = m.group(1), int(m.group(2), 0)
                c.what, c.op, c.value = m.group(3) or "packets", m.group(4), int(m.group(5), 0)
        except ValueError as e:
            if isinstance(e, StfError):
                raise
            raise StfError(f"{where}: {e}") from None
        cmds.append(c)
    return cmds


# ------------------------------------------------------------------------------ names
def _key_name(index: P4InfoIndex, table: str, name: str):
    """The P4Info match field an STF key name means (p4c's names, ``$valid$``, suffixes)."""
    cands = [name]
    if re.search(r"\$\d+", name):  # bmv2stf writes a stack element as stack$N
        name = re.sub(r"\$(\d+)", r"[\1]", name)
        cands.append(name)
    if name.endswith(".$valid$") or name.endswith("$valid$"):
        base = name[:-len("$valid$")].rstrip(".")
        cands += [f"{base}.isValid()", f"{base}.$valid$"]
    last = None
    for n in cands:
        try:
            return index.match_field(table, n)
        except P4InfoError as e:
            last = e
    fields = index.match_fields(table)
    # p4c's bmv2stf also accepts a key given by the tail of a longer name ("ethernet.dstAddr")
    tail = [f for f in fields if f.name.split(".")[-1] == name.split(".")[-1]]
    if len(tail) == 1:
        return tail[0]
    raise StfError(str(last))


def _value(text: str, kind: str, width: int):
    """An STF key value in Entry's form for the match kind."""
    t = text.strip()
    if "*" in t and t.lower().startswith("0x"):  # hex with don't-care nibbles: a ternary match
        digits = t[2:]
        v = int(digits.replace("*", "0"), 16)
        m = int("".join("0" if c == "*" else "f" for c in digits), 16)
        if kind != "ternary":
            raise StfError(f"a value with * nibbles {t!r} for a {kind} key")
        return (v, m & ((1 << width) - 1))
    if "&&&" in t:
        v, m = t.split("&&&", 1)
        if kind == "ternary":
            return (int(v, 0), int(m, 0))
        if kind == "lpm":   # a prefix written as a mask
            mask = int(m, 0)
            return (int(v, 0) & mask, bin(mask).count("1"))
        raise StfError(f"a ternary value {t!r} for a {kind} key")
    if "/" in t:
        v, plen = t.split("/", 1)
        if kind == "lpm":
            return (int(v, 0), int(plen, 0))
        if kind == "ternary":
            p = int(plen, 0)
            return (int(v, 0), ((1 << p) - 1) << (width - p) if p else 0)
        raise StfError(f"a prefix value {t!r} for a {kind} key")
    if ".." in t and kind == "range":
        lo, hi = t.split("..", 1)
        return (int(lo, 0), int(hi, 0))
    v = int(t, 0)
    full = (1 << width) - 1
    return {"ternary": (v, full), "lpm": (v, width), "range": (v, v)}.get(kind, v)


def to_entry(index: P4InfoIndex, c: Cmd, auto_priority: int = 0) -> Entry:
    """The P4Runtime entry of an ``add`` or ``setdefault`` command (names resolved)."""
    where = f"line {c.line}"
    try:
        t = index.get("tables", c.table).preamble.name
        match = {}
        for n, v in c.keys:
            f = _key_name(index, t, n)
            match[f.name] = _value(v, f.match_type, f.bitwidth)
        action = index.action_in_table(t, c.action).preamble.name
        params = {}
        known = index.action_params(action)
        for i, (n, v) in enumerate(c.args):
            p = next((p for p in known if p.name == n), None)
            if p is None and len(c.args) == len(known):
                p = known[i]
            if p is None:
                raise StfError(f"action {action} has no parameter {n!r}")
            params[p.name] = int(v, 0)
        if c.kind == "setdefault":
            return Entry(t, {}, action, params, 0, is_default=True)
        prio = 0
        if index.table_needs_priority(t):
            # STF priorities may be 0 (P4Runtime's start at 1); the order is kept
            prio = c.priority + 1 if c.priority is not None else auto_priority
        return Entry(t, match, action, params, prio)
    except (P4InfoError, ValueError) as e:
        raise StfError(f"{where}: {c.text}: {e}") from None


def match_expects(expects: list[Expect], outputs: list[tuple[int, bytes]]) -> list[str]:
    """Problems of ``outputs`` (per port, in order) against the STF's expects, as bmv2stf
    checks them: each port's frames in the order expected; an unexpected frame on a port
    that has expects is a problem, frames on ports without expects are not checked."""
    problems = []
    by_port: dict[int, list[bytes]] = {}
    for p, f in outputs:
        by_port.setdefault(p, []).append(f)
    want: dict[int, list[Expect]] = {}
    for e in expects:
        want.setdefault(e.port, []).append(e)
    for port, exps in sorted(want.items()):
        got = by_port.get(port, [])
        for i, e in enumerate(exps):
            if i >= len(got):
                problems.append(f"port {port}: expected {e}, no frame")
            elif not e.matches(got[i]):
                problems.append(f"port {port}: expected {e}, got {got[i].hex()}")
        for f in got[len(exps):]:
            problems.append(f"port {port}: unexpected frame {f.hex()}")
    return problems


if __name__ == "__main__":  # python -m tests.differential.stf ... (the runner is stf_run)
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from stf_run import main
    sys.exit(main())
