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
            self.emit(0, "")
        for name, s in self.ir["structs"].items():
            cls = f"S_{name}"
            fields = s["fields"]
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
                if t[0] in ("header", "struct", "stack"):
                    self.emit(2, f"c.{f} = self.{f}.copy()")
                else:
                    self.emit(2, f"c.{f} = self.{f}")
            self.emit(2, "return c")
            self.emit(0, "")

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
        self.emit(2, f"if vbits > {vmax}:")
        self.emit(3, f"raise ParserError({self.errors['HeaderTooShort']})")
        self.emit(2, "if vbits % 8:")
        self.emit(3, f"raise ParserError({self.errors['ParserInvalidArgument']})")
        self.emit(2, f"end = off + {h['bytes']} + (vbits >> 3)")
        self.emit(2, "if end > n:")
        self.emit(3, f"raise ParserError({self.errors['PacketTooShort']})")
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

    def default(self, t) -> str:
        k = t[0]
        if k == "bool":
            return "False"
        if k == "header":
            return f"H_{t[1]}()"
        if k == "struct":
            return f"S_{t[1]}()"
        if k == "stack":
            return f"Stack([H_{t[1]}() for _ in range({t[2]})], H_{t[1]})"
        if k in ("bit", "int", "error", "enum", "serenum", "int_lit"):
            return "0"
        if k == "list":  # tuple<...>: an immutable Python tuple
            return "(" + "".join(self.default(x) + ", " for x in t[1]) + ")"
        raise Unsupported(f"no default value for type {t}")
