"""Programs found by helper corpus52 (issue #15): corpus28's open preprocessor items (its fuzz of
random macro programs against ``cc -E``, seeds 1424 and 2141, and later seeds of its generators and of gen3, which writes comments and empty lines) and public v1model programs from
sources not measured before (probes and fetch list in /work/corpus52, outside the repository), each
decided by real p4c 1.2.4.8 (its cpp: ``cc -E -C -undef -nostdinc -x assembler-with-cpp``) and
simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# cpp looks for a function-like macro's `(` past empty lines: `F` / (empty lines) / `(3)` is a call
# (fuzz seeds 1424, 2141: an argument list opened after blank lines inside a call's arguments);
# checkmate-p4c joined only the very next line, so F stayed the P4 function F
CASES.append(case("corpus52_macro_paren_after_empty_lines", CAT, program(
    "        hdr.h.a = F\n\n            (3);\n"
    "        hdr.h.b = G(F\n\n   \n            (4));\n",
    top="bit<8> F(in bit<8> x) { return x + 1; }\n#define F(x) (x + 100)\n#define G(x) (x + 10)\n")))

# cpp -C (what p4c runs) keeps a comment as a token: a function-like macro's name followed by a
# comment and then `(` is no call -- on one line, after a `//` comment ending the line, where the
# name came out of an object-like macro, or where the `(` came from one (F3) in an argument that is
# rescanned in a body (fuzz gen3 seed 62) -- and the P4 function of that name is called; a comment in
# a `#define` body is deleted with the directive (`H` expands to a call).  checkmate-p4c blanked every
# comment first and called the macro
CASES.append(case("corpus52_comment_between_macro_name_and_paren", CAT, program(
    "        hdr.h.a = F /* not a call */ (3);\n"
    "        hdr.h.b = F // nor this\n            (4);\n"
    "        hdr.h.c = (bit<16>)(K /**/ (5)) + (bit<16>)ID(F /* c */ F3);\n"
    "        hdr.h.d = (bit<32>)H;\n",
    top="bit<8> F(in bit<8> x) { return x + 1; }\n#define F(x) (x + 100)\n#define K F\n"
        "#define H F /* deleted */ (6)\n#define ID(x) x\n#define F3 (3)\n")))

# an argument beside `##` is not expanded before it goes into the body: what is left of it after the
# paste is read when the body is rescanned, and a `__LINE__` there is the line of the call's name
# (GCC: the expansion point), where an argument expanded first keeps its own line (fuzz seed 5950 of
# gen2's 4500-6000); checkmate-p4c gave both their own line
CASES.append(case("corpus52_line_in_a_pasted_argument_is_the_calls_line", CAT, program(
    "        hdr.h.a = B(1 +\n\n              __LINE__);\n"
    "        hdr.h.b = C(1 +\n\n              __LINE__);\n",
    top="#define B(p) 8w ## p\n#define C(p) 8w0 + p\n")))

# a call whose name and `(` came out of an object-like macro (`#define A H (`) and whose `)` follows
# in the text has an empty argument that holds nothing but where A's expansion ended: beside `##` it
# is cpp's placemarker, so `G ## p G` is `G G` (fuzz seeds 6298 of gen.py 4500-6500 and 6899 of
# gen2's 6000-8000); checkmate-p4c pasted the two (`GG`)
CASES.append(case("corpus52_empty_argument_after_an_expansion_is_a_placemarker", CAT, program(
    "        hdr.h.a = A ) 8w3;\n        hdr.h.b = 8w1 + A ) 8w5;\n",
    top="#define A H (\n#define H(p) G ## p G\n#define G 8w4 +\n#define GG 8w40 +\n")))

# an argument is expanded before it goes into the body, and cpp closes the expansions that pre-expansion
# opened: `B(C)` (C -> `G F`, F -> `( )`) hands B's body `G ( )`, whose call G() -> C expands C again
# (C -> `G F`, G now painted: the P4 function G is called).  checkmate-p4c kept C's context on the
# names of the expanded argument and left C unexpanded inside the call of G (fuzz seed 8484 of gen.py
# 6500-9000, reduced)
CASES.append(case("corpus52_argument_expansions_closed_before_the_body", CAT, program(
    "        hdr.h.a = B(C);\n        hdr.h.b = B(B(C));\n",
    top="bit<8> G() { return 5; }\nconst bit<8> C = 77;\n#define B(q) q\n#define C G F\n#define F ( )\n"
        "#define G() C\n")))

# `#__VA_ARGS__` stringifies the variable arguments as written: the commas and the blanks around them
# kept ("1,2", "a , b"; fuzz gen3 seed 3480); checkmate-p4c rejoined them with ", " -- the table's
# annotation in the P4Info differed
CASES.append(case("corpus52_stringified_variable_arguments_keep_their_commas", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set(bit<8> v) { hdr.h.b = v; }\n"
                  "    @note(S(1,2) \" \" S(a , b,  c) \" \" T(x,y,z))\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { set; NoAction; } default_action = set(8w9); }\n",
    top="#define S(...) #__VA_ARGS__\n#define T(a, ...) #__VA_ARGS__\n")))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
