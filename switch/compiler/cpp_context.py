"""The contexts of macro names for :class:`~.preprocessor.Preprocessor`: cpp's disabled macros.

cpp never expands a macro's name inside that macro's own expansion (the name is "painted" for
good), and a call whose arguments run past the end of an expansion is expanded outside it.  The
text-based preprocessor keeps this per name: a context (``\x04N.M\x05``, :data:`~.cpp_tokens.CONTEXT`)
after a macro name lists the macros whose expansion it was read in, an end (``\x04!N\x05``) marks
where an expansion stops, a pin (``\x01N\x01``) the line a name was written on.  This mixin
attaches and reads them (:meth:`_body`, :meth:`_paint`, :meth:`_outside`, :meth:`_settle`); the
numbers are :meth:`_context_id`'s.
"""
from __future__ import annotations

import re

from .cpp_tokens import CONTEXT, PIN, in_literal

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_TAG = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(\x01\d+\x01)?(?:\x04([\d.]*)\x05)?")
_NAME_CONTEXT = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(\x01\d+\x01)?\x04([\d.]*)\x05")


class MacroContexts:
    """Mixin of :class:`~.preprocessor.Preprocessor` (needs its ``macros``)."""

    def _paint(self, text: str, names: frozenset) -> str:
        """``text`` with ``names`` added to the context of each macro name in it (outside literals)."""
        nids = {str(self._context_id(n)) for n in names}

        def one(m):
            s = m.group(1)
            if s not in self.macros or (m.start() and text[m.start() - 1].isalnum()) or in_literal(text, m.start()):
                return m.group(0)
            ids = set(filter(None, (m.group(3) or "").split("."))) | nids
            return f"{s}{m.group(2) or ''}\x04{'.'.join(sorted(ids))}\x05"
        return _NAME_TAG.sub(one, text)

    def _pin(self, text: str, line: int, skip=()) -> str:
        """``text`` with each macro name and ``__LINE__`` (outside literals, not already pinned)
        followed by a pin to ``line`` (:data:`~.cpp_tokens.PIN`)."""
        def one(m):
            s = m.group(0)
            if s in skip or not (s in self.macros or s == "__LINE__") or PIN.match(text, m.end()) \
                    or (m.start() and text[m.start() - 1].isalnum()) or in_literal(text, m.start()):
                return s
            return f"{s}\x01{line}\x01"
        return _IDENT.sub(one, text)

    def _body(self, body: str, name: str, pin: int | None, context: frozenset, params=()) -> str:
        """A macro's body as its expansion of ``name`` (with ``context``, pinned to ``pin``): each
        macro name in it (not a parameter) carries the context plus ``name``, so that it is never
        expanded inside its own expansion (:data:`~.cpp_tokens.CONTEXT`)."""
        tag = "\x04" + ".".join(sorted(str(self._context_id(n)) for n in context | {name})) + "\x05"
        pinned = f"\x01{pin}\x01" if pin is not None else ""

        def one(m):
            s = m.group(0)
            if s in params or (m.start() and body[m.start() - 1].isalnum()) or in_literal(body, m.start()):
                return s
            if s in self.macros:
                return s + pinned + tag
            return s + pinned if s == "__LINE__" else s
        return _IDENT.sub(one, body)

    def _outside(self, text: str, popped: frozenset) -> str:
        """``text`` with the macros ``popped`` taken out of its names' contexts (a name stays in its
        own: it was read inside its expansion)."""
        if not popped or "\x04" not in text:
            return text

        def one(m):
            names = set(self._context_names(m.group(3))) - (popped - {m.group(1)})
            ids = ".".join(sorted(str(self._context_id(n)) for n in names))
            return f"{m.group(1)}{m.group(2) or ''}\x04{ids}\x05"
        return _NAME_CONTEXT.sub(one, text)

    def _context_id(self, name: str) -> int:
        ids = getattr(self, "context_ids", None)
        if ids is None:
            ids = self.context_ids = {}
        return ids.setdefault(name, len(ids))

    def _end(self, name: str) -> str:
        """The :data:`~.cpp_tokens.END` of an expansion of ``name``."""
        return f"\x04!{self._context_id(name)}\x05"

    def _context_names(self, ids: str) -> list[str]:
        names = {i: n for n, i in getattr(self, "context_ids", {}).items()}
        return [names[int(i)] for i in ids.split(".") if i]

    def _settle(self, text: str, raw: str) -> str:
        """An argument ``raw`` expanded (``text``) as cpp hands it to the body: the expansions its
        pre-expansion opened are closed by then, so its names keep only the contexts ``raw`` had and,
        if painted (read inside their own expansion), their own -- `B(C)` with `#define C G F`,
        `#define F ( )`, `#define G() C` gives `G ( )` in B's body, whose call expands C again."""
        if "\x04" not in text:
            return text
        outer = {i for m in CONTEXT.finditer(raw) for i in m.group(1).split(".") if i}

        def one(m):
            ids = set(filter(None, m.group(3).split(".")))
            own = str(self._context_id(m.group(1)))
            keep = (ids & outer) | ({own} if own in ids else set())
            return f"{m.group(1)}{m.group(2) or ''}\x04{'.'.join(sorted(keep))}\x05"
        return _NAME_CONTEXT.sub(one, text)
