"""Expressions of the P4-16 parser (a mixin of :class:`switch.compiler.parser.Parser`):
precedence climbing over p4c's operator levels, casts, calls with type arguments,
member/index/slice postfixes."""
from __future__ import annotations

from .ast import Node
from .errors import P4CompileError
from .lexer import NON_TYPE_KEYWORDS

# Binary operators, lowest precedence first, as in p4c's grammar (p4parser.ypp): unlike
# C, the bitwise & ^ | bind tighter than the comparisons.
_BIN_PREC = [
    ("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("|",), ("^",), ("&",),
    ("<<", ">>"), ("++", "+", "-", "|+|", "|-|"), ("*", "/", "%"),
]
_GENERIC_CALLS = {"lookahead", "extract", "emit", "hash", "random", "digest", "verify_checksum",
                  "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload",
                  "read", "write", "count", "execute_meter"}


class ExpressionParser:
    def args(self) -> list[Node]:
        self.expect("(")
        out = []
        while not self.at(")"):
            t = self.t
            if (t.kind in ("id", "kw") and self.peek().text == "=" and self.peek().kind == "op"):
                self.next()
                self.next()
                # (`r.read(index = 1, result = _)`: a named don't-care, as a positional one; errs69 dc_*_named)
                dc = self.t.kind == "id" and self.t.text == "_"
                out.append(Node("named_arg", t.loc, name=t.text,
                                value=Node("dontcare", self.next().loc) if dc else self.expr()))
            elif t.kind == "id" and t.text == "_":
                self.next()
                out.append(Node("dontcare", t.loc))
            else:
                out.append(self.expr())
            if not self.accept(","):
                break
        self.expect(")")
        return out

    def expr(self) -> Node:
        self._enter()
        try:
            return self._expr()
        finally:
            self.depth -= 1

    def _expr(self) -> Node:
        # `?:` is left-associative in p4c 1.2.4.8's grammar: `a ? b : c ? d : e` is
        # `(a ? b : c) ? d : e` (its type checker then refuses `true ? 8w1 : false ? 8w2 : 8w3`;
        # probed, helper errs15); the middle operand is any expression
        c = self.binary(0)
        while self.at("?"):
            loc = self.next().loc
            a = self.expr()
            self.expect(":")
            b = self.binary(0)
            c = Node("cond", loc, cond=c, a=a, b=b)
        return c

    def binary(self, level: int) -> Node:
        if level == len(_BIN_PREC):
            return self.unary()
        left = self.binary(level + 1)
        ops = _BIN_PREC[level]
        entry = self.depth
        try:
            return self._binary_chain(level, left, ops)
        finally:
            self.depth = entry

    def _binary_chain(self, level: int, left: Node, ops) -> Node:
        # a left-associative chain a+b+c+... nests one node per operator: count it as depth
        while True:
            t = self.t
            if ">>" in ops and self.at_shr():
                self.next()
                self.next()
                op = ">>"
            elif t.kind == "op" and t.text in ops:
                if t.text == ">" and self.at_shr():
                    break
                self.next()
                op = t.text
            else:
                break
            self._enter()
            right = self.binary(level + 1)
            left = Node("binary", t.loc, op=op, a=left, b=right)
        return left

    def unary(self) -> Node:
        t = self.t
        if self.at("!", "~", "-", "+"):
            self.next()
            self._enter()
            try:
                return Node("unary", t.loc, op=t.text, a=self.unary())
            finally:
                self.depth -= 1
        if self.at("(") and self._is_cast():
            self.next()
            ty = self.type_ref()
            self.expect(")")
            self._enter()
            try:
                return Node("cast", t.loc, type=ty, a=self.unary())
            finally:
                self.depth -= 1
        return self.postfix(self.primary())

    def _is_cast(self) -> bool:
        nxt = self.peek()
        if nxt.kind == "kw" and nxt.text in ("bit", "int", "bool", "varbit", "error"):
            return True
        if (nxt.kind == "id" and nxt.text in self.types) or \
                (nxt.text == "." and nxt.kind == "op" and self.peek(2).kind == "id" and self.peek(2).text in self.types):
            save = self.i   # (`(.B8)x`: a prefixed type; errs69 dot_type_cast)
            try:
                self.next()
                self.type_ref()
                return self.at(")") and not self.peek().text in (";", ")", ",", "}", "]", ":")
            except P4CompileError:
                return False
            finally:
                self.i = save
        return False

    def primary(self) -> Node:
        t = self.t
        if t.kind == "num":
            self.next()
            v, w, s = t.value
            return Node("int", t.loc, value=v, width=w, signed=s, base=_literal_base(t.text))
        if self.at("true", "false"):
            self.next()
            return Node("bool_lit", t.loc, value=t.text == "true")
        if t.kind == "str":
            self.next()
            return Node("str", t.loc, value=t.value)
        if self.at("("):
            self.next()
            e = self.expr()
            self.expect(")")
            return e
        if self.at("{") and self.peek().text == "#":
            self.next()
            self.next()
            self.expect("}")
            return Node("invalid_hdr", t.loc)
        if self.at("..."):   # `...` alone: the default value of whatever type the context needs
            self.next()
            return Node("dots", t.loc)
        if self.at("{"):
            # `...` as the last element (P4-16 "default values"): the fields / elements not
            # listed take their type's default value
            self.next()
            dots = False
            if self.at_id() and self.peek().text == "=" and self.peek().kind == "op":
                fields = []
                while not self.at("}"):
                    if self.accept("..."):
                        dots = True
                        break
                    n = self.ident("a field name")
                    self.expect("=")
                    fields.append((n.text, self.expr()))
                    if not self.accept(","):
                        break
                self.expect("}")
                return Node("struct_init", t.loc, fields=fields, dots=dots)
            items = []
            if self.at(",") and self.peek().text not in ("}", ","):
                self.next()   # `{ , a }` is `{ a }` (p4c's expressionList grammar, as in select)
            while not self.at("}"):
                if self.accept("..."):
                    dots = True
                    break
                items.append(self.expr())
                if not self.accept(","):
                    break
            self.expect("}")
            return Node("list", t.loc, items=items, dots=dots)
        if self.at("."):
            self.next()
            n = self.ident()
            return Node("name", n.loc, name=n.text, top=True)
        if self.at("error"):
            self.next()
            return Node("name", t.loc, name="error", top=False)
        if self.at("this"):   # the instance, in an abstract method's body (elab_externs.check_abstract_body)
            self.next()
            return Node("name", t.loc, name="this", top=False)
        if self.at("bit", "int", "bool") or (t.kind == "id" and t.text in self.types and self.peek().text == "<"):
            # a type used as an expression (e.g. a generic call's type argument context)
            ty = self.type_ref()
            return Node("type_expr", t.loc, type=ty)
        if t.kind == "id" or (t.kind == "kw" and t.text in NON_TYPE_KEYWORDS):
            self.check_value_name(t)
            self.next()
            if self.lexes_as_type(t.text):   # `T.m` or `T(...)`: p4c reads the type T there
                return Node("name", t.loc, name=t.text, top=False, type_name=True)
            return Node("name", t.loc, name=t.text, top=False)
        if t.kind == "id" and t.text == "_":
            self.next()
            return Node("dontcare", t.loc)
        raise self.err("an expression")

    def postfix(self, e: Node) -> Node:
        while True:
            t = self.t
            if self.at("."):
                self.next()
                n = self.ident("a member name")
                e = Node("member", e.loc, base=e, name=n.text, name_loc=n.loc)
            elif self.at("["):
                self.next()
                a = self.expr()
                if self.accept(":"):
                    b = self.expr()
                    self.expect("]")
                    e = Node("slice", t.loc, a=e, hi=a, lo=b)
                else:
                    self.expect("]")
                    e = Node("index", t.loc, base=e, index=a)
            elif self.at("("):
                args = self.args()
                e = Node("call", t.loc, fn=e, targs=[], args=args)
            elif self.at("<") and self._generic_call_ahead(e):
                self.next()
                targs = [self._type_arg()]
                while self.accept(","):
                    targs.append(self._type_arg())
                self.expect(">")
                args = self.args()
                e = Node("call", t.loc, fn=e, targs=targs, args=args)
            else:
                return e

    def _generic_call_ahead(self, e: Node) -> bool:
        name = e.get("name")
        if e.kind not in ("name", "member") or (name not in _GENERIC_CALLS and name not in self.generic_fns):
            return False
        save = self.i
        try:
            self.next()
            self._type_arg()
            while self.accept(","):
                self._type_arg()
            return self.at(">") and self.peek().text == "("
        except P4CompileError:
            return False
        finally:
            self.i = save

    def _type_arg(self) -> Node:
        """A call's type argument: a type, or ``_`` (p4c infers it: ``random<_>(x, 1, 3)``)."""
        if self.t.kind == "id" and self.t.text == "_":
            return Node("dontcare", self.next().loc)
        return self.type_ref()


def _literal_base(text: str) -> int:
    """The base an integer literal is written in (``8w0x1F``: 16), kept for p4c's key names."""
    t = text.lower()
    for sep in ("w", "s"):
        head, _, tail = t.partition(sep)
        if tail and head.isdigit():
            t = tail
            break
    return {"0x": 16, "0b": 2, "0o": 8}.get(t[:2], 10)
