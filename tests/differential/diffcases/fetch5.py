"""Front-end gaps found on p4c's public sample programs by fetch5 (issue #15): characters no
P4 token starts with inside a free-form annotation body (p4c's grammar takes its lexer's
UNEXPECTED_TOKEN there), and a `type`'s own annotations, which p4c lists on the type's
``type_info.new_types`` entry in the P4Info."""
from .base import Entry, H, case, program

CAT = "front end (p4c-compatible)"

CASES = [
    # stray characters (' ` $ \\) in free-form annotation bodies, over several lines, on a
    # header type, an action and a table (the last two are listed in the P4Info as written); a
    # body that starts on the line after the annotation's name
    case("f5_annotation_stray_chars", CAT, program("        t.apply();\n", top="""\
@note(don't care: `x` costs $5 \\ 2)
header unused_t { bit<8> f; }
""", ingress_decls="""\
    @memo(it's
          a ` multi-line $ body)
    @split
        (its body on the next line)
    action seta(bit<8> v) { hdr.h.b = v; }
    @why(can't (nest 'it) here)
    table t { key = { hdr.h.a: exact; } actions = { seta; NoAction; } }"""),
        entries=[Entry("I.t", {"hdr.h.a": 1}, "I.seta", {"v": 0x5a})],
        frames=[(0, H(1)), (0, H(2))]),
]
