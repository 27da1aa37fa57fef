"""Mutation kinds of tools/p4c_mutate.py aimed at what p4c writes into the P4Info, and the P4Info
judgement of a mutant both compilers accept (helper mutz24; kept apart to keep p4c_mutate.py short).

Same contract as p4c_mutate_externs.py: each kind is ``fn(rng, text) -> (new text, position of the
change, description)`` or None.  Many of these mutants stay valid, so :func:`p4info_differs` also
compares checkmate-p4c's P4Info with p4c's (canonical text: entities by id) when both accept one --
``P4INFO`` in the result file:

* ``id_anno`` -- an ``@id(N)`` on a table, action, extern instance, key element or action
  parameter: another value, one already used, 0, a negative or huge one, two arguments, a string;
* ``cp_anno`` -- an annotation the P4Info carries or p4c parses added to a table, action,
  key element, parameter or extern instance: ``@brief``/``@description`` (doc), unknown ones with
  and without arguments (``@foo``, ``@foo(1, "a")``, ``@foo[k=1]``), ``@hidden``,
  ``@defaultonly``/``@tableonly`` on a listed action, ``@name`` of several forms;
* ``match_field`` -- a table key's match kind or expression changed (``lpm``, ``ternary``,
  ``range``, ``optional``, ``selector``; a slice, a cast, ``isValid()``, a constant, a
  ``@name``d expression);
* ``resource`` -- a counter's or meter's kind (packets, bytes, packets_and_bytes) or size changed,
  a direct counter or meter attached to another table or to none, a register's element type;
* ``pkg_info`` -- ``@pkginfo`` on ``main`` with known and unknown keys, repeated, of the wrong
  type, ``@brief``/``@description`` there;
* ``digest_data`` -- a ``digest`` call's data (a struct, a list of fields, nested lists, a header,
  a constant) or receiver changed;
* ``table_extern`` (helper mutz35) -- a table given a new action profile, action selector (with
  or without a ``selector`` key), direct counter or direct meter (read or not), one shared with
  the next table, or its ``implementation`` / ``counters`` / ``meters`` property dropped.
"""
from __future__ import annotations

import re

_TARGETS = r"(?m)^(\s*)((?:table|action)\s+\w+|(?:register|counter|meter|direct_counter|direct_meter|action_profile)\b[^;\n]*\s\w+\s*;)"


def _decl_starts(t: str) -> list:
    """Positions where a table, action or extern instance declaration starts (after indentation)."""
    return [m.start(2) for m in re.finditer(_TARGETS, t)]


def _key_elems(t: str) -> list:
    """(start, end) of each ``expr: kind`` element of the tables' keys."""
    out = []
    for m in re.finditer(r"\bkey\s*=\s*\{", t):
        end = t.find("}", m.end())
        if end < 0:
            continue
        for e in re.finditer(r"[^;{}]+:\s*\w+\s*;", t[m.end():end]):
            s = m.end() + e.start() + (len(e.group(0)) - len(e.group(0).lstrip()))
            out.append((s, m.end() + e.end()))
    return out


def _params(t: str) -> list:
    """Positions of each action's directionless parameters (where an annotation may go)."""
    out = []
    for m in re.finditer(r"\baction\s+\w+\s*\(([^)]*)\)", t):
        off = m.start(1)
        for p in re.finditer(r"(?:^|,)\s*((?:bit|int)<\d+>\s+\w+)", m.group(1)):
            out.append(off + p.start(1))
    return out


def m_id_anno(rng, t):
    spots = _decl_starts(t) + [s for s, _ in _key_elems(t)] + _params(t)
    if not spots:
        return None
    at = rng.choice(spots)
    ids = [int(x) for x in re.findall(r"@id\((\d+)\)", t)]
    val = rng.choice([str(rng.randrange(1, 50)), str(rng.choice(ids)) if ids else "1", "0", "-1", "0x1000001",
                      str(1 << 24), "4294967296", "1, 2", '"7"', "0x01000001"])
    return t[:at] + f"@id({val}) " + t[at:], at, f"@id({val})"


_ANNOS = ['@brief("a short")', '@description("the long one")', "@foo", "@foo(1, \"a\")", "@foo[k=1, s=\"x\"]",
          "@hidden", "@defaultonly", "@tableonly", '@name("zz")', '@name(".zz.top")', '@name("a.b")', "@foo()",
          '@brief("x") @brief("y")', "@foo(hdr.h.a + 1)", "@unknown_anno[]"]


def m_cp_anno(rng, t):
    spots = _decl_starts(t) + [s for s, _ in _key_elems(t)] + _params(t)
    spots += [m.start(1) for m in re.finditer(r"\bactions\s*=\s*\{\s*(\w)", t)]   # a listed action
    if not spots:
        return None
    at = rng.choice(spots)
    a = rng.choice(_ANNOS)
    return t[:at] + a + " " + t[at:], at, f"annotation {a}"


_KINDS = ["exact", "lpm", "ternary", "range", "optional", "selector"]


def m_match_field(rng, t):
    elems = _key_elems(t)
    if not elems:
        return None
    s, e = rng.choice(elems)
    m = re.match(r"(.*?)\s*:\s*(\w+)\s*;", t[s:e], re.S)
    if not m:
        return None
    expr, kind = m.group(1), m.group(2)
    op = rng.choice(["kind", "kind", "slice", "cast", "valid", "const", "named"])
    if op == "kind":
        kind = rng.choice([k for k in _KINDS if k != kind])
    elif op == "slice":
        expr = f"{expr}[3:0]"
    elif op == "cast":
        expr = f"(bit<{rng.choice([1, 4, 16, 33])}>){expr}"
    elif op == "valid":
        expr = expr.rsplit(".", 1)[0] + ".isValid()" if "." in expr else expr
    elif op == "const":
        expr = rng.choice(["8w1", "true", "1"])
    else:
        expr = f'{expr} @name("{rng.choice(["k", "hdr.x", "zz"])}")'
    new = f"{expr}: {kind};"
    return t[:s] + new + t[e:], s, f"key {t[s:e].strip()} -> {new}"


def m_resource(rng, t):
    cands = list(re.finditer(r"\b(counter|meter|direct_counter|direct_meter)\s*(?:<[^>]*>)?\s*\(([^;]*)\)\s*(\w+)\s*;", t))
    cands += list(re.finditer(r"\b(counters|meters)\s*=\s*(\w+)\s*;", t))
    cands += list(re.finditer(r"\b(register)\s*<\s*([^>]*)>", t))
    if not cands:
        return None
    m = rng.choice(cands)
    kind = m.group(1)
    if kind in ("counters", "meters"):
        new = rng.choice(["", f"{kind} = zz_none;", f"{kind} = {m.group(2)}; {kind} = {m.group(2)};"])
    elif kind == "register":
        new = f"register<{rng.choice(['bit<1>', 'bit<64>', 'int<8>', 'bool', 'h_t', 'bit<8>, bit<33>'])}>"
    else:
        units = {"counter": "CounterType", "direct_counter": "CounterType"}.get(kind, "MeterType")
        members = ["packets", "bytes", "packets_and_bytes"] if units == "CounterType" else ["packets", "bytes"]
        args = [a.strip() for a in m.group(2).split(",")]
        if args and args[0] and rng.random() < 0.5 and not kind.startswith("direct"):
            args[0] = rng.choice(["1", "0", "32w4096", "65536", "8w3"])
        else:
            args[-1] = f"{units}.{rng.choice(members)}"
        new = m.group(0).replace(m.group(2), ", ".join(args), 1)
    return t[:m.start()] + new + t[m.end():], m.start(), f"{m.group(0)[:40]} -> {new[:40]}"


_PKG = ['@pkginfo(name="p", version="1.2")', '@pkginfo(arch="x", organization="o", contact="c", url="u")',
        '@pkginfo(name="a") @pkginfo(name="b")', '@pkginfo(version=1)', '@pkginfo(zz="y")', '@pkginfo()',
        '@brief("pkg") @description("the package")', '@pkginfo(platform_property="x")', '@pkginfo(name="p", name="q")',
        '@pkginfo(doc="d")', '@pkginfo("positional")']


def m_pkg_info(rng, t):
    m = re.search(r"(?m)^\s*(V1Switch\s*\()", t)
    if not m:
        return None
    a = rng.choice(_PKG)
    return t[:m.start(1)] + a + " " + t[m.start(1):], m.start(1), f"main {a}"


def m_digest_data(rng, t):
    calls = list(re.finditer(r"\bdigest\s*(<[^>]*>)?\s*\(\s*([^,]+),\s*([^;]*)\)\s*;", t))
    if not calls:
        return None
    m = rng.choice(calls)
    data = m.group(3)
    op = rng.choice(["list", "nested", "header", "const", "receiver", "struct_init", "typearg"])
    new_data, recv, targ = data, m.group(2), m.group(1) or ""
    if op == "list":
        new_data = "{ hdr.h.a, sm.ingress_port }" if "hdr.h" in t else "{ sm.ingress_port }"
    elif op == "nested":
        new_data = f"{{ {data}, {{ sm.ingress_port }} }}"
    elif op == "header":
        new_data = "hdr.h" if "hdr.h" in t else "sm"
    elif op == "const":
        new_data = rng.choice(["8w1", "{ 8w1 }", "{ }", "true"])
    elif op == "receiver":
        recv = rng.choice(["0", "2", "32w1", "1024", "8w1", "true"])
    elif op == "struct_init":
        new_data = "{ sm.ingress_port, sm.egress_spec }"
    else:
        targ = "<bit<9>>" if not targ else ""
    new = f"digest{targ}({recv}, {new_data});"
    return t[:m.start()] + new + t[m.end():], m.start(), f"digest -> {new[:60]}"


def m_table_extern(rng, t):
    tables = list(re.finditer(r"(?m)^([ \t]*)table\s+(\w+)\s*\{", t))
    if not tables:
        return None
    m = rng.choice(tables)
    ind, name = m.group(1), m.group(2)
    body_end = t.find("\n" + ind + "}", m.end())
    props = [p for p in re.finditer(r"\b(?:implementation|counters|meters)\s*=\s*\w+\s*;", t[m.end():body_end])]
    op = rng.choice(["profile", "selector", "selector_key", "counter", "meter", "meter_read", "shared", "drop"])
    if op == "drop":
        if not props:
            return None
        p = rng.choice(props)
        return t[:m.end() + p.start()] + t[m.end() + p.end():], m.end() + p.start(), f"{p.group(0)} dropped from {name}"
    x = f"{name}_x"
    decl, prop = {
        "profile": (f"action_profile(32w{rng.choice([1, 16, 128])}) {x};", f"implementation = {x};"),
        "selector": (f"action_selector(HashAlgorithm.crc16, 32w16, 32w{rng.choice([8, 14, 64])}) {x};", f"implementation = {x};"),
        "selector_key": ("action_selector(HashAlgorithm.identity, 32w16, 32w14) " + x + ";", f"implementation = {x};"),
        "counter": (f"direct_counter(CounterType.{rng.choice(['packets', 'bytes', 'packets_and_bytes'])}) {x};", f"counters = {x};"),
        "meter": (f"direct_meter<bit<8>>(MeterType.{rng.choice(['packets', 'bytes'])}) {x};", f"meters = {x};"),
        "meter_read": ("direct_meter<bit<8>>(MeterType.packets) " + x + ";", f"meters = {x};"),
        "shared": (f"action_profile(32w64) {x};", f"implementation = {x};"),
    }[op]
    out = t[:m.end()] + f" {prop}" + t[m.end():]
    if op == "selector_key":
        k = re.search(r"\bkey\s*=\s*\{", out[m.end():])
        if k:
            at = m.end() + k.end()
            out = out[:at] + " sm.ingress_port: selector;" + out[at:]
    if op == "meter_read":   # a read in each listed action of the table's control (a local `bit<8>` kept)
        acts = re.search(r"\bactions\s*=\s*\{\s*(\w+)", out[m.end():])
        a = acts and re.search(r"\baction\s+" + re.escape(acts.group(1)) + r"\s*\([^)]*\)\s*\{", out)
        if a:
            out = out[:a.end()] + f" bit<8> {x}_v; {x}.read({x}_v);" + out[a.end():]
    if op == "shared":
        nxt = re.search(r"(?m)^[ \t]*table\s+\w+\s*\{", out[m.end():])
        if nxt:
            at = m.end() + nxt.end()
            out = out[:at] + f" {prop}" + out[at:]
    out = out[:m.start()] + f"{ind}{decl}\n" + out[m.start():]
    return out, m.start(), f"{op}: {decl[:50]} on {name}"


KINDS = {f.__name__[2:]: f for f in [m_id_anno, m_cp_anno, m_match_field, m_resource, m_pkg_info, m_digest_data,
                                     m_table_extern]}


def p4info_differs(path, cache_root) -> str:
    """For a mutant both compilers accept: '' when checkmate-p4c's P4Info equals p4c's, else the
    first differing line of the canonical texts."""
    import hashlib

    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    from switch.bmv2json.p4c import run_p4c_cached
    from switch.compiler import compile_file
    from switch.compiler.p4info import canonical_text
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    r = run_p4c_cached(path, cache_root / f"p4c-{digest}")
    if isinstance(r, str):
        return ""
    ref = canonical_text(text_format.Parse(r[1], p4info_pb2.P4Info()))
    ours = canonical_text(compile_file(str(path)).p4info)
    if ref == ours:
        return ""
    a, b = ref.splitlines(), ours.splitlines()
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"line {i + 1}: p4c {a[i] if i < len(a) else '(end)'!r} ours {b[i] if i < len(b) else '(end)'!r}"
