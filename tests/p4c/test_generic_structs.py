"""Generic structs and headers (``struct Pair<A, B> { A a; B b; }``): one struct per list of
type arguments, named as p4c names its specializations (``Pair_0``, ``Pair_1`` ... in the
order first met, skipping a name the program declares); a use with the wrong number of type
arguments, or none, is an error at the use.  With p4c on PATH each verdict (and the P4Info of
the valid program) is checked against p4c's; the packet side is the differential case
f5_generic_structs_headers."""
from __future__ import annotations

import pytest

from p4c_helpers import assert_p4info_as_p4c, line_of, p4c_accepts, program
from switch.compiler import P4CompileError, compile_source

TOP = "struct Pair<A, B> { A a; B b; }\nstruct Pair_1 { bit<8> mine; }\nheader GH<T> { T v; }\n"


def test_specializations_are_named_as_p4c_names_them(tmp_path):
    text = program(top=TOP, body="""        Pair<bit<8>, bit<16>> p = { hdr.h.a, hdr.h.b };
        Pair<bit<16>, bit<8>> q = { hdr.h.b, hdr.h.a };
        Pair<bit<8>, bit<16>> again = p;
        GH<bit<8>> g = { 1 };
        digest(1, again);
        digest(2, q);
        hdr.h.c = g.v;""")
    info = compile_source(text, "prog.p4").p4info
    assert sorted(d.preamble.name for d in info.digests) == ["Pair_0", "Pair_2"]
    assert dict((m.name, m.type_spec.bitstring.bit.bitwidth) for m in info.type_info.structs["Pair_2"].members) \
        == {"a": 16, "b": 8}
    assert_p4info_as_p4c(text, info, tmp_path)


@pytest.mark.parametrize("body,culprit,words", [
    ("        Pair<bit<8>> p = { 1, 2 };", "Pair<bit<8>>", "takes 2 type argument(s), got 1"),
    # (p4c names the struct: "Unspecified type parameters for struct Pair in p"; errs23 measured it)
    ("        Pair p;", "Pair<A, B> {", "Unspecified type parameters"),
])
def test_wrong_type_arguments(body, culprit, words, tmp_path):
    text = program(top=TOP, body=body)
    with pytest.raises(P4CompileError) as ei:
        compile_source(text, "prog.p4")
    line, col = line_of(text, culprit)
    assert str(ei.value).startswith(f"prog.p4:{line}:{col}: ") and words in str(ei.value), str(ei.value)
    assert p4c_accepts(text, tmp_path) in (None, False), "p4c accepts it"


_GEN = "T id<T>(in T x) { return x; }\nT first<T>(in T a, in T b) { return a; }"


@pytest.mark.parametrize("body,decl", [
    ("hdr.h.a = id(first(hdr.h.a, id(hdr.h.a)));", "T id<T>"),
    ("hdr.h.a = first(id(first(hdr.h.a, hdr.h.a)), hdr.h.a);", "T first<T>"),
    ("hdr.h.a = first(hdr.h.a, id(hdr.h.a)) + id(first(hdr.h.a, hdr.h.a));", "T id<T>"),
])
def test_generic_call_in_a_call_argument_innermost_first(body, decl, tmp_path):
    """p4c 1.2.4.8 loses the type parameters of a generic function called inside another call's
    argument ("T: declaration not found" at the function's declaration) and reports the innermost
    such call first, then left to right (post-order); checkmate-p4c named the outermost's function
    (helper errs18, /work/e18 pa a_gen_recursive_call, t6 gr*)."""
    src = program(top=_GEN, body="        " + body)
    with pytest.raises(P4CompileError) as ei:
        compile_source(src, "g.p4")
    assert f"g.p4:{line_of(src, decl)[0]}:" in str(ei.value) and "declaration not found" in str(ei.value)
    from switch.bmv2json.p4c import P4cFailed, p4c_path, run_p4c
    if p4c_path() is not None:   # p4c's own line
        (tmp_path / "g.p4").write_text(src)
        with pytest.raises(P4cFailed) as pe:
            run_p4c(tmp_path / "g.p4", tmp_path, timeout=120)
        assert f"g.p4({line_of(src, decl)[0]}): [--Werror=not-found] error: T: declaration not found" in (
            str(pe.value) + pe.value.stderr)
