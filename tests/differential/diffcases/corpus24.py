"""Programs found by helper corpus24 (issue #15): public v1model programs from sources not measured
before (fetch list, adaptations and STFs in /work/corpus24, outside the repository), each decided by
real p4c 1.2.4.8 and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# An annotation string written over several lines (p4-constraints' @entry_restriction): p4c's cpp
# reads each continuation line as tokens -- the first indented to its column (a tab counts as one),
# a run of blanks between tokens one space, trailing blanks dropped; comments, quoted text and an
# unterminated quote run to the end of the line as written -- and the P4Info annotation holds that
# text; checkmate-p4c kept the lines as written (an @entry_restriction test program, code index
# file id 7675543167: "...prefix_length != 64; \n" listed with its trailing blank)
_RESTRICTION = ('    @entry_restriction("\n'
                '    hdr.h.a::mask != 0 && hdr.h.b != 64;   \n'
                '\thdr.h.c  !=\t0;\t\n'
                '    \n'
                '    /* a  comment */  it\'s   here  \n'
                '      hdr.h.d == 1  ")\n')
CASES.append(case("corpus24_multiline_annotation_string_respaced", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set_b(bit<8> v) { hdr.h.b = v; }\n" + _RESTRICTION +
                  "    @brief(\"one\n    two   three  \n\")\n"
                  "    table t { key = { hdr.h.a : ternary; } actions = { set_b; NoAction; }\n"
                  "              default_action = set_b(7); }\n")))

# ... and a line ending in `\` inside such a string: cpp splices the next line onto it and prints an
# empty line in its place, so the string holds one newline more (a probe of the fix above;
# checkmate-p4c dropped the spliced line's newline)
CASES.append(case("corpus24_spliced_line_in_multiline_string", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set_b(bit<8> v) { hdr.h.b = v; }\n"
                  "    @note(\"  a  \\\n   b   c  \n  d  \")\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { set_b; NoAction; }\n"
                  "              default_action = set_b(9); }\n")))

# cpp's predefined macros beyond those probed with #ifdef before: p4c's cpp (-x assembler-with-cpp)
# has __INCLUDE_LEVEL__ (0 in the file compiled), __ASSEMBLER__ and __STDC_HOSTED__ (1), also
# __BASE_FILE__ and __FILE_NAME__ (probes beside p4-constraints' `@file(__FILE__)` annotations;
# checkmate-p4c left the names as they were written)
CASES.append(case("corpus24_cpp_predefined_level_and_mode_macros", CAT, program(
    "#if __INCLUDE_LEVEL__ == 0 && defined(__ASSEMBLER__)\n"
    "        hdr.h.b = __ASSEMBLER__ + __STDC_HOSTED__;\n"
    "#endif\n        t.apply();\n",
    ingress_decls="    action a1() { hdr.h.c = (bit<16>)__INCLUDE_LEVEL__; }\n"
                  "    @lvl(__INCLUDE_LEVEL__) @asm(__ASSEMBLER__) @hosted(__STDC_HOSTED__)\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")))

# cpp's `#param`: the argument's text with the blanks at its ends dropped and each run of blanks
# (newlines too) between its tokens one space, `"` and `\` escaped inside its literals; and no
# parameter is replaced inside what `#` made (checkmate-p4c kept the argument's blanks, and
# replaced `x` again inside the string: S(x  +   1) was "x  +   1  +   1"); probes of macro-built
# annotations beside the p4-constraints programs
CASES.append(case("corpus24_stringified_macro_argument", CAT, program(
    "        t.apply();\n",
    top="#define S(x) #x\n#define NAMED(n) @name(#n)\n",
    ingress_decls="    action a1() { hdr.h.b = 3; }\n"
                  "    @a(S(x  +   1)) @b(S(  p\tq  )) @c(S(u\n     v)) @d(S('a'  \"b\\\\n\"))\n"
                  "    NAMED(my    table) table t { key = { hdr.h.a : exact; } actions = { a1; } default_action = a1(); }\n")))
