"""Which of several back-end (target) errors checkmate-p4c names: the one p4c 1.2.4.8 names first.

p4c's BMv2 JSON conversion walks the controls in declaration order (not V1Switch's) and, in each,
the actions it keeps before the apply block; a deprecated ``clone3`` / ``resubmit(data)`` is
refused there too, with no position of the program's, so the first located error is the next one.
Found by helper corpus20 (issue #15) on DINGDAMU/P4DDoS (egress declared above ingress, a
``@name("._drop")`` action with ``mark_to_drop()`` in both: p4c names egress's, line 105) and
NUS-SNL/p4-traffictool's basic_postcards (``mark_to_drop()`` in an action above a ``clone3`` in
the body), and usi-systems/p4xos-public (``Checksum16`` in both checksum controls: p4c converts
ComputeChecksum first, after the other controls' checks, and names its ``get``).  The expected lines were read off real p4c; tests/differential/test_invalid.py checks
that p4c refuses every program (diffcases/corpus20.py)."""
import pytest

from switch.compiler import P4CompileError, compile_source

HEAD = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { bit<8> x; }
parser P(packet_in b, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { b.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
"""
TAIL = """control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out p, in headers hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _control(name: str, act: str, body: str = "") -> str:
    return (f"control {name}(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {{\n"
            f"    @name(\"._drop\") action d() {{ {act} }}\n"
            f"    table t{name} {{ key = {{ hdr.h.a: exact; }} actions = {{ d; NoAction; }} default_action = NoAction(); }}\n"
            f"    apply {{ sm.egress_spec = 1; t{name}.apply(); {body} }}\n}}\n")


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _refused_at(text: str) -> int:
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    return ei.value.loc.line


def test_egress_declared_first_is_converted_first():
    # E's d() and I's d() are one action (@name("._drop")), both copies refused: p4c names E's
    text = HEAD + _control("E", "mark_to_drop();") + _control("I", "mark_to_drop();") + TAIL
    assert _refused_at(text) == _line(text, "mark_to_drop();") == 11


def test_egress_action_before_an_ingress_action_declared_below():
    text = HEAD + _control("E", "mark_to_drop();") + _control("I", "resubmit(meta);") + TAIL
    assert _refused_at(text) == _line(text, "mark_to_drop();")


def test_action_before_a_deprecated_call_in_the_body_below():
    text = HEAD + _control("I", "mark_to_drop();", "clone3(CloneType.I2E, 32w5, meta);") + _control("E", "") + TAIL
    assert _refused_at(text) == _line(text, "mark_to_drop();")


def test_a_located_error_before_a_deprecated_call_of_a_control_declared_first():
    # p4c: "clone3: unknown extern function" (at v1model.p4, no line of the program) first, then
    # E's action, line 16: the first line p4c names
    text = HEAD + _control("I", "", "clone3(CloneType.I2E, 32w5, meta);") + _control("E", "mark_to_drop();") + TAIL
    assert _refused_at(text) == _line(text, "mark_to_drop();") == 16


def test_a_deprecated_call_alone_is_named_at_the_call():
    text = HEAD + _control("I", "", "clone3(CloneType.I2E, 32w5, meta);") + _control("E", "") + TAIL
    assert _refused_at(text) == _line(text, "clone3(")


CK = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; bit<16> b; }
struct headers { h_t h; }
struct metadata { bit<16> x; }
parser P(packet_in b, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { b.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) {
    Checksum16() c;
    apply { if (hdr.h.b == c.get({hdr.h.a})) mark_to_drop(); }
}
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action d() { DROP }
    table t { key = { hdr.h.a: exact; } actions = { d; NoAction; } default_action = NoAction(); }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers hdr, inout metadata meta) {
    Checksum16() c;
    apply { hdr.h.b = c.get({hdr.h.a}); }
}
control D(packet_out p, in headers hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.mark.parametrize("drop,needle", [("mark_to_drop(sm);", "hdr.h.b = c.get"), ("mark_to_drop();", "action d() { mark_to_drop")])
def test_compute_checksum_control_before_verify_and_after_actions(drop, needle):
    # p4c: line 21 ("Only calls to update_checksum ... allowed"), or the action's line 14 when
    # mark_to_drop() there is refused first; never VerifyChecksum's line 11
    text = CK.replace("DROP", drop)
    assert _refused_at(text) == _line(text, needle)


def test_an_unused_instance_before_the_compute_checksum_control():
    # p4c: "Checksum16: unknown extern instance" (at v1model.p4) for I's unused instance, not CC's get
    text = CK.replace("DROP", "mark_to_drop(sm);").replace("    action d() {", "    Checksum16() unused_ck;\n    action d() {", 1)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    assert "Checksum16: unknown extern instance" in ei.value.message and ei.value.loc.file.endswith("v1model.p4")


# A target error in a control's own apply block waits for that control's actions and for the
# controls declared above (helper corpus21, ageapps/in-network-aggregation: an IPForward
# sub-control's table action calls mark_to_drop(), line 5 of its file, and ingress's body calls it
# too, line 41: p4c names line 5; checkmate-p4c raised the body's at once).  Lines read off p4c.
def _plain(name: str, decls: str, body: str) -> str:
    return (f"control {name}(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {{\n"
            f"{decls}    apply {{\n        sm.egress_spec = 1;\n{body}    }}\n}}\n")


BODY_DROP = "        if (hdr.h.a == 1) { mark_to_drop(); }\n"
ACT_DROP = "    action x() { mark_to_drop(); }\n    table u { key = { hdr.h.a: exact; } actions = { x; NoAction; } }\n"


def test_body_error_after_an_action_of_a_control_declared_above():
    text = HEAD + _plain("E", ACT_DROP, "        u.apply();\n") + _plain("I", "", BODY_DROP) + TAIL
    assert _refused_at(text) == _line(text, "action x()")


def test_body_error_of_a_control_declared_above_an_action():
    text = HEAD + _plain("I", "", BODY_DROP) + _plain("E", ACT_DROP, "        u.apply();\n") + TAIL
    assert _refused_at(text) == _line(text, "if (hdr.h.a == 1) { mark_to_drop")


def test_body_error_after_the_same_controls_action():
    text = HEAD + _plain("I", ACT_DROP, BODY_DROP + "        u.apply();\n") + _plain("E", "", "") + TAIL
    assert _refused_at(text) == _line(text, "action x()")


def test_body_error_after_an_action_of_an_applied_sub_control():
    sub = ("control F(inout headers hdr, inout standard_metadata_t sm) {\n" + ACT_DROP +
           "    apply { u.apply(); }\n}\n")
    text = HEAD + sub + _plain("I", "    F() f;\n", BODY_DROP + "        f.apply(hdr, sm);\n") + _plain("E", "", "") + TAIL
    assert _refused_at(text) == _line(text, "action x()")
