"""A digest's P4Info name as p4c 1.2.4.8 gives it: ``digest<T>(...)`` with T a typedef of a
struct is named T as written (``MyS2``, not the typedef it names nor the struct), while its
``type_spec`` and the ``type_info`` entry keep the struct's name; an inferred type argument or
``digest<S2>`` names it after the struct.  (BMv2's P4Runtime server cannot configure a digest
so named -- its learn list carries the struct's name -- so no packet test has one.)  With p4c
on PATH the whole P4Info is also compared with p4c's."""
from __future__ import annotations


from p4c_helpers import assert_p4info_as_p4c, program
from switch.compiler import compile_source

TEXT = program(top="struct S2 { bit<8> a; bit<16> b; }\ntypedef S2 MyS;\ntypedef MyS MyS2;\n",
               body="""        MyS v = { hdr.h.a, hdr.h.b };
        digest(1, v);
        digest<MyS2>(2, v);
        S2 w = v;
        digest<S2>(3, w);""")


def test_typedef_names_the_digest(tmp_path):
    info = compile_source(TEXT, "prog.p4").p4info
    got = {d.preamble.name: d.type_spec.struct.name for d in info.digests}
    assert got == {"S2": "S2", "MyS2": "S2"}
    assert list(info.type_info.structs) == ["S2"]
    assert_p4info_as_p4c(TEXT, info, tmp_path)
