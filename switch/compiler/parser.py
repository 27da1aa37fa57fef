"""Recursive-descent parser for the P4-16 subset (grammar of the P4-16 spec, appendix).

P4's grammar is context sensitive at ``<``: ``T<U> x`` declares, ``a < b`` compares.
Like p4c's lexer feedback, the parser keeps the set of names declared as types
(``header``, ``struct``, ``typedef``, ``extern``, ...) and reads ``Name <`` as type
arguments only when ``Name`` is a type (or a generic call such as ``lookahead<T>()``).
Where p4c's grammar wants a plain identifier (a value, an action reference) a name its lexer
reads as a type is a syntax error there too (:mod:`switch.compiler.parser_scopes`).
Every error names the token where parsing stopped and what was expected there.
"""
from __future__ import annotations

import sys

from .ast import Node
from .errors import P4CompileError
from .lexer import Tok
from .parser_annos import AnnotationParser
from .parser_exprs import ExpressionParser
from .parser_scopes import TypeNameScopes
from .parser_tables import TableParser
from .parser_statements import StatementParser

# Nesting bound (parenthesised/unary/binary expressions -- a chain a+b+c+... nests one
# level per operator --, nested statements and types, all counted together): far beyond
# any real program, and low enough that neither this recursive-descent parser nor the
# elaborator meets Python's recursion limit, and that the Python source which
# switch.runtime.codegen generates stays within CPython's limits (about 200 nested
# parentheses per expression, 100 indentation levels).
MAX_NESTING = 64
_RECURSION_HEADROOM = 20 * MAX_NESTING + 2000  # parser frames per nesting level <= ~16
_BASE_TYPES = {"bit", "int", "varbit", "bool", "void", "error", "string", "tuple", "list", "match_kind"}


class Parser(StatementParser, ExpressionParser, TableParser, AnnotationParser, TypeNameScopes):
    """Declarations, types and parsers here; statements, expressions and tables in the mixins."""

    def __init__(self, toks: list[Tok]):
        self.toks = toks
        self.i = 0
        self.types: set[str] = {"packet_in", "packet_out"}
        self.generic_fns: set[str] = set()
        self.depth = 0
        self.init_scopes()

    def _enter(self) -> None:
        """One level deeper; a located error beyond :data:`MAX_NESTING` (never RecursionError)."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise P4CompileError(self.t.loc, f"nesting too deep: more than {MAX_NESTING} levels of nested "
                                             "expressions, statements or types")

    # -- token helpers ------------------------------------------------------------------
    @property
    def t(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, *texts: str) -> bool:
        t = self.t
        return t.kind in ("op", "kw") and t.text in texts

    def at_id(self) -> bool:
        return self.t.kind == "id"

    def next(self) -> Tok:
        t = self.t
        self.i += 1
        return t

    def err(self, expected: str, tok: Tok | None = None):
        tok = tok or self.t
        return P4CompileError(tok.loc, f"expected {expected}, found {tok.text!r}")

    def expect(self, text: str) -> Tok:
        if not self.at(text):
            raise self.err(repr(text))
        return self.next()

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def ident(self, what: str = "an identifier") -> Tok:
        # P4 allows some keywords as names in places (apply, key, actions, ...): accept
        # the non-reserved contextual ones.
        # (p4c's grammar: `list` names a declaration but `string`, `value_set` and `_` name nothing)
        if self.t.kind == "id" and self.t.text != "_" or (self.t.kind == "kw" and self.t.text in
                                                          ("apply", "key", "actions", "entries", "state", "type",
                                                           "priority", "list")):
            return self.next()
        raise self.err(what)

    def at_shr(self) -> bool:
        a, b = self.t, self.peek()
        return (a.kind == "op" and a.text == ">" and b.kind == "op" and b.text == ">"
                and a.loc.line == b.loc.line and a.end_col == b.loc.col and a.loc.file == b.loc.file)

    # -- program ------------------------------------------------------------------------
    def program(self) -> list[Node]:
        decls = []
        while self.t.kind != "eof":
            if self.accept(";"):
                continue
            decls.append(self.declaration())
        return decls

    def declaration(self) -> Node:
        annos = self.annotations(defer_translation=True)
        t = self.t
        bad = next((a.error for a in annos if getattr(a, "error", None)), None)
        if bad is not None and not self.at("type"):
            raise bad
        if self.at("header", "struct", "header_union"):
            return self.struct_like(annos)
        if self.at("typedef", "type"):
            newtype = self.next().text == "type"
            if self.at("void"):   # (p4c's grammar: typedef takes a typeRef or a derived type declaration)
                raise self.err("a type (syntax error, unexpected VOID)")
            ty = self.type_ref()
            name = self.ident("a type name")
            self.expect(";")
            self.types.add(name.text)
            return Node("typedef", name.loc, type=ty, name=name.text, annos=annos, newtype=newtype)
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("enum"):
            return self.enum_decl(annos)
        if self.at("error", "match_kind") and self.peek().text == "{":
            if annos:   # p4c 1.2.4.8's grammar: no annotations on these declarations
                raise P4CompileError(t.loc, f"syntax error: the {t.text} declaration cannot be annotated")
            kind = "error_decl" if self.next().text == "error" else "match_kind"
            self.expect("{")
            if self.at("}"):   # (p4c's identifierList: one name at least; a trailing comma for match_kind only)
                raise P4CompileError(self.t.loc, f"syntax error, unexpected }}: {t.text} declaration without members")
            members = [self.ident("a member name").text]
            while self.accept(","):
                if kind == "match_kind" and self.at("}"):
                    break
                members.append(self.ident("a member name").text)
            self.expect("}")
            return Node(kind, t.loc, members=members)
        if self.at("extern"):
            return self.extern_decl(annos)
        if self.at("parser"):
            return self.parser_decl(annos)
        if self.at("control"):
            return self.control_decl(annos)
        if self.at("package"):
            self.next()
            name = self.ident()
            self.types.add(name.text)
            with self.scope():
                tparams = self.type_params()
                params = self.params()
            self.expect(";")
            return Node("package", name.loc, name=name.text, tparams=tparams, params=params)
        if self.at("action"):
            return self.action_decl(annos)
        if self.at("value_set"):
            raise P4CompileError(t.loc, "value_set is not supported by the embedded target")
        # function declaration or instantiation
        return self.function_or_instance(annos)

    def struct_like(self, annos) -> Node:
        kw = self.next()
        name = self.ident("a type name")
        self.types.add(name.text)
        tparams = self.type_params()   # a generic struct/header: specialized where used
        self.expect("{")
        fields = []
        while not self.at("}"):
            fannos = self.annotations()
            fty = self.type_ref()
            fname = self.ident("a field name")
            self.expect(";")
            fields.append(Node("field", fname.loc, type=fty, name=fname.text, annos=fannos))
        self.expect("}")
        return Node(kw.text, name.loc, name=name.text, fields=fields, annos=annos, tparams=tparams)

    def const_decl(self, annos) -> Node:
        self.expect("const")
        ty = self.type_ref()
        name = self.ident("a constant name")
        self.expect("=")
        val = self.expr()
        self.expect(";")
        self.declare_obj(name.text)
        return Node("const", name.loc, type=ty, name=name.text, value=val, annos=annos)

    def enum_decl(self, annos) -> Node:
        self.expect("enum")
        base = None
        if self.at("bit", "int", "bool", "varbit", "error", "string") or self.at_id() and self.peek().kind == "id":
            # (a typedef name too: `typedef bit<8> B8; enum B8 E { ... }`; `bool` and the like parse,
            # as in p4c's grammar, and elab_types.declare_enum refuses them after the name checks)
            base = self.type_ref()
        name = self.ident("an enum name")
        self.types.add(name.text)
        self.expect("{")
        members, values = [], []
        seen: dict[str, object] = {}
        while not self.at("}"):
            if self.at("@"):   # p4c 1.2.4.8's grammar has no annotations on enum members
                raise P4CompileError(self.t.loc, f"syntax error: enum {name.text}: a member cannot be annotated")
            m = self.ident("an enum member")
            if m.text in seen:
                raise P4CompileError(m.loc, f"enum {name.text}: member {m.text} declared twice "
                                            f"(previous declaration at {seen[m.text]})")
            seen[m.text] = m.loc
            members.append(m.text)
            values.append(self.expr() if self.accept("=") else None)
            if not self.accept(","):
                break
        if not members:   # p4c's grammar: an enum has at least one member
            raise P4CompileError(self.t.loc, f"syntax error, unexpected }}: enum {name.text} has no members")
        self.expect("}")
        if base is not None and any(v is None for v in values):
            raise P4CompileError(name.loc, f"serializable enum {name.text}: every member needs a value")
        return Node("enum", name.loc, name=name.text, members=members, base=base, values=values,
                    annos=annos)

    def type_params(self) -> list[str]:
        out = []
        if self.accept("<"):
            while True:
                tok = self.ident("a type parameter")
                n = tok.text
                if n in out:
                    raise P4CompileError(tok.loc, f"type parameter {n} declared twice")
                out.append(n)
                self.types.add(n)
                if not self.accept(","):
                    break
            self.expect(">")
        return out

    def extern_decl(self, annos) -> Node:
        self.expect("extern")
        # extern function: extern <ret-type> name<...>(...);  extern object: extern Name<...> { ... }
        if (self.at_id() or self.t.kind == "kw") and self.peek().text in ("{", "<") and \
                self.t.text not in _BASE_TYPES and self.t.kind == "id":
            # could still be "extern T name(...)" with T generic... treat "Name {" or "Name<..> {"
            save = self.i
            name = self.next()
            self.types.add(name.text)
            with self.scope():
                obj = self._extern_obj(name, annos)
            if obj is not None:
                return obj
            self.i = save
        ret = self.return_type()
        name = self.ident("an extern function name")
        self.declare_obj(name.text)
        with self.scope():
            tparams = self.type_params()
            params = self.params()
        if tparams:   # calls may give type arguments: log_msg<tuple<bit<8>>>(...), clone3<M>(...)
            self.generic_fns.add(name.text)
        self.expect(";")
        return Node("extern_func", name.loc, name=name.text, ret=ret, tparams=tparams,
                    params=params, annos=annos)

    def _extern_obj(self, name: Tok, annos) -> Node | None:
        """``extern Name<...> { methods }`` after its name; None when no ``{`` follows."""
        tparams = self.type_params()
        if self.at("{"):
            self.next()
            methods = []
            while not self.at("}"):
                mannos = self.annotations()
                abstract = self.accept("abstract")
                if self.at_id() and self.t.text == name.text and self.peek().text == "(":
                    m = self.next()
                    params = self.params()
                    self.expect(";")
                    methods.append(Node("ctor", m.loc, name=m.text, params=params, annos=mannos))
                    continue
                ret = self.return_type()
                m = self.ident("a method name")
                mt = self.type_params()
                if mt:   # calls may give type arguments: e.get<bit<32>>() (errs19 probe t5)
                    self.generic_fns.add(m.text)
                params = self.params()
                self.expect(";")
                methods.append(Node("method", m.loc, name=m.text, ret=ret, tparams=mt,
                                    params=params, annos=mannos, **({"abstract": True} if abstract else {})))
            self.expect("}")
            return Node("extern_obj", name.loc, name=name.text, tparams=tparams,
                        methods=methods, annos=annos)
        return None

    def params(self) -> list[Node]:
        self.expect("(")
        out = []
        while not self.at(")"):
            pannos = self.annotations()
            direction = None
            if self.at("in", "out", "inout"):
                direction = self.next().text
            ty = self.type_ref()
            name = self.ident("a parameter name")
            if direction and ty.kind == "typename" and ty.name in ("packet_in", "packet_out"):
                raise P4CompileError(name.loc, f"{name.text}: a parameter with type {ty.name} cannot have "
                                               "a direction")
            default = self.expr() if self.accept("=") else None
            if default is not None and direction in ("out", "inout"):
                raise P4CompileError(name.loc, f"{name.text}: {direction} parameters cannot have default values")
            if any(p.name == name.text for p in out):
                raise P4CompileError(name.loc, f"parameter {name.text} declared twice")
            out.append(Node("param", name.loc, direction=direction, type=ty, name=name.text,
                            default=default, annos=pannos))
            if not self.accept(","):
                break
        self.expect(")")
        return out

    def _block_signature(self) -> tuple[list[str], list[Node]]:
        """A parser's or control's type parameters and parameters, in its scope (p4c declares
        the parameters there: they hide a type of the same name)."""
        tparams = self.type_params()
        params = self.params()
        self.declare_obj(*(p.name for p in params))
        return tparams, params

    def parser_decl(self, annos) -> Node:
        self.expect("parser")
        name = self.ident("a parser name")
        self.types.add(name.text)   # p4c: a type from here on (its lexer reads it so inside too)
        with self.scope():
            tparams, params = self._block_signature()
            if self.accept(";"):
                return Node("parser_type", name.loc, name=name.text, tparams=tparams, params=params)
            ctor = self.params() if self.at("(") else []
            self.expect("{")
            locals_, states = [], []
            while not self.at("}"):
                lannos = self.annotations()
                if self.at("state"):
                    states.append(self.state())
                elif states:   # p4c's grammar: the parser's local declarations come before its states
                    raise self.err("'state' (local declarations go before the first state)")
                elif self.at("action") or self.at("table"):   # (p4c: "syntax error, unexpected ACTION";
                    # the elaborator met it only after the rest of the program: errs18 probe c_verify_in_function)
                    raise self.err("a constant, variable, instance, value_set or state (no actions or tables in a parser)")
                else:
                    locals_.append(self.local_decl(lannos))
            self.expect("}")
        return Node("parser", name.loc, name=name.text, params=params, ctor_params=ctor,
                    locals=locals_, states=states, annos=annos, tparams=tparams)

    def state(self) -> Node:
        self.expect("state")
        name = self.ident("a state name")
        self.declare_obj(name.text)
        with self.scope():
            return self._state_body(name)

    def _state_body(self, name: Tok) -> Node:
        self.expect("{")
        stmts = []
        trans = None
        while not self.at("}"):
            if self.at("transition"):
                tl = self.next().loc
                if self.at("select"):
                    trans = self.select(tl)
                else:
                    to = self.ident("a state name")
                    trans = Node("direct", to.loc, to=to.text)
                    self.expect(";")
                if not self.at("}"):
                    raise self.err("'}' after the transition")
                break
            if self.at("switch"):   # p4c's grammar: no switch statement in a parser state
                raise self.err("a parser statement (switch is not allowed in a parser state)")
            stmts.append(self.statement())
        self.expect("}")
        if trans is None:
            trans = Node("direct", name.loc, to="reject", implicit=True)
        return Node("state", name.loc, name=name.text, stmts=stmts, transition=trans)

    def select(self, loc) -> Node:
        self.expect("select")
        self.expect("(")
        # p4c takes `select()` (default cases only), and a leading comma (its expressionList
        # grammar: empty, then `, e`): `select(, x)` is `select(x)`
        if self.at(",") and self.peek().text != ")":
            self.next()
        exprs = [] if self.at(")") else [self.expr()]
        while exprs and self.accept(","):
            exprs.append(self.expr())
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            cl = self.t.loc
            ks = self.keyset_tuple()
            self.expect(":")
            to = self.ident("a state name")
            self.expect(";")
            cases.append(Node("case", cl, keysets=ks, to=to.text, to_loc=to.loc))
        self.expect("}")
        return Node("select", loc, exprs=exprs, cases=cases)

    def keyset_tuple(self) -> list[Node]:
        if self.at("("):
            # either a tuple of keysets or a parenthesised expression; try tuple first
            save = self.i
            self.next()
            try:
                items = [self.keyset()]
            except P4CompileError:   # `(pt_t)1`, `(bit<9>)1`: a cast, the keyset a whole expression
                self.i = save
                return [self.keyset()]
            if self.at(","):
                while self.accept(","):
                    items.append(self.keyset())
                self.expect(")")
                return items
            # p4c's reducedSimpleKeysetExpression: a mask, range, `default` or `_` alone in
            # parentheses is a keyset (an expression cannot hold them)
            if items[0].kind in ("mask", "range", "default") and self.accept(")"):
                # `(_)`, `(default)`: a one-element list for p4c, no DefaultExpression (elab_parsers)
                return [Node("default", items[0].loc, paren=True)] if items[0].kind == "default" else items
            self.i = save
        return [self.keyset()]

    def keyset(self) -> Node:
        t = self.t
        if self.at("default"):
            self.next()
            return Node("default", t.loc)
        if self.at_id() and t.text == "_":
            self.next()
            return Node("default", t.loc)
        e = self.expr()
        if self.accept("&&&"):
            return Node("mask", t.loc, value=e, mask=self.expr())
        if self.accept(".."):
            return Node("range", t.loc, lo=e, hi=self.expr())
        return e

    def control_decl(self, annos) -> Node:
        self.expect("control")
        name = self.ident("a control name")
        self.types.add(name.text)   # p4c: a type from here on (its lexer reads it so inside too)
        with self.scope():
            tparams, params = self._block_signature()
            if self.accept(";"):
                return Node("control_type", name.loc, name=name.text, tparams=tparams, params=params,
                            annos=annos)
            ctor = self.params() if self.at("(") else []
            self.expect("{")
            locals_ = []
            body = None
            while body is None or not self.at("}"):
                if self.at("}"):   # p4c's grammar: a control ends with its apply block
                    raise self.err(f"an apply block (control {name.text} has none)")
                lannos = self.annotations()
                if self.at("apply"):
                    if lannos:   # (p4c's grammar: no annotation on the apply block, e.g. a `@pragma` line
                        # that swallowed the table after it; helper errs31)
                        raise P4CompileError(self.t.loc, "syntax error, unexpected APPLY, expecting ACTION or CONST or TABLE")
                    self.next()
                    body = self.block()
                    if not self.at("}"):   # p4c's grammar: the apply block ends the control
                        raise self.err("'}' (the apply block is the last part of a control)")
                    continue
                locals_.append(self.local_decl(lannos))
            self.expect("}")
        return Node("control", name.loc, name=name.text, params=params, ctor_params=ctor,
                    locals=locals_, body=body, annos=annos, tparams=tparams)

    def local_decl(self, annos) -> Node:
        if self.at("action"):
            return self.action_decl(annos)
        if self.at("table"):
            return self.table_decl(annos)
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("value_set"):
            loc = self.next().loc
            self.expect("<")
            ty = self.type_ref()
            if ty.kind == "stack":   # (p4c's grammar: a base type, a tuple or a type name only)
                raise P4CompileError(self.t.loc, "syntax error, unexpected [: a value_set's element type cannot be a header stack")
            self.expect(">")
            self.expect("(")
            size = self.expr()
            self.expect(")")
            name = self.ident("a value_set name")
            self.expect(";")
            return Node("value_set", loc, type=ty, size=size, name=name.text, annos=annos)
        loc = self.t.loc
        return self.instance_or_var(self.type_ref(), loc, annos)

    def action_decl(self, annos) -> Node:
        self.expect("action")
        name = self.ident("an action name")
        params = self.params()
        body = self.block()
        return Node("action", name.loc, name=name.text, params=params, body=body, annos=annos)

    def return_type(self) -> Node:
        """A function's return type: p4c's grammar also takes a plain IDENTIFIER there (typeOrVoid:
        the function's type variable, ``T f<T>(...)``, declared only after it)."""
        self.in_type_args = getattr(self, "in_type_args", 0) + 1
        try:
            return self.type_ref()
        finally:
            self.in_type_args -= 1

    def function_or_instance(self, annos) -> Node:
        loc = self.t.loc
        ty = self.return_type()
        if self.at("("):
            return self.instance_rest(ty, annos)
        name = self.ident("a declaration name")
        self.declare_obj(name.text)
        with self.scope():
            return self._function_rest(loc, ty, name, annos)

    def _function_rest(self, loc, ty: Node, name: Tok, annos) -> Node:
        """A function declaration after its name (in its own scope)."""
        tparams = self.type_params()
        if self.at("("):
            if annos:   # p4c 1.2.4.8's grammar: a function declaration takes no annotations
                raise P4CompileError(annos[0][2] if len(annos[0]) > 2 and annos[0][2] else loc,
                                     f"syntax error: function {name.text} cannot be annotated")
            if tparams:  # calls may give type arguments: name<T>(...)
                self.generic_fns.add(name.text)
            params = self.params()
            self.declare_obj(*(p.name for p in params))
            body = self.block()
            return Node("function", name.loc, name=name.text, ret=ty, params=params, body=body,
                        annos=annos, tparams=tparams)
        raise self.err("'(' after a function name", self.t) if ty.kind != "typename" else \
            P4CompileError(loc, f"unexpected declaration starting with {ty.name!r}")

    # -- types --------------------------------------------------------------------------
    def is_type_start(self) -> bool:
        t = self.t
        if t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool", "error", "string",
                                           "tuple", "void", "match_kind", "list"):
            return True
        if t.kind == "op" and t.text == "." and self.peek().kind == "id" and self.peek().text in self.types:
            return True   # (a prefixed type, `.h_t x;`: p4c's prefixedType; errs69 sh_dot_prefix_type)
        return t.kind == "id" and t.text in self.types

    def type_ref(self) -> Node:
        self._enter()
        try:
            return self._type_ref()
        finally:
            self.depth -= 1

    def _type_ref(self) -> Node:
        t = self.t
        if self.at("bit", "int", "varbit"):
            self.next()
            if self.accept("<"):
                if self.at("("):
                    self.next()
                    w = self.expr()
                    self.expect(")")
                else:
                    wt = self.t
                    if wt.kind == "num":
                        self.next()
                        w = Node("int", wt.loc, value=wt.value[0], width=None, signed=False)
                    elif wt.kind == "id":   # (p4c's grammar: an integer, or an expression in parentheses)
                        raise P4CompileError(wt.loc, f"syntax error, unexpected IDENTIFIER {wt.text}, expecting ( or "
                                                     f"INTEGER: write {t.text}<({wt.text})>")
                    else:
                        raise self.err("a width")
                self.expect(">")
            else:
                if t.text == "varbit":
                    raise self.err("'<' after varbit")
                w = Node("int", t.loc, value=1, width=None, signed=False) if t.text == "bit" else None
                if t.text == "int":
                    ty = Node("int_inf", t.loc)
                    return self._stack_suffix(ty)
            ty = Node(t.text if t.text != "int" else "sint", t.loc, width=w)
        elif self.at("bool", "void", "error", "string", "match_kind"):
            self.next()
            ty = Node(t.text, t.loc)
        elif self.at("tuple", "list"):
            self.next()
            self.expect("<")
            args = [] if t.text == "tuple" and self.at(">") else [self.type_ref()]   # tuple<>: p4c's too
            while self.accept(","):
                args.append(self.type_ref())
            self.expect(">")
            ty = Node("tuple", t.loc, args=args)
        elif t.kind == "id" or (t.kind == "op" and t.text == "."):
            if self.accept("."):
                t = self.t
            if t.kind == "id" and t.text not in self.types and not getattr(self, "in_type_args", 0):
                # p4c's lexer reads a name not declared as a type (yet) as a plain IDENTIFIER, which
                # its grammar does not take as a type: a type used before its declaration too
                # (in_type_args: a type argument or a return type, where it does)
                raise P4CompileError(t.loc, f'syntax error, unexpected IDENTIFIER "{t.text}": not a type '
                                            "declared before this point")
            name = self.ident("a type").text
            args = []
            if self.at("<") and name in self.types:
                self.next()
                # a type argument may be a plain IDENTIFIER in p4c's grammar (typeArg:
                # nonTypeName): an undeclared one is "declaration not found" (elaboration)
                self.in_type_args = getattr(self, "in_type_args", 0) + 1
                try:
                    args = [self.type_ref() if not (self.at_id() and self.t.text == "_") else
                            Node("dontcare", self.next().loc)]
                    while self.accept(","):
                        args.append(self.type_ref())
                finally:
                    self.in_type_args -= 1
                self.expect(">")
            ty = Node("typename", t.loc, name=name, args=args)
        else:
            raise self.err("a type")
        return self._stack_suffix(ty)

    def _stack_suffix(self, ty: Node) -> Node:
        while self.at("[") :
            if ty.kind != "typename":   # (p4c 1.2.4.8's grammar: a stack of a named type only -- `bit<8>[2]`,
                # `bool[2]`, `tuple<..>[2]` are its syntax error at the `[`, before any later error; helper errs31)
                raise P4CompileError(self.t.loc, f"syntax error, unexpected [: a stack of {ty.kind} (p4c 1.2.4.8: "
                                                 "only headers, header unions and named types have stacks)")
            self.next()
            size = self.expr()
            self.expect("]")
            ty = Node("stack", ty.loc, elem=ty, size=size)
        return ty

    # -- statements -----------------------------------------------------------------------
def parse(toks: list[Tok]) -> list[Node]:
    with recursion_headroom():
        return Parser(toks).program()


class recursion_headroom:
    """Raise Python's recursion limit for a compile (nesting is bounded by MAX_NESTING, so
    the deepest descent is bounded too); restores the previous limit afterwards."""

    def __enter__(self):
        self.old = sys.getrecursionlimit()
        if self.old < _RECURSION_HEADROOM:
            sys.setrecursionlimit(_RECURSION_HEADROOM)
        return self

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)
        return False
