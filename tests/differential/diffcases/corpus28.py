"""Programs found by helper corpus28 (issue #15): corpus27's open preprocessor items and public
v1model programs from sources not measured before (probes and fetch list in /work/corpus28, outside
the repository), each decided by real p4c 1.2.4.8 (its cpp: ``cc -E -C -undef -nostdinc -x
assembler-with-cpp``) and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# a macro call whose name came out of a function-like macro's expansion (`K(F)(Q` with `#define
# K(a) a`) and whose arguments hold a `#define`/`#undef`: cpp has expanded and printed everything
# before F -- the text before K, and K's call itself -- when the directive comes, so `PV` there keeps
# its old value (9) and a name K's body brings before F (`#define L(a) a + F`) too, while F's
# arguments are expanded when the call ends (the new QV); F keeps the definition it had (`#undef G`
# among G's arguments).  checkmate-p4c split off only a call written in the text, so it expanded
# `PV + K(F)(...)` after the directive: 8 for PV, the undefined Q2 for `Q2 + L(..)`
CASES.append(case("corpus28_open_call_named_by_a_function_like_macros_expansion", CAT, program(
    "        hdr.h.a = PV + K(F)(QV\n#define QV 4\n#define PV 8\n            + QV + PV);\n"
    "        hdr.h.b = Q2 + L(PV)(Q2\n#undef Q2\n            + Q2);\n"
    "        hdr.h.c = K(G)(5\n#undef G\n            );\n",
    top="const bit<8> Q2 = 100;\n#define F(x) (x)\n#define K(a) a\n#define L(a) a + F\n#define QV 3\n"
        "#define PV 9\n#define Q2 7\n#define G(x) (x + 1)\n")))

# GCC's `__has_include(<f>)` / `("f")` in `#if` (p4c's cpp, GCC 12, has it; `#ifdef __has_include`
# is true): 1 where `#include` would find the file (p4c's own `core.p4`, `v1model.p4`), 0 elsewhere,
# the operand may be a macro; checkmate-p4c failed "cannot evaluate #if expression"
CASES.append(case("corpus28_has_include_in_if", CAT, program(
    "        hdr.h.a = HI1;\n        hdr.h.b = HI2;\n",
    top="#define VM <v1model.p4>\n#if __has_include(<core.p4>) && __has_include(VM)\n#define HI1 8w1\n#else\n"
        "#define HI1 8w2\n#endif\n#if __has_include(\"no/such/file.p4\") || !defined(__has_include)\n"
        "#define HI2 8w3\n#elif defined __has_include_next\n#define HI2 8w4\n#endif\n")))

# cpp evaluates `#if` in intmax_t/uintmax_t with C's rules (GNU cpp, which p4c runs): an unsigned
# operand makes the other unsigned (`-1 > 0u`, also through `?:`), arithmetic wraps at 64 bits, `/` and
# `%` truncate toward zero, a signed `>>` is arithmetic and a negative count shifts the other way,
# a `char` is signed (`'\\377'` is -1), `||`/`&&`/comparisons give 0 or 1 (`(2 || 3) == 1`, `3 > 2 > 1`
# is false) and a skipped operand is not evaluated (`0 && 1 / 0`); checkmate-p4c evaluated with Python's
# numbers and operators (unbounded, floor division, `or` giving 2, chained comparisons): the other
# branch for 10 of these 12, and "cannot evaluate" for a negative shift count
CASES.append(case("corpus28_if_arithmetic_is_cpps_intmax", CAT, program(
    "        hdr.h.d = B0 | B1 | B2 | B3 | B4 | B5 | B6 | B7 | B8 | B9 | B10 | B11;\n",
    top="#if -1 > 0u\n#define B0 32w1\n#else\n#define B0 32w0\n#endif\n#if (0u - 1) == 0xffffffffffffffff\n#define B1 32w2\n#else\n#define B1 32w0\n#endif\n#if (1 ? -1 : 0u) > 0\n#define B2 32w4\n#else\n#define B2 32w0\n#endif\n#if 0x7fffffffffffffff + 1 < 0\n#define B3 32w8\n#else\n#define B3 32w0\n#endif\n#if (-1) / 2 == 0 && -7 % 3 == -1\n#define B4 32w16\n#else\n#define B4 32w0\n#endif\n#if 1 << 63 < 0 && -1u >> 63 == 1\n#define B5 32w32\n#else\n#define B5 32w0\n#endif\n#if '\\377' < 0\n#define B6 32w64\n#else\n#define B6 32w0\n#endif\n#if (2 || 3) == 1 && !2 + 1 == 1\n#define B7 32w128\n#else\n#define B7 32w0\n#endif\n#if ~0u == 18446744073709551615u\n#define B8 32w256\n#else\n#define B8 32w0\n#endif\n#if 3 > 2 > 1\n#define B9 32w512\n#else\n#define B9 32w0\n#endif\n#if 4 >> -1 == 8 && (-1) >> 70 == -1\n#define B10 32w1024\n#else\n#define B10 32w0\n#endif\n#if 0 && 1 / 0\n#define B11 32w2048\n#else\n#define B11 32w0\n#endif\n")))

# cpp looks for a function-like macro's `(` without expanding what follows its name: a name followed by
# another token is no call in that scan, even where the other token's expansion leaves a `(` behind it
# (`DEFER(A)()` with `#define DEFER(id) id EMPTY()` is `A ()`; `A LP 2)` with `#define LP (` too), while
# a later scan -- the argument put into a body, `EXPAND(DEFER(A)())` -- calls it; and GNU's `, ##
# __VA_ARGS__` drops the comma where the variable arguments are empty.  checkmate-p4c rescanned the
# whole text and called A (hdr.h.a = 9 + 9, not a call of the function A), and kept the comma
# (`ID2(4, )`, two arguments for a one-parameter macro)
CASES.append(case("corpus28_no_call_where_the_paren_came_later_and_gnu_comma_paste", CAT, program(
    "        hdr.h.a = DEFER(A)() + EXPAND(DEFER(A)()) + A LP 2);\n"
    "        hdr.h.b = SUM(4) + SUM(4, 5);\n",
    top="bit<8> A(in bit<8> x) { return x + 1; }\nbit<8> A() { return 7; }\n#define EMPTY()\n"
        "#define DEFER(id) id EMPTY()\n#define EXPAND(...) __VA_ARGS__\n#define A() 9\n#define LP (\n"
        "#define ID2(x) (x)\n#define ADD(x, y) (x + y)\n#define SUM(a, ...) PICK(a, ## __VA_ARGS__)\n"
        "#define PICK(...) SEL(__VA_ARGS__, ADD, ID2)(__VA_ARGS__)\n#define SEL(a, b, m, ...) m\n")))

# cpp scans left to right: a call's arguments are collected unexpanded when its name is met, so a
# name that another macro's expansion brings gets them as written (`PICK(1)(FOO)` with `#define
# PICK(n) STR`, `#define STR(x) #x` is "FOO"; `ID(PASTE)(FOO, 1)` pastes FOO1), and deferred
# recursion (`EV(REPEAT(3, ADDI))`, an EVAL of 3^4 nested rescans) runs to its end; checkmate-p4c
# expanded the whole text a pass at a time -- the arguments before the call existed ("bar", bar1) --
# and stopped after 32 passes (`REPEAT (2, ADDI) + 3` left, a call of an unknown function)
CASES.append(case("corpus28_arguments_collected_as_written_left_to_right", CAT, program(
    "        t.apply();\n        hdr.h.b = ID(PASTE)(FOO, 1) + (0 EV(REPEAT(3, ADDI)));\n",
    top="#define STR(x) #x\n#define PICK(n) STR\n#define FOO bar\n#define PASTE(a, b) a ## b\n#define ID(x) x\n"
        "const bit<8> FOO1 = 5;\nconst bit<8> bar1 = 6;\n#define CAT(a, b) CAT_(a, b)\n#define CAT_(a, b) a ## b\n"
        "#define E0(...) __VA_ARGS__\n#define EV1(...) E0(E0(E0(__VA_ARGS__)))\n#define EV2(...) EV1(EV1(EV1(__VA_ARGS__)))\n"
        "#define EV(...) EV2(EV2(EV2(__VA_ARGS__)))\n#define EMPTY()\n#define DEFER(id) id EMPTY()\n"
        "#define OBSTRUCT(...) __VA_ARGS__ DEFER(EMPTY)()\n"
        "#define REPEAT(n, m) WHEN(n)(OBSTRUCT(REPEAT_IND)()(CAT(D_, n), m) OBSTRUCT(m)(n))\n#define REPEAT_IND() REPEAT\n"
        "#define WHEN(c) CAT(W_, c)\n#define W_0(...)\n#define W_1(...) __VA_ARGS__\n#define W_2(...) __VA_ARGS__\n"
        "#define W_3(...) __VA_ARGS__\n#define D_1 0\n#define D_2 1\n#define D_3 2\n#define ADDI(i) + i\n",
    ingress_decls="    action a1() { hdr.h.b = 3; }\n"
                  "    @name(PICK(1)(FOO)) table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")))

# found by a fuzz of random macro programs against cc -E (/work/corpus28/fz/gen.py): an empty
# argument beside `##` is cpp's placemarker, so the blanks on its far side stay (`J(x, , y)` with
# `#define J(a, b, c) a ## b c` is `x y`; checkmate-p4c pasted `xy`); a name that an argument brings
# into its own macro's expansion is read inside that expansion and never expanded again
# (`ID(ID)(2)` is a call of the function ID, not 2); and a call whose `(` ends an expansion and
# whose `)` follows it (`K0 )` with `#define K0 B0 (`) has no argument -- the end of the expansion is
# no token (cpp's padding); checkmate-p4c counted one
CASES.append(case("corpus28_placemarker_paint_and_empty_argument", CAT, program(
    "        t.apply();\n        hdr.h.b = ID(ID)(2) + K0 );\n",
    top="bit<8> ID(in bit<8> x) { return x + 40; }\n#define ID(x) x\n#define J(a, b, c) a ## b c\n"
        "#define B0() 5\n#define K0 B0 (\n",
    ingress_decls="    action a1() { hdr.h.b = 3; }\n"
                  "    @foo(J(x, , y) J(, , z)) table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")))

# a call whose `(` came out of a macro's expansion (`#define OPEN G2 (1 +`) left open at a
# `#undef`/`#define` among its arguments: cpp has identified the call -- G2 keeps its definition --
# and printed what came before (`PW` keeps 9); checkmate-p4c looked for the open `(` in the text as
# written, found none, and expanded it all after the directive (G2 undefined: a call of an unknown
# function; PW 8)
CASES.append(case("corpus28_open_call_whose_paren_came_from_an_expansion", CAT, program(
    "        hdr.h.a = PW + OPEN\n#undef G2\n#define PW 8\n            2);\n",
    top="#define G2(p) (p)\n#define OPEN G2 (1 +\n#define PW 9\n")))

# an argument beside `##` that starts where an expansion ended (`K 1)` with `#define K PASTE2 (v,`,
# `#define PASTE2(a, b) a ## b`) pastes to v1 in cpp; checkmate-p4c left the end of K's expansion
# between the operands and printed `v 1` (fuzz seed 3534)
CASES.append(case("corpus28_paste_across_the_end_of_an_expansion", CAT, program(
    "        hdr.h.a = K 1);\n",
    top="const bit<8> v1 = 11;\n#define PASTE2(a, b) a ## b\n#define K PASTE2 (v,\n")))

# a name that `##` makes in a macro's body is read inside that expansion and inside the ones
# around it: `BB()` with `#define BB(p) FF ## p (1)`, `#define FF BB` is `BB (1)` (BB painted), a call
# of the function BB; checkmate-p4c dropped the body's context with the paste, so BB expanded again
# (`FF1 (1)`; fuzz seed 64 looped for ever on it); and an object-like macro's `##` pastes (`w ## 2`
# was left as written)
CASES.append(case("corpus28_pasted_name_inside_the_expansion", CAT, program(
    "        hdr.h.a = BB();\n        hdr.h.b = OBP;\n",
    top="bit<8> BB(in bit<8> x) { return x + 50; }\nbit<8> FF1(in bit<8> x) { return x + 60; }\n"
        "#define BB(p) FF ## p (1)\n#define FF BB\nconst bit<8> w2 = 7;\n#define OBP w ## 2\n")))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
