"""A digest's P4Info name as p4c 1.2.4.8 gives it: ``digest<T>(...)`` with T a typedef of a
struct is named T as written (``MyS2``, not the typedef it names nor the struct), while its
``type_spec`` and the ``type_info`` entry keep the struct's name; an inferred type argument or
``digest<S2>`` names it after the struct.  (BMv2's P4Runtime server cannot configure a digest
so named -- its learn list carries the struct's name -- so no packet test has one.)  With p4c
on PATH the whole P4Info is also compared with p4c's."""
from __future__ import annotations

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from p4c_helpers import program
from switch.bmv2json.p4c import p4c_path, run_p4c
from switch.compiler import compile_source
from switch.compiler.p4info import canonical_text

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
    if p4c_path() is not None:
        src = tmp_path / "prog.p4"
        src.write_text(TEXT)
        _, p4info_path = run_p4c(src, tmp_path, timeout=120)
        ref = text_format.Parse(p4info_path.read_text(), p4info_pb2.P4Info())
        assert canonical_text(info) == canonical_text(ref)
