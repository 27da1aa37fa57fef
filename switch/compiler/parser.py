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

from .ast import Anno, Node
from .errors import P4CompileError
from .lexer import Tok
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



_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
         "/": lambda a, b: a // b, "%": lambda a, b: a % b, "&": lambda a, b: a & b,
         "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "<<": lambda a, b: a << b,
         ">>": lambda a, b: a >> b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
         "<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
         ">=": lambda a, b: a >= b, "&&": lambda a, b: a and b, "||": lambda a, b: a or b}


def _fold_literal(e: Node):
    """The value of a structured annotation's element: a literal, or an expression of
    literals p4c folds (``1==2`` is false, ``5+6`` is 11)."""
    if e.kind == "int":
        if e.get("width") is not None:   # p4c: "illegal type for structured annotation"
            raise P4CompileError(e.loc, "structured annotation: a sized integer (bit<N>/int<N>) is an illegal "
                                        "type; must be int, string or bool")
        return e.value
    if e.kind == "bool_lit":
        return e.value
    if e.kind == "str":
        return e.value
    try:
        if e.kind == "unary" and e.op in ("-", "!", "~"):
            a = _fold_literal(e.a)
            return -a if e.op == "-" else (not a) if e.op == "!" else ~a
        if e.kind == "binary" and e.op in _FOLD:
            a, b = _fold_literal(e.a), _fold_literal(e.b)
            if isinstance(a, str) or isinstance(b, str):
                raise TypeError
            return _FOLD[e.op](a, b)
    except (TypeError, ZeroDivisionError, ValueError):
        pass
    raise P4CompileError(e.loc, "structured annotation: expected a literal or an expression of literals")


class Parser(StatementParser, ExpressionParser, TableParser, TypeNameScopes):
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
        if self.t.kind == "id" or (self.t.kind == "kw" and self.t.text in
                                   ("apply", "key", "actions", "entries", "state", "type",
                                    "priority", "list", "string", "value_set")):
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

    def annotations(self, defer_translation: bool = False) -> list:
        """``defer_translation``: a bad ``@p4runtime_translation`` is kept on the annotation
        (``error``) instead of raised -- on a ``type`` declaration p4c parses it only where the
        type is used (resolve_type raises it; p4c_mutate seed 100)."""
        annos, bad = [], None
        while self.at("@"):
            loc = self.next().loc
            name = self.ident("an annotation name").text
            if name == "pragma":   # `@pragma NAME tokens...` to the end of the line: @NAME(tokens)
                annos.append(self.pragma_annotation(loc))
                continue
            args, body = [], []
            # the body may start on a later line (p4c reads `@a\n(x)` as @a(x) too)
            if self.at("["):
                annos.append((name, self.structured_annotation_body(), loc))
                continue
            if self.at("("):
                self.next()
                depth, cur = 0, []   # body: every token, commas too (p4c lists them as written)
                while True:
                    t = self.t
                    if t.kind == "eof":
                        raise self.err("')' closing the annotation", t)
                    if t.text in ("(", "[", "{") and t.kind == "op":
                        depth += 1
                    if t.text in (")", "]", "}") and t.kind == "op":
                        if depth == 0:
                            self.next()
                            break
                        depth -= 1
                    self.next()
                    body.append(t)
                    if t.text == "," and depth == 0 and t.kind == "op":
                        args.append(cur)
                        cur = []
                    else:
                        cur.append(t)
                if cur:
                    args.append(cur)
            vals = []
            for toks in args:
                if len(toks) == 1 and toks[0].kind == "str":
                    vals.append(toks[0].value)
                elif len(toks) == 1 and toks[0].kind == "num":
                    vals.append(toks[0].value[0])
                else:
                    vals.append(" ".join(x.text for x in toks))
            if name == "p4runtime_translation":
                try:
                    self.check_translation_args(args, loc)
                except P4CompileError as err:
                    if not defer_translation:
                        raise
                    bad = err
            if name == "name" and (len(args) != 1 or len(args[0]) != 1 or args[0][0].kind != "str"):
                raise P4CompileError(loc, "@name takes one string argument, e.g. @name(\"x\")")
            self.check_known_annotation(name, args, body, loc)
            raw = f"@{name}" + (f"({' '.join(t.text for t in body)})" if args or body else "")
            annos.append(Anno(name, vals, loc, raw))
            annos[-1].error, bad = bad, None
        return annos

    def pragma_annotation(self, loc):
        """p4c's lexer reads ``@pragma`` up to the end of its line: the first token names the
        annotation and the others are its body (``@pragma my_opt 1 2`` is ``@my_opt(1 2)`` in the
        P4Info); nothing after ``@pragma`` is its syntax error ("unexpected END_PRAGMA")."""
        line = self.t.loc.line if self.t.loc.file == loc.file else None
        if line != loc.line or self.t.kind == "eof":
            raise P4CompileError(loc, "syntax error, unexpected END_PRAGMA: @pragma needs a name (@pragma NAME ...)")
        nt = self.next()
        if nt.kind not in ("id",) and not nt.text.isidentifier():
            raise P4CompileError(nt.loc, f"syntax error, unexpected {nt.text!r} after @pragma: it needs a name")
        body, args, cur = [], [], []
        while self.t.kind != "eof" and self.t.loc.file == loc.file and self.t.loc.line == loc.line:
            t = self.next()
            body.append(t)
            if t.text == "," and t.kind == "op":
                args.append(cur)
                cur = []
            else:
                cur.append(t)
        if cur:
            args.append(cur)
        vals = [a[0].value if len(a) == 1 and a[0].kind == "str" else a[0].value[0] if len(a) == 1 and a[0].kind == "num"
                else " ".join(x.text for x in a) for a in args]
        raw = f"@{nt.text}" + (f"({' '.join(t.text for t in body)})" if body else "")
        anno = Anno(nt.text, vals, loc, raw)
        anno.error = None
        return anno

    # p4c parses the bodies of these standard annotations (ParseAnnotations): no argument at
    # all, exactly one string literal, or exactly one integer literal; anything else is an error
    _EMPTY_ANNOS = {"hidden", "atomic", "tableonly", "defaultonly", "pure", "optional", "noSideEffects"}
    _STRING_ANNOS = {"noWarn", "deprecated", "controller_header", "brief", "description"}

    def check_known_annotation(self, name: str, args: list, body: list, loc) -> None:
        if name in self._EMPTY_ANNOS and body:
            raise P4CompileError(loc, f"@{name} should not have any arguments (p4c)")
        if name in self._STRING_ANNOS and (len(args) != 1 or len(args[0]) != 1 or args[0][0].kind != "str"):
            raise P4CompileError(loc, f"@{name} takes one string argument, e.g. @{name}(\"x\")")
        # @id and @priority: p4c reads them only on objects that survive (elab_output.check_user_ids)

    def check_translation_args(self, args: list, loc) -> None:
        """p4c's grammar for ``@p4runtime_translation(uri, T)``: exactly two arguments, the
        uri a string literal and T an integer (the SDN width), ``bit<N>`` with N an integer
        literal, or ``string``; anything else is a syntax error there (``bool``, ``int<32>``,
        ``bit<5+3>``, a missing or a third argument)."""
        if len(args) != 2 or len(args[0]) != 1 or args[0][0].kind != "str":
            at = args[0][0].loc if args and args[0] else loc
            raise P4CompileError(at, "@p4runtime_translation takes two arguments: a string (the "
                                     "translation's uri) and the translated type (a width, bit<N> or string)")
        toks = args[1]
        texts = [t.text for t in toks]
        if (len(toks) == 1 and (toks[0].kind == "num" or texts == ["string"])) or \
                (len(toks) == 4 and texts[:2] == ["bit", "<"] and toks[2].kind == "num" and texts[3] == ">"):
            return
        at = toks[0].loc if toks else loc
        raise P4CompileError(at, "@p4runtime_translation: the translated type must be an integer width, "
                                 f"bit<N> or string, not {' '.join(texts) or 'nothing'!r}")

    def structured_annotation_body(self) -> dict:
        """``@name[...]``: an expression list (``[1, "a", true]``) or a key-value list
        (``[k="v", n=3]``) of literals -- ``{"list": [...]}`` or ``{"kv": [[k, v], ...]}``."""
        self.expect("[")
        items, kv = [], None
        while not self.at("]"):
            key = None
            if (self.t.kind == "id" or self.t.kind == "kw") and self.peek().text == "=":
                kt = self.next()
                key = kt.text
                if kv and any(k == key for k, _ in items):   # p4c: "k: Duplicates declaration k"
                    raise P4CompileError(kt.loc, f"structured annotation: key {key} given twice")
                self.next()
            t = self.t
            v = _fold_literal(self.expr())   # p4c folds an expression of literals (1==2, 5+6)
            if kv is None:
                kv = key is not None
            elif kv != (key is not None):
                raise P4CompileError(t.loc, "structured annotation: do not mix key=value pairs and plain values")
            items.append([key, v] if kv else v)
            if not self.accept(","):
                break
        self.expect("]")
        return {"kv": items} if kv else {"list": items}

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
            members = []
            while not self.at("}"):
                members.append(self.ident("a member name").text)
                if not self.accept(","):
                    break
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
        if self.at("bit", "int"):
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
                if self.at("abstract"):
                    self.next()
                if self.at_id() and self.t.text == name.text and self.peek().text == "(":
                    m = self.next()
                    params = self.params()
                    self.expect(";")
                    methods.append(Node("ctor", m.loc, name=m.text, params=params, annos=mannos))
                    continue
                ret = self.return_type()
                m = self.ident("a method name")
                mt = self.type_params()
                params = self.params()
                self.expect(";")
                methods.append(Node("method", m.loc, name=m.text, ret=ret, tparams=mt,
                                    params=params, annos=mannos))
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
                return items
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
            while not self.at("}"):
                lannos = self.annotations()
                if self.at("apply"):
                    self.next()
                    body = self.block()
                    if not self.at("}"):   # p4c's grammar: the apply block ends the control
                        raise self.err("'}' (the apply block is the last part of a control)")
                    continue
                locals_.append(self.local_decl(lannos))
            self.expect("}")
        if body is None:
            raise P4CompileError(name.loc, f"control {name.text} has no apply block")
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
                    elif wt.kind == "id":
                        self.next()
                        w = Node("name", wt.loc, name=wt.text, top=False)
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
