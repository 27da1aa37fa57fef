"""Programs found by helper corpus27 (issue #15): corpus26's open preprocessor items and public
v1model programs from sources not measured before (probes and fetch list in /work/corpus27, outside
the repository), each decided by real p4c 1.2.4.8 (its cpp: ``cc -E -C -undef -nostdinc -x
assembler-with-cpp``) and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

_TABLE = ("    action a1() { hdr.h.b = 3; }\n"
          "    table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")

# a function-like macro's name at the end of another macro's expansion with its `(` and arguments
# in the text after it (`f(2)(9)` with `#define f(a) a + g`, `#define g(a) f(a)`): cpp pops f's
# context while it collects g's arguments, so f is expanded again in g's body -- `2 + 9 + g` (C
# standard 6.10.3.4's example; GCC's choice); checkmate-p4c kept f's context and left `2 + f(9)`,
# a call of an unknown function.  The arguments too are expanded outside the popped context
# (`#define A ID(B`, `#define B 5 A)`: `A))` is `5 B)`)
CASES.append(case("corpus27_call_arguments_run_past_the_macro_that_brought_it", CAT, program(
    "        t.apply();\n        hdr.h.b = f(2)(9);\n",
    top="#define f(a) a + g\n#define g(a) f(a)\n#define h(a) a+k\n#define k(a) h(a) k\n"
        "#define PP(x) x + QQ\n#define QQ(y) PP(y)\nconst bit<8> g = 4;\nconst bit<8> k = 8;\n"
        "#define ID(x) x\n#define A ID(B\n#define B 5 A)\n",
    ingress_decls="    @x(f(2)(9)) @y(h(1)(2)(3)) @z(A)) @w(PP(1)(2)(3))\n" + _TABLE)))

# cpp runs every directive among a call's arguments, not only the conditionals: `#define` and
# `#undef` take effect for the arguments (they are expanded when the call ends, so a name before
# the directive gets the new definition too: `F(Q` / `#define Q 4` / `Q)` is `[4 4]`), `#line`
# renumbers __LINE__, `#pragma`/`#warning` do nothing there, and a `#` line that is no directive
# (p4c's cpp runs in assembler mode) separates arguments as a `,` does (`G(1` / `#hdr.h.a +` / `2)`
# is `G(1, hdr.h.a + 2)`); the call itself keeps the definition its name had (`R(1` / `#define R(x)
# [x]` / `R(2))` is `(1 [2])`, `#undef R` likewise); checkmate-p4c refused them all ("unterminated
# argument list" at the call); __FILE__ is the file's name where the call ends (`#line 300 "x.p4"`
# among the arguments renames it for both)
CASES.append(case("corpus27_directives_inside_call_arguments", CAT, program(
    "        t.apply();\n        hdr.h.b = F2(Q\n#define Q 6\n        + Q);\n"
    "        hdr.h.a = G(1\n#hdr.h.a +\n        2) + F2(__LINE__\n#line 200\n + __LINE__);\n",
    top="#define F2(x) (x)\n#define G(a, b) (a - b)\n#define Q 3\n#define R(x) (x)\n",
    ingress_decls="    @a(F2(\n#define Q2 7\nQ Q2)) @b(F2(\n#undef Q2\nQ2)) @c(F2(1\n#pragma foo\n2))"
                  " @d(F2(1\n#warning hi\n  2)) @e(F2(1\n#\n2)) @f(F2(1\n#define Q3(x) \\\n x+1\n Q3(2)))\n"
                  "    @g(R(1\n#define R(x) [x]\nR(2))) @h(R(3\n#undef R\nR(4)))\n"
                  "    @fl(F2(__FILE__\n#line 300 \"renamed.p4\"\n__FILE__))\n"
                  + _TABLE)))

# p4c runs the system's cpp (GCC 12 here), which has C2x's `__VA_OPT__(x)` (x where the variable
# arguments have tokens), `_Pragma("...")` (run; a line marker is printed where it stood, which p4c's
# lexer takes) and `#elifdef`/`#elifndef`; checkmate-p4c left `__VA_OPT__(x)` and `_Pragma(..)` in the
# text (calls of unknown functions) and passed `#elifndef` through as no directive, so both of its
# branches were compiled
CASES.append(case("corpus27_gcc12_va_opt_pragma_operator_elifdef", CAT, program(
    "        t.apply();\n        hdr.h.b = SUM(3, 4) + SUM(5) + SEL;\n        hdr.h.a = PR + _Pragma(\"x\") 1;\n",
    top="#define SUM(a, ...) (a __VA_OPT__(+ __VA_ARGS__))\n#define V(...) [__VA_OPT__(x) __VA_ARGS__]\n"
        "#define PR _Pragma(\"foo\") 5\n#ifdef NOPE\n#define SEL 1\n#elifdef SUM\n#define SEL 2\n#endif\n"
        "#ifdef SUM\n#define SEL2 3\n#elifndef SUM\n#define SEL2 4\n#endif\n",
    ingress_decls="    @va(V() V(1) V(1, 2)) @sel(SEL SEL2) @pr(PR _Pragma(\"x\") 6)\n" + _TABLE)))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
