"""Programs found by helper corpus26 (issue #15): corpus24's open preprocessor items and public
v1model programs from sources not measured before (probes and fetch list in /work/corpus26, outside
the repository), each decided by real p4c 1.2.4.8 (its cpp: ``cc -E -C -undef -nostdinc -x
assembler-with-cpp``) and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

_TABLE = ("    action a1() { hdr.h.b = 3; }\n"
          "    table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")

# cpp never lets two tokens merge where an expansion ends or begins: it prints a space there when
# the tokens would paste (cpp_avoid_paste: a number before `+`/`-`/`.`/a name, a name before a name,
# a number, a string or a char, `+` before `+`, ...).  Inside a string written over several lines
# the continuation lines are cpp's tokens, so the annotation holds `0x86DD +1` where the source
# has `MYM+1` (corpus24's open item); checkmate-p4c printed `0x86DD+1`
CASES.append(case("corpus26_avoid_paste_space_in_multiline_string", CAT, program(
    "        t.apply();\n",
    top="#define MYM 0x86DD\n#define NM abc\n#define PL +\n#define FN(x) x\n#define NEG -1\n#define EMP\n",
    ingress_decls='    @note("  x\n  MYM+1 MYM.5 (MYM)MYM NM\'c\' NM+NM\n PL+ PL= -NEG NEG- <PL\n'
                  '  FN(NM)x FN( NM )y EMP+EMP PL\n")\n' + _TABLE)))

# ... and outside strings the same rule keeps tokens apart that checkmate-p4c's text expansion
# glued together: `G(NM, NM)G(1, 2)3` is `abc abc 1 2 3` for cpp (ours: `abc NM1 23`, the second
# NM never expanded), `FN(NM)x` is `abc x` (ours: `NMx`), in annotation bodies here
CASES.append(case("corpus26_expansions_never_merge_tokens", CAT, program(
    "        t.apply();\n",
    top="#define NM abc\n#define FN(x) x\n#define G(a, b) a b\n#define ONE 1\n",
    ingress_decls="    @a(G(NM,NM)G(1,2)3) @b(FN(NM)x FN(x)1 FN(1)FN(1) ONE.NM)\n" + _TABLE)))

# cpp expands a macro's argument before it goes into the body (unless the body stringifies it or
# pastes it with ##), so the two-level idioms work: XCAT(v, N) is `v5`, XSTR(N) "5"; checkmate-p4c
# put the argument in as written and rescanned, so CAT pasted `vN`
CASES.append(case("corpus26_macro_argument_expanded_before_substitution", CAT, program(
    "        t.apply();\n",
    top="#define N 5\n#define CAT(a, b) a ## b\n#define XCAT(a, b) CAT(a, b)\n#define STR(a) #a\n"
        "#define XSTR(a) STR(a)\n",
    ingress_decls="    @x(XCAT(v, N)) @y(CAT(v, N)) @s(XSTR(N)) @t(STR(N)) @u(XSTR(XCAT(N, N)))\n" + _TABLE)))

# __LINE__ in a macro call written over several lines: a token's line is where it was written, a
# macro body's tokens take the line of the macro's name (corpus24's open item: `M(` / ` L)` with
# `#define L __LINE__` gives the argument L's line and the body's L the call's; tokens after the
# call's `)` are on their own line too; checkmate-p4c gave them all the call's line)
CASES.append(case("corpus26_line_through_macro_on_later_line_of_call", CAT, program(
    "        t.apply();\n",
    top="#define L __LINE__\n#define L2 (L + 1)\n#define M(q) @m(q, L)\n#define S(q) #q\n"
        "#define G(a) [a __LINE__]\n#define H(a) @h(a)\n",
    ingress_decls="    M(\n L)\n    M(\n L2) H(S(L\n __LINE__))\n    H(G(\n L) G(1) L\n L) @after(__LINE__, L)\n"
                  + _TABLE)))

# a string written over several lines as a function-like macro's argument (corpus24's open item):
# cpp ends each unterminated literal with its line, so the argument is the lines' tokens one space
# apart (`"` / `x  ==  1;` / `"` is `" x == 1; "`, a `//` comment made `/* */`, macros expanded),
# and a `,` on such a line separates arguments; checkmate-p4c read one P4 string
CASES.append(case("corpus26_multiline_string_as_macro_argument", CAT, program(
    "        t.apply();\n",
    top="#define RESTR(x) @entry_restriction(x)\n#define R2(x, y) @a(x) @b(y)\n#define MYM 0x86DD\n",
    ingress_decls='    RESTR("   \n\n   hdr.h.a  ==\t1;  // c\n  MYM+1  \n  "   \n  )\n'
                  '    R2("a\n , b", "c\n  d"\n )\n' + _TABLE)))

# `#define x (x + 1)`: cpp never expands a macro's own name inside its expansion (checkmate-p4c
# expanded it again 32 times); and a function-like macro's name, a tab, then `(` is a call
CASES.append(case("corpus26_self_referential_macro_and_tab_before_call", CAT, program(
    "        t.apply();\n",
    top="#define foo foo\n#define bar (bar + 1)\n#define FN(x) @f(x)\n",
    ingress_decls="    FN(foo) FN(bar) @g(foo, bar) FN\t(2)\n" + _TABLE)))


# an object-like macro naming a function-like one at a line's end and `(` on the next line is a call
# of the latter (cpp reads the arguments on); checkmate-p4c looked for a function-like name in the
# line as written only, and left `FN` / `(5)` as they were
CASES.append(case("corpus26_macro_naming_function_macro_before_paren_on_next_line", CAT, program(
    "        t.apply();\n",
    top="#define FN(x) [x]\n#define G FN\n#define K(a) a\n",
    ingress_decls="    @a(G(3)) @b(K(FN)(4)) @d(G\n(5))\n" + _TABLE)))

# cpp never expands a name inside its own expansion, also through another macro: `#define A B`,
# `#define B A` give `A` for A and `B` for B (checkmate-p4c painted a macro's own name in its body
# only, and expanded A -> B -> A ... 32 times); `f(f(3))` with `#define f(x) x + f(x)`
CASES.append(case("corpus26_mutually_recursive_macros_stop", CAT, program(
    "        t.apply();\n",
    top="#define A B\n#define B A\n#define f(x) x + f(x)\n#define g f\n",
    ingress_decls="    @a(A) @b(B) @c(f(1)) @d(g(2)) @e(f(f(3)))\n" + _TABLE)))

# __LINE__ in a call written over several lines whose macro came from object-like macros only
# (`#define K M`, `K(` / ` L)`): cpp gives every __LINE__ of it the line of K; where a function-like
# macro brought the call (`F()(` / ` L)`) the argument's own line, as for a call written out
CASES.append(case("corpus26_line_in_call_brought_by_object_macro", CAT, program(
    "        t.apply();\n",
    top="#define L __LINE__\n#define M(q) @m(q, L)\n#define M2(q, r) @m2(q, r, L)\n#define K M\n#define K2 K\n"
        "#define F() K\n#define K3 M2\n",
    ingress_decls="    K2(\n L)\n    F()(\n L)\n    K3(L,\n L)\n" + _TABLE)))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
