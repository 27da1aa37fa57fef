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
    # a `type`'s annotations (plain, with arguments, structured) on its new_types entry, with
    # and without @p4runtime_translation, met by a key field, an action parameter and twice
    case("f5_newtype_annotations", CAT, program("        t.apply();\n", top="""\
@p4runtime_translation("example.org/Tag_t", 16)
@tag_note
@tag_why("a reason", 3)
type bit<8> Tag_t;
@plain_only(x)
@shaped[kind = "opaque", n = 2]
type bit<8> Plain_t;
""", ingress_decls="""\
    action set2(Tag_t t1, Plain_t p1) { hdr.h.b = (bit<8>)t1; hdr.h.c = (bit<16>)(bit<8>)p1; }
    table t { key = { hdr.h.a: exact; } actions = { set2; NoAction; } }"""),
        frames=[(0, H(1))]),
]
