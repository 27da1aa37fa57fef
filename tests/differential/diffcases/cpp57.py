"""Programs found by helper cpp57 (issue #15): corpus52's open preprocessor item, a comment inside a
stringified macro argument (corpus52's fuzz gen3 of random macro programs against ``cc -E``, seeds
681, 2262, 5950; scripts in /work/corpus52/fz, outside the repository), decided by real p4c 1.2.4.8
(its cpp: ``cc -E -C -undef -nostdinc -x assembler-with-cpp``) and simple_switch_grpc.

``CASES``: programs whose P4Info or frames differed from p4c's and BMv2's.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# cpp -C keeps a comment in a macro's argument, and `#p` puts its text into the string as written (no
# `"` escaped in it): a `//` one made `/* */` with its blanks kept and a `*/` inside it made `*|`; the
# annotation's text reaches the P4Info.  checkmate-p4c printed a blank for each comment
CASES.append(case("cpp57_comment_in_a_stringified_argument", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set(bit<8> v) { hdr.h.b = v; }\n"
                  "    @note(S(a /* c */ b) \" \" S(x/*y*/z) \" \" S(/* only */) \" \" S(1 // line */ end  \n"
                  "                   2) \" \" V(p, /* , */ q))\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { set; NoAction; } default_action = set(8w9); }\n",
    top="#define S(x) #x\n#define V(...) #__VA_ARGS__\n")))

# a `/* */` comment written over several lines keeps its newline in the string (cpp prints the string
# over as many lines, and the lines the call took after it are no longer empty); a name inside it is
# not expanded when the body is rescanned.  checkmate-p4c printed a blank
CASES.append(case("cpp57_comment_over_lines_in_a_stringified_argument", CAT, program(
    "        t.apply();\n",
    ingress_decls="    action set(bit<8> v) { hdr.h.b = v; }\n"
                  "    @note(S(a /* x\n       y  */ b))\n"
                  "    table t { key = { hdr.h.a : exact; } actions = { set; NoAction; } default_action = set(8w9); }\n",
    top="#define S(x) #x\n#define y 5\n")))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}
