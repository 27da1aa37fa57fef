"""Programs found by helper corpus60 (issue #15): cpp57's and corpus52's open preprocessor items (the
fuzz of random macro programs against ``cc -E`` -- /work/corpus60/fz, outside the repository -- and
probes of line splices and stringified comments) and public v1model programs from sources not
measured before (fetch list in /work/corpus60/FETCH.md), each decided by real p4c 1.2.4.8 (its cpp:
``cc -E -C -undef -nostdinc -x assembler-with-cpp``) and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's (or that checkmate-p4c
refused).
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# cpp splices a line ending in `\` on every line, also on the later lines of a macro call's arguments
# and on the line where the call ends; checkmate-p4c spliced only a call's first line and left the `\`
# of a later one to the P4 lexer ("unexpected character '\'")
CASES.append(case("corpus60_splice_on_a_later_line_of_a_macro_call", CAT, program(
    "        hdr.h.a = ID(1 +\n              2) + 8w3; \\\n        hdr.h.b = 8w4;\n"
    "        hdr.h.c = (bit<16>)ID(5 +\n              6 + \\\n              7);\n",
    top="#define ID(x) x\n")))

# cpp's `__LINE__` on a line a `\` spliced on is that physical line (also where a name is cut in two by
# the splice: the line it starts on, and in an argument of a call); checkmate-p4c gave every `__LINE__`
# of the spliced line the line the splice started on
CASES.append(case("corpus60_line_after_a_splice_is_the_physical_line", CAT, program(
    "        hdr.h.a = (bit<8>)__LINE__ + \\\n            (bit<8>)__LINE__; hdr.h.b = (bit<8>)__LIN\\\nE__;\n"
    "        hdr.h.c = (bit<16>)ID(__LINE__ + \\\n            __LINE__);\n",
    top="#define ID(x) x\n")))

# cpp collects a call's arguments across the branches of an `#if` opened before the call (the call
# opened in a branch taken, its `)` after `#else` ... `#endif`: the lines of the branch not taken are
# skipped), and a call may end inside an `#if` its arguments opened (the rest of that branch follows
# the call); checkmate-p4c ran the `#else`/`#endif` as if outside any call (p4c's "unterminated #if" or
# wrong branches) and refused the second ("not supported") -- fuzz gen4 seeds 10106, 10108
CASES.append(case("corpus60_call_arguments_across_an_if_opened_before_the_call", CAT, program(
    "#ifdef K\n        hdr.h.a = ID(8w1 +\n#else\n        hdr.h.a = ID(8w2 +\n#endif\n              8w4);\n"
    "#ifndef K\n        hdr.h.b = ID(8w8 +\n#elif 1\n        hdr.h.b = ID(8w16 +\n#endif\n              8w32);\n"
    "        hdr.h.c = (bit<16>)ID(7 +\n#if K == 5\n              9); hdr.h.d = 32w1;\n#else\n"
    "              11); hdr.h.d = 32w2;\n#endif\n",
    top="#define ID(x) x\n#define K 5\n")))

def _at_line_of(src: str, needle: str, mark: str) -> str:
    """``src`` with ``mark`` replaced by the number of the line holding ``needle``."""
    return src.replace(mark, str(next(i for i, ln in enumerate(src.split("\n"), 1) if needle in ln)))


# where a call's name and `(` came out of object-like macros only (`#define K ID(`), cpp evaluates an
# `#if`/`#elif` among the call's arguments with `__LINE__` the line of K (the expansion point), as it
# does the arguments' own `__LINE__`s; where the call is written out it is the directive's line (fuzz
# gen4 seed 10516); checkmate-p4c took the directive's line for both
CASES.append(case("corpus60_line_in_an_if_among_arguments_of_a_call_from_a_macro", CAT, _at_line_of(program(
    "        hdr.h.a = K 8w1 +\n#if __LINE__ == @L@\n              8w2\n#elif __LINE__ > @L@\n              8w4\n#endif\n"
    "              );\n"
    "        hdr.h.b = ID(8w1 +\n#if __LINE__ > @L@ + 8\n              8w8\n#else\n              8w16\n#endif\n"
    "              );\n",
    top="#define ID(x) x\n#define K ID(\n"), "hdr.h.a = K", "@L@")))


# cpp -C keeps every character of a comment that `#x` puts into a string (cpp57), also those from U+20000 on
# (CJK extension B, planes 3-16), and a private-use character of planes 15-16 in a string literal; checkmate-p4c
# hid a comment's characters in planes 15-16 where those have no room (it printed a blank for them) and
# blanked every character of those planes, also in strings
CASES.append(case("corpus60_wide_characters_in_a_stringified_comment", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set(bit<8> v) { hdr.h.b = v; }\n"
                  "    @note(S(a /* \U00020000 b \U000F0000 \U0002F800 c \U0001F600 */ d) \" \" S(// \U00030000 e\n"
                  "                   ) \"\U000F0001\")\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { set; NoAction; } default_action = set(8w9); }\n",
    top="#define S(x) #x\n")))

# a call's name `#undef`'d among its arguments: cpp expands the call with the old definition and reads
# every `__LINE__` of the arguments, and of an `#if` among them after the `#undef`, as the line of the
# call (a redefinition before the `)` undoes it); fuzz gen3 seed 12745, gen4 seed 16965.  checkmate-p4c
# gave each its own line
CASES.append(case("corpus60_line_in_arguments_of_a_macro_undefined_among_them", CAT, _at_line_of(program(
    "        hdr.h.a = (bit<8>)B(__LINE__ +\n#undef B\n#if __LINE__ == @L@\n              8w100\n#else\n"
    "              8w200\n#endif\n              + (bit<8>)__LINE__);\n#define B(p) (p)\n"
    "        hdr.h.b = (bit<8>)B(__LINE__ +\n#undef B\n#define B(p) (p + 1)\n              __LINE__);\n",
    top="#define B(p) (p)\n"), "hdr.h.a = (bit<8>)B(", "@L@")))

# cpp splices a line of blanks ending in `\` onto the next: `  \` then `#define K 8w7` is a directive, and
# a function-like macro's name followed by such a line and then `(` is a call; its `__LINE__` after the
# splice is the physical line also where the call came from an object-like macro there (K -> `ID(`, the
# later lines' `__LINE__` that line); fuzz gen4 seeds 16374, 20301, 22407.  checkmate-p4c read the first
# two as text (P4 syntax errors) and gave the last the line where the splice started
CASES.append(case("corpus60_splice_of_a_blank_line_before_a_directive_or_a_paren", CAT, program(
    "  \\\n#define K8 8w7\n"
    "        hdr.h.a = F\n   \\\n            (8w5) + K8;\n"
    "        hdr.h.c = (bit<16>)(8w0 ++ (\\\n  K 8w0 + (bit<8>)__LINE__ +\n   (bit<8>)__LINE__)));\n",
    top="#define F(x) (x + 8w1)\n#define ID(x) x\n#define K ID(\n")))

# a call whose name and `(` came from an object-like macro (`#define K ID(`) reads the `__LINE__`s of its
# arguments as K's line, but the text after its `)` on a later line is read from the file again: its
# `__LINE__` is that line (fuzz gen4 seed 18382); checkmate-p4c gave the whole later line K's line
CASES.append(case("corpus60_line_after_the_end_of_a_call_from_an_object_like_macro", CAT, program(
    "        hdr.h.c = (bit<16>)(K 1 +\n              __LINE__ +\n              2) + __LINE__);\n",
    top="#define ID(x) (x)\n#define K ID(\n")))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
