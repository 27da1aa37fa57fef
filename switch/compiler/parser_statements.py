"""Statements of the P4-16 parser (a mixin of :class:`switch.compiler.parser.Parser`):
blocks, if/switch/exit/return, declarations, assignments and compound assignments
(``a op= b``), ``for`` loops (three-part and ``for (T x in ...)``), break/continue."""
from __future__ import annotations

from .ast import Node
from .errors import P4CompileError
from .lexer import NON_TYPE_KEYWORDS

_COMPOUND = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "|+|=", "|-|="}


class StatementParser:
    def block(self) -> Node:
        with self.scope():
            return self._block()

    def _block(self) -> Node:
        loc = self.expect("{").loc
        stmts = []
        while not self.at("}"):
            if self.t.kind == "eof":
                raise self.err("'}'")
            stmts.append(self.statement())
        self.expect("}")
        return Node("block", loc, stmts=stmts)

    def instance_or_var(self, ty: Node, loc, annos) -> Node:
        """What follows a type in a declaration: ``TYPE(args) name;`` (an instance) or
        ``TYPE name [= e];`` (a variable declared at ``loc``)."""
        if self.at("("):
            return self.instance_rest(ty, annos)
        name = self.ident("a variable name")
        init = self.expr() if self.accept("=") else None
        self.expect(";")
        self.declare_obj(name.text)
        return Node("var", loc, type=ty, name=name.text, init=init, annos=annos)

    def instance_rest(self, ty: Node, annos) -> Node:
        """``(args) name;`` after the type of an instantiation, or ``(args) name = { methods };``:
        an instance initializer giving an extern's abstract methods (``init``, a list of function
        declarations; elab_externs.user_extern_instance checks them)."""
        args = self.args()
        name = self.ident("an instance name")
        init = None
        if self.accept("="):
            self.expect("{")
            init = []
            while not self.at("}"):
                loc, ret = self.t.loc, self.return_type()
                fname = self.ident("a method name")
                with self.scope():
                    init.append(self._function_rest(loc, ret, fname, []))
            self.expect("}")
        self.expect(";")
        self.declare_obj(name.text)
        return Node("instance", name.loc, type=ty, args=args, name=name.text, annos=annos,
                    **({"init": init} if init is not None else {}))

    def statement(self) -> Node:
        self._enter()
        try:
            return self._statement()
        finally:
            self.depth -= 1

    def _statement(self) -> Node:
        annos = self.annotations()
        t = self.t
        if self.at("{"):
            return self.block()
        if annos and not (self.at("const") or (self.is_type_start() and self._looks_like_decl())):
            # p4c 1.2.4.8's grammar: only a block statement or a declaration takes annotations
            raise P4CompileError(t.loc, "syntax error: an annotation can only precede a block statement "
                                        "or a declaration here, not this statement")
        if self.accept(";"):
            return Node("empty", t.loc)
        if self.at("if"):
            self.next()
            self.expect("(")
            c = self.expr()
            self.expect(")")
            # a braced branch is one level (the if), not two (if + block)
            then = self.block() if self.at("{") else self.statement()
            els = (self.block() if self.at("{") else self.statement()) if self.accept("else") else None
            return Node("if", t.loc, cond=c, then=then, els=els)
        if self.at("switch"):
            self.next()
            self.expect("(")
            e = self.expr()
            self.expect(")")
            self.expect("{")
            cases = []
            while not self.at("}"):
                cl = self.t.loc
                if self.accept("default"):
                    label = None
                else:
                    label = self.expr()
                self.expect(":")
                body = self.block() if self.at("{") else None
                cases.append(Node("swcase", cl, label=label, body=body))
            self.expect("}")
            return Node("switch", t.loc, expr=e, cases=cases)
        if self.at("exit"):
            self.next()
            self.expect(";")
            return Node("exit", t.loc)
        if self.at("return"):
            self.next()
            v = None if self.at(";") else self.expr()
            self.expect(";")
            return Node("return", t.loc, value=v)
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("transition"):
            raise P4CompileError(t.loc, "transition must be the last statement of a parser state")
        if t.kind == "id" and t.text == "for" and self.peek().text == "(":   # (`for` is a name elsewhere: lexer)
            return self.for_stmt()
        if t.kind == "id" and t.text in ("break", "continue") and self.peek().text == ";":
            self.next()
            self.next()
            return Node(t.text, t.loc)
        # variable declaration?  TYPE name [= e];
        if self.is_type_start() and self._looks_like_decl():
            return self.instance_or_var(self.type_ref(), t.loc, annos)
        e = self.expr()
        if self.accept("="):
            r = self.expr()
            self.expect(";")
            return Node("assign", t.loc, lhs=e, rhs=r)
        if self.t.kind == "op" and self.t.text in _COMPOUND:
            # `a op= b` is `a = a op b` (P4-16 1.2.5); the left-hand side is an lvalue path
            op = self.next()
            r = self.expr()
            self.expect(";")
            return Node("assign", t.loc, lhs=e, rhs=Node("binary", op.loc, op=op.text[:-1], a=e, b=r))
        if e.kind == "call":   # p4c: `T(...)` starts an instantiation, a name must follow
            self.check_action_ref(e, "an action or function to call")
        self.expect(";")
        if e.kind != "call":
            raise P4CompileError(t.loc, "expression statement must be a call or an assignment")
        return Node("call_stmt", t.loc, call=e)

    def _looks_like_decl(self) -> bool:
        """At a type name: is this `T x ...` (declaration) rather than an expression?"""
        save = self.i
        try:
            self.type_ref()
            ok = self.t.kind == "id" or (self.t.kind == "kw" and self.t.text in NON_TYPE_KEYWORDS) \
                or self.at("(", "list")   # (p4c's grammar: `list` names a declaration, no value)
            if self.at("(") and self.toks[save].kind == "id":
                # "T(args) name;" is an instantiation, "f(args);" a call
                depth, j = 0, self.i
                while j < len(self.toks):
                    x = self.toks[j]
                    if x.text == "(":
                        depth += 1
                    elif x.text == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                ok = self.toks[j + 1].kind == "id" if j + 1 < len(self.toks) else False
            return ok
        except P4CompileError:
            return False
        finally:
            self.i = save

    # -- expressions ----------------------------------------------------------------------

    # -- for loops (P4-16 1.2.5) -------------------------------------------------------
    def for_stmt(self) -> Node:
        """``for (init; cond; update) body`` or ``for (T x in expr) body``."""
        loc = self.next().loc   # (`for`)
        self.expect("(")
        if self.is_type_start() and self._for_in_ahead():
            ty = self.type_ref()
            name = self.ident("a loop variable name")
            self.expect("in")
            rng = self.expr()
            if self.accept(".."):   # `lo .. hi`: every value from lo to hi
                rng = Node("range", rng.loc, lo=rng, hi=self.expr())
            self.expect(")")
            body = self.block() if self.at("{") else self.statement()
            return Node("for_in", loc, type=ty, name=name.text, range=rng, body=body)
        init = self._simple_stmts(";")
        self.expect(";")
        cond = None if self.at(";") else self.expr()
        self.expect(";")
        update = self._simple_stmts(")")
        self.expect(")")
        body = self.block() if self.at("{") else self.statement()
        return Node("for", loc, init=init, cond=cond, update=update, body=body)

    def _for_in_ahead(self) -> bool:
        save = self.i
        try:
            self.type_ref()
            return self.t.kind == "id" and self.peek().text == "in"
        except P4CompileError:
            return False
        finally:
            self.i = save

    def _simple_stmts(self, end: str) -> list:
        """Comma-separated declarations, assignments or calls of a for header."""
        out = []
        while not self.at(end):
            t = self.t
            if self.is_type_start() and self._looks_like_decl():
                ty = self.type_ref()
                name = self.ident("a variable name")
                init = self.expr() if self.accept("=") else None
                out.append(Node("var", t.loc, type=ty, name=name.text, init=init, annos=[]))
            else:
                e = self.expr()
                if self.accept("="):
                    out.append(Node("assign", t.loc, lhs=e, rhs=self.expr()))
                elif self.t.kind == "op" and self.t.text in _COMPOUND:
                    op = self.next()
                    out.append(Node("assign", t.loc, lhs=e,
                                    rhs=Node("binary", op.loc, op=op.text[:-1], a=e, b=self.expr())))
                elif e.kind == "call":
                    out.append(Node("call_stmt", t.loc, call=e))
                else:
                    raise P4CompileError(t.loc, "a for loop's initializer/update must be a declaration, "
                                                "an assignment or a call")
            if not self.accept(","):
                break
        return out
