"""Annotations, as p4c's grammar and lexer read them: ``@name``, ``@name(tokens)``, structured
``@name[...]`` (elements that are expressions of literals folded), and ``@pragma NAME tokens...``
up to the end of its line; the bodies of the standard annotations p4c parses itself are checked
here (``@p4runtime_translation``'s arguments, no argument, one string, one integer).  A mixin of
:class:`switch.compiler.parser.Parser` (moved out of parser.py by helper mutz23 to keep it short)."""
from __future__ import annotations

from .ast import Anno, Node
from .errors import P4CompileError

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
            _typed(e.a, a, e.op == "!")
            return -a if e.op == "-" else (not a) if e.op == "!" else ~a
        if e.kind == "binary" and e.op in ("&&", "||"):
            # (p4c's constant folding: the left operand must be bool; the right one is taken as it is
            # where the left one does not decide -- `false || 1` folds to 1)
            a = _fold_literal(e.a)
            _typed(e.a, a, True)
            return a if a == (e.op == "||") else _fold_literal(e.b)
        if e.kind == "binary" and e.op in _FOLD:
            a, b = _fold_literal(e.a), _fold_literal(e.b)
            if isinstance(a, str) or isinstance(b, str):
                raise TypeError
            if e.op in ("==", "!=") and isinstance(a, bool) != isinstance(b, bool):
                raise P4CompileError(e.loc, f"structured annotation: {e.op} of a bool and an integer (p4c: "
                                            "both operands must be Boolean, or cannot be compared)")
            if e.op not in ("==", "!="):
                _typed(e.a, a, False)
                _typed(e.b, b, False)
            return _FOLD[e.op](a, b)
    except (TypeError, ZeroDivisionError, ValueError):
        pass
    raise P4CompileError(e.loc, "structured annotation: expected a literal or an expression of literals")


def _typed(e: Node, v, boolean: bool) -> None:
    """A structured annotation's operand ``e`` (folded: ``v``) of the type its operator takes: an
    integer for arithmetic, bitwise and ordering operators and unary ``-``/``~``, a bool for ``!``
    and the left side of ``&&``/``||`` (p4c: "expected an integer value", "Expected a boolean
    value", "cannot be applied to expression ... with type 'bool'": fuzz_mutants seed 5178, helper mutz46)."""
    if isinstance(v, bool) != boolean:
        raise P4CompileError(e.loc, f"structured annotation: expected {'a boolean' if boolean else 'an integer'} value")


class AnnotationParser:
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
                # body: every token, commas too (p4c lists them as written).  Only parentheses pair
                # up in p4c's annotationBody (`@a(x { y)` is fine; an unclosed `(` runs to the end of
                # the file: "unexpected END"); brackets and braces only keep commas from splitting
                depth, nest, cur = 0, 0, []
                while True:
                    t = self.t
                    if t.kind == "eof":   # (p4c names the last line)
                        last = self.toks[self.i - 1] if self.i else t
                        raise P4CompileError(last.loc, "syntax error, unexpected END: the annotation's '(' is never closed")
                    if t.kind == "op" and t.text == "(":
                        depth += 1
                    elif t.kind == "op" and t.text in ("[", "{"):
                        nest += 1
                    elif t.kind == "op" and t.text in ("]", "}"):
                        nest = max(nest - 1, 0)
                    elif t.kind == "op" and t.text == ")":
                        if depth == 0:
                            self.next()
                            break
                        depth -= 1
                    self.next()
                    body.append(t)
                    if t.text == "," and depth == 0 and nest == 0 and t.kind == "op":
                        args.append(cur)
                        cur = []
                    else:
                        cur.append(t)
                if cur:
                    args.append(cur)
            vals = _values(args)
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
            raw = _expr_list_raw(name, args) if name in _EXPR_LIST_ANNOS and args else \
                f"@{name}" + (f"({' '.join(t.text for t in body)})" if args or body else "")
            annos.append(Anno(name, vals, loc, raw))
            annos[-1].error, bad = bad, None
        for a in annos:   # (p4c: a structured annotation's name is one annotation's only)
            if isinstance(a[1], dict) and sum(b[0] == a[0] for b in annos) > 1:
                raise P4CompileError(a[2], f"@{a[0]}: duplicate name for structured annotation (p4c)")
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
        vals = _values(args)
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
        if name == "pkginfo" and (not args or any(len(a) < 3 or a[1].text != "=" for a in args)):
            # p4c parses its body as key = value pairs ("unexpected END_ANNOTATION", "expecting =")
            raise P4CompileError(loc, "syntax error: @pkginfo takes key = value pairs, e.g. @pkginfo(name = \"x\")")
        if name == "match" and (len(args) != 1 or not args[0]):   # (p4c parses its body as one expression)
            raise P4CompileError(loc, "syntax error, unexpected END_ANNOTATION: @match takes one expression, "
                                      "e.g. @match(ternary)")
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



# annotations p4c parses into expressions (ParseAnnotations / ParseP4RuntimeAnnotations):
# listed in the P4Info as "@n(a, b)" (", " between arguments; @pkginfo's "k=v"; the
# newer @p4runtime_translation("u", bit<W>) as its width W), not as their tokens
_EXPR_LIST_ANNOS = {"field_list", "synchronous", "pkginfo", "p4runtime_translation"}


def _expr_list_raw(name: str, args) -> str:
    parts = []
    for i, toks in enumerate(args):
        texts = [t.text for t in toks]
        if name == "pkginfo":
            parts.append("".join(texts))
        elif name == "p4runtime_translation" and i == 1 and len(texts) == 4 \
                and texts[0] == "bit" and texts[1] == "<" and texts[3] == ">":
            parts.append(texts[2])
        else:
            parts.append(" ".join(texts))
    return f"@{name}({', '.join(parts)})"


def _values(args: list) -> list:
    """An annotation's arguments (token lists split at top-level commas) as the values the compiler
    reads: a lone string literal is its text, a lone integer literal its value, anything else the
    tokens joined by spaces."""
    vals = []
    for toks in args:
        if len(toks) == 1 and toks[0].kind == "str":
            vals.append(toks[0].value)
        elif len(toks) == 1 and toks[0].kind == "num":
            vals.append(toks[0].value[0])
        else:
            vals.append(" ".join(x.text for x in toks))
    return vals
