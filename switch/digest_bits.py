"""A digest's values as BMv2 delivers them when p4c's learn list and the P4Info struct disagree.

p4c 1.2.4.8 writes the learn list of ``digest<S>(1, { b = x, a = y })`` (p4c's JSON
``learn_lists``) in the initializer's written order, while the P4Info names S's members in S's
order.  simple_switch packs each learn-list value into whole bytes, one after the other, and its
P4Runtime server cuts those bytes at the P4Info members (each member ceil(w/8) bytes), so the
members get bytes of other values: for ``struct S { bit<8> a; bit<16> b; }`` and x = 16w3,
y = 8w1, a = 0x00 and b = 0x0301 (BMv2 1.15.5; helpers corpus22 and errs21, measured alike).
:func:`reread_bytes` builds that in the IR both front ends share (switch/compiler for
checkmate-p4c's build, switch/bmv2json for p4c's JSON); :func:`learn_bytes_reread` is the
compiler's entry, from a struct initializer's field order.
"""
from __future__ import annotations


def learn_bytes_reread(items: list, members: list, order: list) -> list:
    """The values a controller reads for a digest of a struct initializer whose fields are written
    in ``order`` (names), another order than the struct's ``members`` ([(name, type)]); ``items``:
    the values in the declared order.  Bit members only (else ``items`` unchanged)."""
    if not all(ft[0] == "bit" for _, ft in members):
        return items
    by_name = {fn: (it, ft[1]) for (fn, ft), it in zip(members, items)}
    written = [by_name[fn] for fn in order] + [by_name[fn] for fn, _ in members if fn not in order]
    return reread_bytes(written, [ft[1] for _, ft in members])


def reread_bytes(values: list, widths: list) -> list:
    """``values`` ([(IR, bits)]) packed each into whole bytes, as simple_switch packs a learn list,
    cut into ``widths`` by whole bytes, as its P4Runtime server reads them for the P4Info's members.
    Unchanged when the bytes do not add up."""
    def nbytes(w):
        return -(-w // 8) * 8
    if sum(nbytes(w) for _, w in values) != sum(nbytes(w) for w in widths):
        return [v for v, _ in values]
    cat = None
    for it, w in values:
        v = {"op": "cast", "a": it, "t": ["bit", nbytes(w)]} if nbytes(w) != w else it
        cat = v if cat is None else {"op": "bin", "o": "++", "a": cat, "b": v, "t": ["bit", cat["t"][1] + nbytes(w)]}
    out, hi = [], cat["t"][1] - 1
    for w in widths:
        chunk = {"op": "slice", "a": cat, "hi": hi, "lo": hi - nbytes(w) + 1, "t": ["bit", nbytes(w)]}
        out.append(chunk if nbytes(w) == w else {"op": "cast", "a": chunk, "t": ["bit", w]})
        hi -= nbytes(w)
    return out
