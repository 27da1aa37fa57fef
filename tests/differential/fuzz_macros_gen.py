"""The program generator of :mod:`fuzz_macros`: random macro programs for the C preprocessor, one
per seed (``random.Random(seed)``, deterministic), in three kinds that grow on each other:

* ``macros`` -- object-like and function-like macros (parameters, ``...`` with ``__VA_ARGS__``,
  ``#__VA_ARGS__``, GNU's ``, ## __VA_ARGS__``, ``__VA_OPT__``), bodies with ``#`` stringify, ``##``
  paste (of parameters, of names that paste into other macros' names, of numbers), nested calls,
  calls of themselves (painted names), bodies that leave a call's name or its ``(`` to the text after
  them (``#define K F (``), unbalanced ``(``/``)``/``,``, ``__LINE__``; the uses: names, calls with
  nested calls and parenthesised commas as arguments, empty arguments, calls over several lines, a
  call's name and ``(`` from other macros, rarely a wrong number of arguments, ``#define``/``#undef``
  between the uses and among a call's arguments (corpus28's gen/gen2);
* ``comments`` -- the same with ``/* */`` comments (on one line and over several lines) and ``//``
  comments between tokens, in arguments (also stringified ones) and on ``#define`` lines, and empty
  lines among the uses and inside calls (corpus52's gen3);
* ``ifs`` -- the same with ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif`` blocks among
  the uses and among a call's arguments (``defined``, arithmetic on numeric macros, unknown names)
  and ``\\`` splices between tokens and inside names, on text and directive lines (corpus60's gen4),
  and ``#`` lines that are no directive (``# B`` / ``(1)``: cpp expands them, a call there takes later
  lines; p4c's lexer skips the line cpp prints).

A use line never starts with ``#``.  ``__DATE__``/``__TIME__`` are left out (they differ by the second).
"""
from __future__ import annotations

import random

KINDS = ("macros", "comments", "ifs")

#: object-like names (``A ## B`` pastes ``AB``, ``K ## 1`` pastes ``K1``), function-like ones
OBJS = ["A", "B", "AB", "K", "K1", "E"]
FUNCS = ["F", "G", "F1", "GH", "ID", "H"]
#: numeric macros for `#if` (their bodies stay numbers or expressions of them)
NUMS = ["N", "M"]
PARAMS = ["a", "b", "c", "x"]
IDENTS = ["x", "y", "z", "w", "q"]
NUMBERS = ["0", "1", "2", "7", "0x1f", "3u", "1e2", "08"]
OPS = ["+", "-", "*", "<", ">", "=", "!", "&", "|", ".", ";", "?", ":", "%", "/", "~", "^", "[", "]"]


class Gen:
    def __init__(self, seed: int, kind: str):
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
        self.r = random.Random(seed * 31 + KINDS.index(kind))
        self.kind = kind
        self.comments = kind in ("comments", "ifs")
        self.ifs = kind == "ifs"
        self.arity: dict[str, tuple[int, bool]] = {}   # function-like name -> (params, variadic)
        self.in_body = False
        self.hash_line = False

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    # -- #define lines
    def define(self, name: str | None = None) -> str:
        r = self.r
        if name is None:
            name = self.pick(OBJS + FUNCS + (NUMS if self.ifs else []))
        if name in NUMS:
            body = self.num_expr(2)
            return f"#define {name} {body}"
        if name in OBJS:
            self.arity.pop(name, None)
            return f"#define {name} " + self.body([], False)
        n = r.choice([0, 1, 1, 2, 2, 3])
        params = r.sample(PARAMS, n)
        variadic = self.chance(0.3)
        self.arity[name] = (n, variadic)
        plist = ", ".join(params + (["..."] if variadic else []))
        sep = "" if not self.chance(0.05) or not self.comments else " /* c */ "
        return f"#define {name}({plist}){sep} " + self.body(params, variadic)

    def num_expr(self, depth: int) -> str:
        r = self.r
        c = r.randrange(6 if depth > 0 else 3)
        if c == 0:
            return self.pick(["0", "1", "2", "3", "-1", "0x10", "5u"])
        if c == 1:
            return self.pick(NUMS + ["q", "__LINE__"])
        if c == 2:
            return f"defined({self.pick(OBJS + FUNCS + NUMS)})" if self.chance(0.5) else \
                f"defined {self.pick(OBJS + FUNCS + NUMS)}"
        if c == 3:
            return f"({self.num_expr(depth - 1)})"
        if c == 4:
            return f"!{self.num_expr(depth - 1)}"
        op = self.pick(["+", "-", "*", "&&", "||", "==", "!=", "<", ">", "<<", "&", "|", "^", "%", "/"])
        rhs = self.num_expr(depth - 1)
        if op in ("/", "%"):
            rhs = self.pick(["1", "2", "3"])
        return f"{self.num_expr(depth - 1)} {op} {rhs}"

    def body(self, params: list[str], variadic: bool) -> str:
        self.in_body = True   # (no new lines, comments or directives inside a #define)
        toks = [self.body_atom(params, variadic) for _ in range(self.r.randint(0, 6))]
        self.in_body = False
        text = " ".join(t for t in toks if t)
        if self.comments and self.chance(0.1):
            text += self.pick([" /* b */", " // tail", " /* x\n y */ + 1"])
        return text

    def body_atom(self, params: list[str], variadic: bool) -> str:
        r = self.r
        c = r.randrange(22)
        p = params + (["__VA_ARGS__"] if variadic else [])
        if c < 3 and p:
            return self.pick(p)
        if c == 3 and p:
            return "#" + self.pick(p)
        if c == 4:   # a paste: of parameters, names that paste into macro names, numbers
            lhs = self.pick(p + ["A", "K", "F", "G", "x", "1"]) if p else self.pick(["A", "K", "F", "G", "x", "1", "E"])
            rhs = self.pick(p + ["B", "1", "H", "y", "2"]) if p else self.pick(["B", "1", "H", "y", "2", "+"])
            return f"{lhs} ## {rhs}"
        if c == 5 and variadic:
            return self.pick([", ## __VA_ARGS__", "#__VA_ARGS__", "__VA_OPT__(, x)", "__VA_OPT__(a ## 1)"
                              if "a" in params else "__VA_OPT__(+)"])
        if c in (6, 7):
            return self.pick(OBJS)
        if c in (8, 9):
            return self.pick(FUNCS)
        if c in (10, 11):
            return self.call(1, params)
        if c == 12:
            return self.pick(["(", ")", ",", "F (", "G (1,", ") (", "ID ("])
        if c == 13:
            return "__LINE__"
        if c == 14:
            return self.pick(['"s"', "'c'", '"a\\"b"'])
        if c in (15, 16):
            return self.pick(NUMBERS)
        if c in (17, 18):
            return self.pick(OPS)
        return self.pick(IDENTS)

    # -- uses
    def sep(self, newline_ok: bool = True) -> str:
        """What goes between two tokens of a use: blanks, comments, new lines, splices."""
        r = self.r.random()
        if self.comments:
            if r < 0.06:
                return " /* c */ "
            if r < 0.08 and newline_ok:   # (not one over lines on a `#` line: p4c would read its end)
                return " // c\n" if self.hash_line else self.pick([" /* p\n q */ ", "/*\n*/", " // c\n"])
            if r < 0.10 and newline_ok:
                return "\n\n"
        if self.ifs and r > 0.96:
            return self.pick([" \\\n", "\\\n", " \\ \n"])
        if r < 0.16 and newline_ok:
            return "\n"
        return "" if r > 0.93 else " "

    def arg(self, depth: int, params=()) -> str:
        r = self.r
        out = []
        for _ in range(r.choice([0, 1, 1, 1, 2, 3])):
            c = r.randrange(10)
            if c < 3 and depth > 0:
                out.append(self.call(depth - 1, params))
            elif c == 3:
                out.append(f"({self.arg(depth - 1, params) if depth else ''}, {self.pick(IDENTS)})")
            elif c == 4:
                out.append(self.pick(OBJS + FUNCS))
            elif c == 5:
                out.append(self.pick(list(params) or IDENTS))
            elif c == 6:
                out.append(self.pick(NUMBERS + ['"t"']))
            else:
                out.append(self.pick(IDENTS + OPS[:6] + ["__LINE__"]))
        return self.join(out, not self.in_body)

    def join(self, toks: list[str], free: bool) -> str:
        """``toks`` joined by :meth:`sep` on a use line (``free``), by blanks in a #define body."""
        if not toks:
            return ""
        s = toks[0]
        for t in toks[1:]:
            sep = self.sep() if free else " "
            if sep.startswith("\\") and s[-1:] in "/*" and t[:1] in "/*":
                sep = " "   # (no splice that makes a comment's delimiter: open item)
            s += sep + t
        return s

    def call(self, depth: int, params=()) -> str:
        name = self.pick(FUNCS)
        n, variadic = self.arity.get(name, (self.r.randint(0, 2), False))
        count = n + (self.r.randint(0, 2) if variadic else 0)
        if self.chance(0.03):
            count = max(0, count + self.pick([-1, 1]))
        free = not self.in_body
        args = [self.arg(depth, params) for _ in range(max(count, 1) if n or variadic else 1)]
        if not (n or variadic) and self.chance(0.8):
            args = [""]
        if count == 0 and (n or variadic):
            args = [""]
        between = []
        for i, a in enumerate(args):
            between.append(a)
            if i < len(args) - 1:
                between.append("," + (self.sep() if free else " "))
        inner = "".join(between)
        if free and self.chance(0.08):   # a directive among the arguments
            inner = self.arg_directive() + inner if self.chance(0.5) else inner + self.arg_directive()
        opener = self.sep() if free else self.pick(["", " "])
        return f"{name}{opener}({inner})"

    def arg_directive(self) -> str:
        if self.ifs and self.chance(0.5):
            a, b = self.pick(NUMBERS[:3]), self.pick(IDENTS)
            form = self.pick(["#ifdef {n}\n{a}\n#else\n{b}\n#endif", "#if {e}\n{a}\n#endif", "#ifndef {n}\n{a}\n#elif {e}\n{b}\n#endif"])
            return "\n" + form.format(n=self.pick(OBJS + FUNCS), a=a, b=b, e=self.num_expr(1)) + "\n"
        if self.chance(0.5):
            return "\n#undef " + self.pick(OBJS + FUNCS) + "\n"
        return "\n" + self.define(self.pick(OBJS)) .replace("\n", " ") + "\n"

    def use_atom(self) -> str:
        r = self.r
        c = r.randrange(16)
        if c < 5:
            return self.call(2)
        if c < 8:
            return self.pick(OBJS)
        if c == 8:
            return self.pick(FUNCS)   # a name with no `(` (or one on a later line)
        if c == 9:
            return f"{self.pick(OBJS)} {self.arg(1)})"   # `K 1)`: a call opened by K's body
        if c == 10:
            return f"{self.pick(FUNCS)} {self.pick(OBJS)} ({self.arg(1)})"
        if c == 11:
            return self.pick(NUMBERS + ['"u"'])
        if c == 12:
            return "__LINE__"
        return self.pick(IDENTS + OPS)

    def use_line(self) -> str:
        toks = [self.use_atom() for _ in range(self.r.randint(1, 5))]
        return self.join(toks, True).lstrip()

    def if_block(self, depth: int) -> list[str]:
        r = self.r
        head = r.randrange(3)
        out = [f"#if {self.num_expr(2)}" if head == 0 else
               f"#ifdef {self.pick(OBJS + FUNCS + NUMS)}" if head == 1 else
               f"#ifndef {self.pick(OBJS + FUNCS + NUMS)}"]
        out += self.items(depth + 1, r.randint(1, 3))
        for _ in range(r.choice([0, 0, 1, 2])):
            out.append(f"#elif {self.num_expr(2)}")
            out += self.items(depth + 1, r.randint(0, 2))
        if self.chance(0.5):
            out.append("#else")
            out += self.items(depth + 1, r.randint(0, 2))
        out.append("#endif")
        return out

    def items(self, depth: int, n: int) -> list[str]:
        out = []
        for _ in range(n):
            c = self.r.random()
            if c < 0.1:
                out.append(self.define())
            elif c < 0.15:
                out.append("#undef " + self.pick(OBJS + FUNCS + NUMS))
            elif self.ifs and c < 0.3 and depth < 3:
                out += self.if_block(depth)
            elif self.ifs and c < 0.33:   # a `#` line that is no directive: cpp expands it, p4c skips it
                self.hash_line = True
                out.append(self.pick(["# ", "#", "#! "]) + self.pick(OBJS + FUNCS) + " " + self.use_line())
                self.hash_line = False
            else:
                out.append(self.use_line())
        return out

    def splice(self, line: str) -> str:
        """A directive line cut by `\\` somewhere (inside a name too)."""
        if not (self.ifs and self.chance(0.1) and len(line) > 3):
            return line
        k = self.r.randrange(1, len(line))
        if line[k - 1:k + 1] in ("/*", "*/", "//"):   # (a splice inside a comment's delimiter: open item)
            k -= 1
        return line[:k] + "\\\n" + line[k:]

    def program(self) -> str:
        r = self.r
        lines = [self.define() for _ in range(r.randint(3, 8))]
        if self.ifs:
            lines = [f"#define {n} {self.num_expr(1)}" for n in NUMS if self.chance(0.7)] + lines
        lines += self.items(0, r.randint(4, 12))
        out = []
        for ln in lines:
            out.append(self.splice(ln) if ln.startswith("#") else ln)
        return "\n".join(out) + "\n"


def generate(seed: int, kind: str = "macros") -> str:
    """The program of ``seed`` in ``kind`` (one of :data:`KINDS`)."""
    return Gen(seed, kind).program()
