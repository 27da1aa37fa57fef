"""Programs p4c 1.2.4.8 refuses where checkmate-p4c refused at another line (helper errs19,
/work/e19 pd and t5): the line of the error is p4c's (``file:line:col`` of the culprit), and with
p4c on PATH p4c refuses each too.  Each failed before."""
from __future__ import annotations

import pytest

from p4c_helpers import line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source

_TWO_T = "void twoT<A, B>(out A a, in B b) { a = (A)b; }\nvoid sw<T>(inout T a, inout T b) { T t = a; a = b; b = t; }"
_UE = "extern UE { UE(); T get<T>(); void put<T>(in T v); }"

CASES = {
    # a generic function's body is checked at its declaration, before a call's error further down
    # (p4c: "A: cast not supported"; checkmate-p4c checked generic bodies after everything else)
    "generic_body_before_a_later_call_error": (program(top=_TWO_T, body="        sw(hdr.h.a, hdr.h.b);"),
                                               "a = (A)b", "type parameter"),
    # an extern method called with type arguments parses (`ue.put<bit<8>>(x)`, `>>` closing them):
    # checkmate-p4c's syntax error at the call came before p4c's at the extern
    "extern_method_type_arguments_parse": (program(top=_UE, locals="    UE() ue;",
                                                   body="        ue.put<bit<8>>(hdr.h.a);"),
                                           "void put<T>", "Unknown extern method put"),
    # const entries in a table with no key: p4c names the table, not the property
    "entries_in_a_table_without_key": (program(locals="    action a() { }\n    table tk {\n        actions = { a; }\n"
                                                      "        const entries = { _: a(); }\n    }", body="        tk.apply();"),
                                       "table tk", "no key"),
    # a value_set<bool> a select uses: p4c's type error is at the select (its type is checked there)
    "bool_value_set_used": (program().replace("state start { pkt.extract(hdr.h); transition accept; }",
                                              "value_set<bool>(2) vb;\n    state start { pkt.extract(hdr.h); "
                                              "transition select(hdr.h.a == 0) { vb: accept; default: accept; } }"),
                            "transition select", "bool"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_at_p4c_line(name, tmp_path):
    src, culprit, words = CASES[name]
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "prog.p4")
    line, _ = line_of(src, culprit)
    assert str(ei.value).startswith(f"prog.p4:{line}:") and words in str(ei.value), str(ei.value)
    assert p4c_accepts(src, tmp_path) in (None, False), "p4c accepts it"
