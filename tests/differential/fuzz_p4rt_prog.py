"""Random v1model programs for the P4Runtime differential fuzzer (:mod:`fuzz_p4rt`).

The programs exist to give P4Runtime something to talk to, not to stress the data plane:
one to three tables over a small fixed header (``eth`` + ``h{a: bit<8>, b: bit<8>, c:
bit<16>, d: bit<32>}`` + ``ingress_port: bit<9>``), each with a random key (every match
kind: exact, lpm, ternary, range, optional; whole-byte and odd widths), actions with
parameters, and, chosen per seed: ``const`` default actions, ``const entries``, an action
profile or an action selector, direct counters and meters, indirect counters and meters, a
register, a parser value set and a digest.  ``generate(seed)`` returns the source; it is
deterministic.
"""
from __future__ import annotations

import random

#: the key fields a table may use: (expression, width)
FIELDS = [("hdr.h.a", 8), ("hdr.h.b", 8), ("hdr.h.c", 16), ("hdr.h.d", 32),
          ("hdr.eth.dst", 48), ("sm.ingress_port", 9)]
KINDS = ["exact", "lpm", "ternary", "range", "optional"]

_HEAD = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header h_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }
struct meta_t { bit<8> m8; bit<16> m16; }
struct dg_t { bit<8> a; bit<16> c; }
struct headers_t { eth_t eth; h_t h; }
"""


def _const_value(rng, kind, w):
    top = (1 << w) - 1
    if kind in ("exact", "optional"):
        return str(rng.randrange(0, min(top, 200) + 1))
    if kind == "ternary":
        mask = rng.randrange(1, top + 1)
        return f"{rng.randrange(0, top + 1) & mask} &&& {mask}"
    if kind == "lpm":
        plen = rng.randrange(1, w + 1)
        mask = top ^ ((1 << (w - plen)) - 1)
        return f"{rng.randrange(0, top + 1) & mask} &&& {mask}"
    lo = rng.randrange(0, min(top, 100))
    return f"{lo} .. {lo + rng.randrange(0, 50)}"


def _compared(text: str, kind: str, w: int):
    """What BMv2 compares of a const key element written ``text``: an lpm prefix counts from the top
    of the field's byte container, so of a field that is not whole bytes fewer bits (none of a /3 of
    a bit<9>); other kinds as written."""
    if kind != "lpm":
        return text
    v, m = (int(x) for x in text.split("&&&"))
    plen = bin(m).count("1")
    cmp = max(0, plen - (-w % 8))
    return v & (((1 << cmp) - 1) << (w - cmp)), plen


def _table(rng, i, externs, decls, actions_used):
    name = f"t{i}"
    nkeys = rng.randint(1, 3)
    fields = rng.sample(FIELDS, nkeys)
    keys, kinds = [], []
    has_lpm = False
    for f, w in fields:
        k = rng.choice(KINDS)
        if k == "lpm":
            if has_lpm:
                k = "exact"
            has_lpm = True
        keys.append((f, w, k))
        kinds.append(k)
    impl = rng.choice([None, None, None, "profile", "selector"])
    dcounter = rng.random() < 0.3
    dmeter = rng.random() < 0.2
    acts = ["fwd", "set_a", "drop"]
    body = [f"    table {name} {{", "        key = {"]
    for f, w, k in keys:
        body.append(f"            {f}: {k};")
    if impl == "selector":
        body.append("            hdr.h.c: selector;")
    body.append("        }")
    if dmeter:
        decls.append(f"    direct_meter<bit<8>>(MeterType.{rng.choice(['packets', 'bytes'])}) dm_{name};")
        decls.append(f"    action metered_{name}(bit<9> port) {{ dm_{name}.read(m.m8); sm.egress_spec = port; }}")
        acts = [f"metered_{name}"] + acts
    if dcounter:
        decls.append(f"    direct_counter(CounterType.{rng.choice(['packets', 'bytes', 'packets_and_bytes'])}) dc_{name};")
    body.append("        actions = { " + " ".join(f"{a};" for a in acts) + " NoAction; }")
    if impl == "profile":
        decls.append(f"    action_profile({rng.choice([4, 16])}) ap_{name};")
        body.append(f"        implementation = ap_{name};")
    elif impl == "selector":
        decls.append(f"    action_selector(HashAlgorithm.crc16, {rng.choice([8, 16])}, 8) as_{name};")
        body.append(f"        implementation = as_{name};")
    if dcounter:
        body.append(f"        counters = dc_{name};")
    if dmeter:
        body.append(f"        meters = dm_{name};")
    if impl is None:
        r = rng.random()
        if r < 0.25:
            body.append("        const default_action = drop();")
        elif r < 0.6:
            body.append(f"        default_action = fwd({rng.randrange(0, 8)});")
        if not dmeter and rng.random() < 0.3:
            ents, ekeys = [], []
            for _ in range(rng.randint(1, 3)):
                vals = [_const_value(rng, k, w) for _, w, k in keys]
                key = vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"
                act = rng.choice([f"fwd({rng.randrange(0, 8)})", f"set_a({rng.randrange(0, 256)}, 2)", "drop()"])
                ents.append(f"            {key}: {act};")
                ekeys.append(tuple(_compared(v, k, w) for v, (_, w, k) in zip(vals, keys)))
            # (no key twice, whatever the actions: p4c compiles `147: drop(); 147: set_a(..);`, but
            # simple_switch_grpc dies loading such a config and checkmate-switch refuses it -- seed 4472;
            # nor two lpm keys whose compared bits are the same: `448 &&& 448` and `256 &&& 448` of a
            # bit<9> field -- seed 4821)
            if len(set(ekeys)) == len(ekeys):
                body.append("        const entries = {")
                body += ents
                body.append("        }")
    body.append(f"        size = {rng.choice([8, 64, 1024])};")
    body.append("    }")
    return name, body


def generate(seed: int) -> str:
    """The program of ``seed`` (P4-16 source)."""
    rng = random.Random(f"p4rt-{seed}")
    decls, tables = [], []
    vset = rng.random() < 0.35
    digest = rng.random() < 0.4
    counter = rng.random() < 0.5
    meter = rng.random() < 0.4
    register = rng.random() < 0.3
    for i in range(rng.randint(1, 3)):
        tables.append(_table(rng, i, None, decls, None))
    out = [_HEAD]
    out.append("parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {")
    if vset:
        out.append(f"    value_set<bit<16>>({rng.choice([2, 4])}) vs;")
    out.append("    state start { pk.extract(hdr.eth); transition select(hdr.eth.type) {")
    out.append("        0x1234: ph;" + (" vs: ph;" if vset else "") + " default: accept; } }")
    out.append("    state ph { pk.extract(hdr.h); transition accept; }")
    out.append("}")
    out.append("control VC(inout headers_t hdr, inout meta_t m) { apply { } }")
    out.append("control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {")
    if counter:
        out.append(f"    counter({rng.choice([4, 8])}, CounterType.{rng.choice(['packets', 'bytes', 'packets_and_bytes'])}) c1;")
    if meter:
        out.append(f"    meter({rng.choice([4, 8])}, MeterType.{rng.choice(['packets', 'bytes'])}) mt1;")
    if register:
        out.append("    register<bit<16>>(4) r1;")
    out.append("    action drop() { mark_to_drop(sm); }")
    out.append("    action fwd(bit<9> port) { sm.egress_spec = port; }")
    out.append("    action set_a(bit<8> v, bit<9> port) { hdr.h.a = v; sm.egress_spec = port; }")
    out += decls
    for _, body in tables:
        out += body
    out.append("    apply {")
    out.append("        sm.egress_spec = 1;")
    out.append("        if (hdr.h.isValid()) {")
    if counter:
        out.append("            c1.count((bit<32>)(hdr.h.b & 3));")
    if meter:
        out.append("            mt1.execute_meter((bit<32>)(hdr.h.b & 3), m.m8);")
        out.append("            hdr.h.b = m.m8;")
    if register:
        out.append("            r1.write((bit<32>)(hdr.h.b & 3), hdr.h.c);")
    for name, _ in tables:
        out.append(f"            {name}.apply();")
    if digest:
        out.append("            digest<dg_t>(1, {hdr.h.a, hdr.h.c});")
    out.append("        }")
    out.append("    }")
    out.append("}")
    out.append("control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }")
    out.append("control CC(inout headers_t hdr, inout meta_t m) { apply { } }")
    out.append("control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr.eth); pk.emit(hdr.h); } }")
    out.append("V1Switch(P(), VC(), I(), E(), CC(), D()) main;")
    return "\n".join(out) + "\n"
