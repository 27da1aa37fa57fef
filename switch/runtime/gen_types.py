"""Header and struct classes: ``__slots__``, ``extract`` (one ``int.from_bytes``), ``pack``
(one ``to_bytes``), ``copy``/``reset``; headers with a varbit field track its length.

A mixin of :class:`switch.runtime.codegen.Gen`: ``self.emit(indent, line)`` appends
source, ``self.ir`` is the program IR.
"""
from __future__ import annotations

from .errors import Unsupported
from .gen_helpers import mask


class TypeGen:
    def gen_types(self) -> None:
        for name, h in self.ir["headers"].items():
            if h.get("varbit"):
                self.gen_varbit_header(name, h)
                continue
            fields = self.ir["header_fields"][name]
            specs = h["fields"]
            nbytes = h["bytes"]
            total = nbytes * 8
            cls = f"H_{name}"
            self.emit(0, f"class {cls}:")
            self.emit(1, f"__slots__ = ('_v', {', '.join(repr(f) for f in fields)}{',' if len(fields) == 1 else ''})")
            self.emit(1, f"NBYTES = {nbytes}")
            self.emit(1, "def __init__(self):")
            self.emit(2, "self._v = False")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
            self.emit(1, "def reset(self):")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
            if not fields:
                self.emit(2, "pass")
            self.emit(1, "def copy(self):")
            self.emit(2, f"c = {cls}.__new__({cls})")
            self.emit(2, "c._v = self._v")
            for f in fields:
                self.emit(2, f"c.{f} = self.{f}")
            self.emit(2, "return c")
            plan = _struct_plan(specs, fields, total)
            if plan is not None:
                self.gen_struct_codec(cls, nbytes, plan)
            else:
                self.gen_int_codec(fields, specs, nbytes, total)
            self.emit(0, "")
        for name, s in self.ir["structs"].items():
            cls = f"S_{name}"
            fields = s["fields"] + s.get("varbit_boxes", [])   # (a local's varbit field: a _VB box)
            self.emit(0, f"class {cls}:")
            self.emit(1, f"__slots__ = ({', '.join(repr(f) for f, _ in fields)}{',' if len(fields) == 1 else ''})")
            self.emit(1, "def __init__(self):")
            for f, t in fields:
                self.emit(2, f"self.{f} = {self.default(t)}")
            if not fields:
                self.emit(2, "pass")
            self.emit(1, "def copy(self):")
            self.emit(2, f"c = {cls}.__new__({cls})")
            for f, t in fields:
                if t[0] in ("header", "struct", "stack", "varbit"):
                    self.emit(2, f"c.{f} = self.{f}.copy()")
                else:
                    self.emit(2, f"c.{f} = self.{f}")
            self.emit(2, "return c")
            self.emit(0, "")

    def gen_int_codec(self, fields, specs, nbytes: int, total: int) -> None:
        """``extract``/``pack`` through one big int (headers a struct plan cannot cover)."""
        # extract
        self.emit(1, "def extract(self, data, off, n):")
        self.emit(2, f"end = off + {nbytes}")
        self.emit(2, "if end > n:")
        self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
        if fields:
            self.emit(2, "v = int.from_bytes(data[off:end], 'big')")
        pos = total
        for f, (_, w, signed) in zip(fields, specs):
            pos -= w
            expr = f"v >> {pos}" if pos else "v"
            expr = f"({expr}) & {mask(w)}" if pos + w < total or pos == 0 and w < total else expr
            if pos == 0 and w == total:
                expr = "v"
            elif pos == 0:
                expr = f"v & {mask(w)}"
            elif pos + w == total:
                expr = f"v >> {pos}"
            else:
                expr = f"(v >> {pos}) & {mask(w)}"
            if signed:
                expr = f"_sw({expr}, {w})"
            self.emit(2, f"self.{f} = {expr}")
        self.emit(2, "self._v = True")
        self.emit(2, "return end")
        # pack
        self.emit(1, "def pack(self):")
        parts = []
        pos = total
        for f, (_, w, signed) in zip(fields, specs):
            pos -= w
            val = f"(self.{f} & {mask(w)})" if signed else f"self.{f}"
            parts.append(f"{val} << {pos}" if pos else val)
        self.emit(2, f"return ({' | '.join(parts) or '0'}).to_bytes({nbytes}, 'big')")

    def gen_struct_codec(self, cls: str, nbytes: int, plan) -> None:
        """``extract``/``pack`` through one precompiled ``struct.Struct`` (see :func:`_struct_plan`)."""
        fmt = "!" + "".join(c for g in plan for c in g[0])
        st = f"_ST_{cls}"
        # the Struct lives in the class body: methods reach it through default arguments
        self.emit(1, f"{st} = _Struct({fmt!r})")
        self.emit(1, f"def extract(self, data, off, n, _u={st}.unpack_from):")
        self.emit(2, f"end = off + {nbytes}")
        self.emit(2, "if end > n:")
        self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
        targets, post = [], []
        for gi, (codes, members, width) in enumerate(plan):
            parts = [f"_g{gi}_{k}" for k in range(len(codes))] if len(codes) > 1 else [f"_g{gi}"]
            if len(members) == 1 and len(codes) == 1 and not codes[0].endswith("s") and not members[0][2]:
                targets.append(f"self.{members[0][0]}")
                continue
            targets.extend(parts)
            if codes[0].endswith("s"):
                gv = f"int.from_bytes({parts[0]}, 'big')"
            elif len(parts) == 1:
                gv = parts[0]
            else:
                acc, shift = parts[-1], _CODE_BITS[codes[-1]]
                for p, c in zip(reversed(parts[:-1]), reversed(codes[:-1])):
                    acc = f"{p} << {shift} | {acc}"
                    shift += _CODE_BITS[c]
                gv = acc
            if len(members) == 1:
                f, w, sg = members[0]
                post.append(f"self.{f} = {'_sw(' + gv + f', {w})' if sg else gv}")
                continue
            if gv != f"_g{gi}":
                post.append(f"_g{gi} = {gv}")
            pos = width
            for f, w, sg in members:
                pos -= w
                if pos + w == width:
                    expr = f"_g{gi} >> {pos}" if pos else f"_g{gi}"
                elif pos == 0:
                    expr = f"_g{gi} & {mask(w)}"
                else:
                    expr = f"(_g{gi} >> {pos}) & {mask(w)}"
                post.append(f"self.{f} = {'_sw(' + expr + f', {w})' if sg else expr}")
        self.emit(2, f"{', '.join(targets)}, = _u(data, off)")
        for line in post:
            self.emit(2, line)
        self.emit(2, "self._v = True")
        self.emit(2, "return end")
        self.emit(1, f"def pack(self, _p={st}.pack):")
        args, pre = [], []
        for gi, (codes, members, width) in enumerate(plan):
            terms = []
            pos = width
            for f, w, sg in members:
                pos -= w
                val = f"(self.{f} & {mask(w)})" if sg else f"self.{f}"
                terms.append(f"{val} << {pos}" if pos else val)
            gv = " | ".join(terms)
            if codes[0].endswith("s"):
                args.append(f"({gv}).to_bytes({width // 8}, 'big')")
            elif len(codes) == 1:
                args.append(gv)
            else:
                pre.append(f"_g{gi} = {gv}")
                shift = width
                for k, c in enumerate(codes):
                    shift -= _CODE_BITS[c]
                    e = f"_g{gi} >> {shift}" if shift else f"_g{gi}"
                    args.append(f"({e}) & {mask(_CODE_BITS[c])}" if k else e)
        for line in pre:
            self.emit(2, line)
        self.emit(2, f"return _p({', '.join(args)})")

    def gen_varbit_header(self, name: str, h: dict) -> None:
        """A header with one varbit field: its current length in bits lives in ``_vb``."""
        fields = self.ir["header_fields"][name]
        specs = h["fields"]
        vb = next(i for i, (f, _, _) in enumerate(specs) if f == h["varbit"])
        vmax = specs[vb][1]
        before = [(py, w, sg) for py, (_, w, sg) in zip(fields[:vb], specs[:vb])]
        after = [(py, w, sg) for py, (_, w, sg) in zip(fields[vb + 1:], specs[vb + 1:])]
        vf = fields[vb]
        wb, wa = sum(w for _, w, _ in before), sum(w for _, w, _ in after)
        cls = f"H_{name}"
        self.emit(0, f"class {cls}:")
        self.emit(1, f"__slots__ = ('_v', '_vb', {', '.join(repr(f) for f in fields)})")
        self.emit(1, f"NBYTES = {h['bytes']}")
        for meth in ("__init__", "reset"):
            self.emit(1, f"def {meth}(self):")
            if meth == "__init__":
                self.emit(2, "self._v = False")
            self.emit(2, "self._vb = 0")
            for f in fields:
                self.emit(2, f"self.{f} = 0")
        self.emit(1, "def copy(self):")
        self.emit(2, f"c = {cls}.__new__({cls})")
        for f in ("_v", "_vb", *fields):
            self.emit(2, f"c.{f} = self.{f}")
        self.emit(2, "return c")
        self.emit(1, "def extract(self, data, off, n):")
        self.emit(2, "return self.extract_var(data, off, n, 0)")
        self.emit(1, "def extract_var(self, data, off, n, vbits):")
        # BMv2's order: a length that is not whole bytes first, then the packet's remaining
        # length, then the varbit's maximum size.  Both checks count the width a valid varbit
        # already holds as well (BMv2 adds the new length to the header's current size, which
        # includes it): a header extracted again in the same packet is judged by both lengths.
        # (A header reused from the previous packet is invalid: BMv2 resets its size.)
        self.emit(2, "if vbits % 8:")
        self.emit(3, f"raise ParserError({self.errors['ParserInvalidArgument']})")
        self.emit(2, "old = self._vb if self._v else 0")
        self.emit(2, f"if off + {h['bytes']} + ((old + vbits) >> 3) > n:")
        self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
        self.emit(2, f"if old + vbits > {vmax}:")
        self.emit(3, f"raise ParserError({self.errors['HeaderTooShort']})")
        self.emit(2, f"end = off + {h['bytes']} + (vbits >> 3)")
        self.emit(2, "v = int.from_bytes(data[off:end], 'big')")
        self.emit(2, f"pos = {wa} + vbits + {wb}")
        for py, w, sg in before:
            self.emit(2, f"pos -= {w}")
            val = f"(v >> pos) & {mask(w)}"
            self.emit(2, f"self.{py} = {'_sw(' + val + f', {w})' if sg else val}")
        self.emit(2, "pos -= vbits")
        self.emit(2, f"self.{vf} = (v >> pos) & ((1 << vbits) - 1)")
        self.emit(2, "self._vb = vbits")
        for py, w, sg in after:
            self.emit(2, f"pos -= {w}")
            val = f"(v >> pos) & {mask(w)}"
            self.emit(2, f"self.{py} = {'_sw(' + val + f', {w})' if sg else val}")
        self.emit(2, "self._v = True")
        self.emit(2, "return end")
        self.emit(1, "def pack(self):")
        self.emit(2, "v = 0")
        for py, w, sg in before:
            self.emit(2, f"v = (v << {w}) | (self.{py} & {mask(w)})")
        self.emit(2, f"v = (v << self._vb) | (self.{vf} & ((1 << self._vb) - 1))")
        for py, w, sg in after:
            self.emit(2, f"v = (v << {w}) | (self.{py} & {mask(w)})")
        self.emit(2, f"return v.to_bytes({h['bytes']} + (self._vb >> 3), 'big')")
        self.emit(0, "")

    def gen_reuse_headers(self, t) -> None:
        """``reuse_headers(h)``: the headers of a finished packet made ready for the next one
        the way BMv2 resets a PHV it takes from its pool -- every header (stack element,
        union member) invalid, a stack's next index 0, but the fields keep their values, so
        a read of a header the parser did not extract sees the previous packet's (BMv2
        behaviour; the P4-16 spec leaves such a read unspecified).  Other leaves (a bit
        field of the headers struct is BMv2 metadata) go back to their defaults."""
        self.emit(0, "def reuse_headers(h):")
        if t[0] == "struct":
            self._reuse_struct(t[1], "h", 1, [0])
        elif t[0] == "header":
            self.emit(1, "h._v = False")
        else:
            self.emit(1, f"return {self.default(t)}")
            return
        self.emit(1, "return h")

    def gen_copy_valid(self, fn: str, t, headers_only: bool = False) -> None:
        """``fn(src, dst)``: BMv2's ``PHV::copy_headers`` from ``src`` into ``dst`` (a PHV taken
        from the pool, reset): a valid header (stack element, union member) is copied whole, an
        invalid one keeps ``dst``'s field values, a stack its next index; returns ``dst``.  An
        E2E clone's and a replica's PHV are made so (simple_switch ``clone_with_phv_reset_metadata_ptr``,
        ``clone_with_phv_ptr``): a read of a header invalid in the original sees the pooled PHV's
        values (fuzz_mutants seeds 4566, 4581).  Other leaves are copied (left alone with ``headers_only``: the metadata
        struct's headers)."""
        self.emit(0, f"def {fn}(src, dst):")
        if t[0] == "struct":
            self._copy_valid_struct(t[1], "src", "dst", 1, [0], headers_only)
        elif t[0] == "header":
            self.emit(1, "return src.copy() if src._v else dst")
            return
        self.emit(1, "return dst")

    def _copy_valid_struct(self, name: str, s: str, d: str, ind: int, n: list, headers_only: bool) -> None:
        """Statements of :meth:`gen_copy_valid` for struct ``name`` at ``s`` / ``d``."""
        for f, ft in self.ir["structs"][name]["fields"]:
            k = ft[0]
            if k == "header":
                self.emit(ind, f"if {s}.{f}._v: {d}.{f} = {s}.{f}.copy()")
            elif k == "struct":
                self._copy_valid_struct(ft[1], f"{s}.{f}", f"{d}.{f}", ind, n, headers_only)
            elif k == "stack":
                n[0] += 1
                a, b = f"_a{n[0]}", f"_b{n[0]}"
                self.emit(ind, f"{a}, {b} = {s}.{f}, {d}.{f}")
                self.emit(ind, f"{b}.n = {a}.n")
                self.emit(ind, f"for _i in range(len({a}.a)):")
                if ft[1] in self.ir["structs"]:  # a stack of header unions
                    self._copy_valid_struct(ft[1], f"{a}.a[_i]", f"{b}.a[_i]", ind + 1, n, headers_only)
                else:
                    self.emit(ind + 1, f"if {a}.a[_i]._v: {b}.a[_i] = {a}.a[_i].copy()")
            elif not headers_only:
                self.emit(ind, f"{d}.{f} = {s}.{f}")

    def _reuse_struct(self, name: str, path: str, ind: int, n: list, headers_only: bool = False) -> None:
        """Statements resetting struct ``name`` at ``path`` as a pooled PHV is reset: headers
        invalid, stacks emptied, other leaves back to their defaults (left alone with
        ``headers_only``: the metadata struct's headers, gen_blocks.gen_meta_headers)."""
        for f, ft in self.ir["structs"][name]["fields"]:
            k = ft[0]
            if k == "header":
                self.emit(ind, f"{path}.{f}._v = False")
            elif k == "struct":
                self._reuse_struct(ft[1], f"{path}.{f}", ind, n, headers_only)
            elif k == "stack":
                n[0] += 1
                v = f"_s{n[0]}"
                self.emit(ind, f"{v} = {path}.{f}")
                self.emit(ind, f"{v}.n = 0")
                self.emit(ind, f"for _e in {v}.a:")
                if ft[1] in self.ir["structs"]:  # a stack of header unions
                    self._reuse_struct(ft[1], "_e", ind + 1, n)
                else:
                    self.emit(ind + 1, "_e._v = False")
            elif not headers_only:
                self.emit(ind, f"{path}.{f} = {self.default(ft)}")

    def default(self, t) -> str:
        k = t[0]
        if k == "bool":
            return "False"
        if k == "header":
            return f"H_{t[1]}()"
        if k == "struct":
            return f"S_{t[1]}()"
        if k == "stack":
            cls = f"S_{t[1]}" if t[1] in self.ir["structs"] else f"H_{t[1]}"  # unions are structs
            return f"Stack([{cls}() for _ in range({t[2]})], {cls})"
        if k in ("bit", "int", "error", "enum", "serenum", "int_lit", "match_kind"):
            return "0"
        if k == "varbit":  # a varbit local: bits and length (see gen_helpers._VB)
            return "_VB()"
        if k == "list":  # tuple<...>: an immutable Python tuple
            return "(" + "".join(self.default(x) + ", " for x in t[1]) + ")"
        raise Unsupported(f"no default value for type {t}")


_CODE_BITS = {"B": 8, "H": 16, "I": 32, "Q": 64}
_SPLIT = {1: "B", 2: "H", 3: "HB", 4: "I", 5: "IB", 6: "IH", 7: "IHB", 8: "Q"}


def _struct_plan(specs, fields, total: int):
    """Split a header into byte-aligned groups of consecutive fields for one ``struct``
    format: ``[(codes, [(field, width, signed)], group_bits)]``, or None if the fields
    do not tile the header in whole bytes.  A group of 1..8 bytes is read as unsigned
    ints (``B``/``H``/``I``/``Q``, several for 3/5/6/7 bytes) and its fields are cut out
    with shifts; a longer group is read as bytes and converted with ``int.from_bytes``."""
    if not fields or total % 8:
        return None
    plan, members, width = [], [], 0
    for f, (_, w, signed) in zip(fields, specs):
        members.append((f, w, signed))
        width += w
        if width % 8 == 0 and width:  # a bit<0> field joins the next group
            nb = width // 8
            codes = list(_SPLIT[nb]) if nb <= 8 else [f"{nb}s"]
            plan.append((codes, members, width))
            members, width = [], 0
    if members or sum(g[2] for g in plan) != total:
        return None
    return plan
