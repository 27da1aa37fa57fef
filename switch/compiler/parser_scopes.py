"""Which names p4c's lexer reads as type names (a mixin of :class:`switch.compiler.parser.Parser`).

p4c's grammar needs to know whether an identifier is a type: its lexer returns
``TYPE_IDENTIFIER`` for a name that the innermost scope declaring it declares as a type, and
the grammar takes a value (an expression, an assignment target, an action in a table's
``actions`` or ``entries``, a switch label) only from a plain ``IDENTIFIER``.  Its symbol
table is not the language's: only some declarations enter it --

* types: ``header``/``struct``/``header_union``/``enum``/``typedef``/``type``, externs,
  packages, parsers and controls (a control's or parser's own name from its first line, so
  inside ``control I`` the name ``I`` is a type), and the type parameters of a generic
  declaration (within it);
* objects, which hide a type of the same name in their scope: variables, constants,
  instances, functions and extern functions, the parameters of a control, parser or function,
  and parser states;
* nothing at all: actions, tables, value sets, action parameters and constructor parameters.

So ``action I() {...}`` inside ``control I``, or an action or table named like a header type,
is declared without complaint (p4c warns that it shadows the type), but every use of it is a
syntax error ("unexpected ;" after ``I()``, "unexpected TYPE_IDENTIFIER" in an action list),
and so is the use of an action parameter named like a type.  :meth:`lexes_as_type` answers
that question from the parser's type names (``self.types``) and a stack of object scopes
(``self.objs``); the parser asks it only where p4c's grammar wants a plain identifier.
"""
from __future__ import annotations

import contextlib

from .ast import Node
from .errors import P4CompileError
from .lexer import Tok


class TypeNameScopes:
    def init_scopes(self) -> None:
        self.objs: list[set[str]] = [set()]

    @contextlib.contextmanager
    def scope(self):
        """A nested scope of p4c's symbol table: objects declared in it are dropped at its end,
        and so are the type names it added (type parameters)."""
        types_before = set(self.types)
        self.objs.append(set())
        try:
            yield
        finally:
            self.objs.pop()
            self.types &= types_before

    def declare_obj(self, *names: str) -> None:
        self.objs[-1].update(names)

    def lexes_as_type(self, name: str) -> bool:
        return name in self.types and not any(name in s for s in self.objs)

    def type_name_error(self, tok: Tok | Node, name: str, what: str) -> P4CompileError:
        return P4CompileError(tok.loc, f"syntax error: {name} is a type name here, so it cannot be used as "
                                       f"{what} (p4c's grammar reads a name declared as a type as that type "
                                       "wherever it is visible; an action, a table or an action parameter "
                                       "of the same name does not hide it)")

    def check_value_name(self, tok: Tok) -> None:
        """At an identifier where p4c's grammar reads an expression: a type name is only the
        start of ``T.member``, ``T(args)`` (a constructor call) or ``T<...>``.  (``T.apply()``
        of a table named like a type is p4c's type error, not a syntax error: the name node is
        marked ``type_name`` and elab_statements.check_table_not_type_named refuses it.)"""
        if self.lexes_as_type(tok.text) and self.peek().text not in (".", "(", "<"):
            raise self.type_name_error(tok, tok.text, "a value")

    def check_action_ref(self, e: Node, what: str) -> None:
        """An action named in a statement, ``default_action`` or a table entry (``a(...)`` or
        ``a``) must not be a type name (p4c: a syntax error, or a constructor call of the type)."""
        callee = e.fn if e.kind == "call" else e
        if callee.kind == "name" and not callee.get("top") and self.lexes_as_type(callee.name):
            raise self.type_name_error(callee, callee.name, what)
