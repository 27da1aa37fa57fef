"""More programs p4c 1.2.4.8 compiles whose BMv2 JSON simple_switch 1.15.5 refuses to load (helpers
errs17-errs19, hashinv, opens, opens2, errs21; the method and the checks are test_load_refused.py's, whose
test functions run these too): checkmate-p4c compiles them and checkmate-switch refuses the build at
``file:line:col``.  Each failed before: checkmate-switch loaded the build (a struct in hash/digest
data, a stack element given as a list, struct data p4c writes as a JSON list inside the field list,
a negative select label) or refused it without a position (duplicate initial entries) -- or, for a
struct expression in checksum data, checkmate-p4c refused the program as a computation."""
from __future__ import annotations

import test_load_refused as base
from p4c_helpers import program

_H = "        hash(hdr.h.b, HashAlgorithm.crc16, 16w0, %s, 16w100);"
_CC = program().replace("control CC(inout headers hdr, inout meta_t m) { apply { } }",
                        "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, %s, "
                        "hdr.h.b, HashAlgorithm.csum16); } }")
_T = ("    action a2(bit<8> v) { hdr.h.c = v; }\n    table t { key = { %s } actions = { a2; }\n"
      "        const entries = { %s }\n    }")
_SEL = ("    action_selector(%s, 4, 8) sel;\n    action a2(bit<8> v) { hdr.h.c = v; }\n"
        "    table t { key = { hdr.h.a: exact; %s } actions = { a2; } implementation = sel; }")
_INVALID_REF = "Invalid reference to object of type 'header' with name 'm'"
_LOGIC = "Json::LogicError"
_NO_FIELD = "No field 'userMetadata.x' can be found in header type 'meta_t'"
_DUP = "Duplicate entries in table initializer"

_C = ("control C(inout h_t h) {\n%s    action bump() { h.c = h.c + 1; }\n"
      "    @hidden table t { actions = { bump; } const default_action = bump(); }\n    apply { %s }\n}")
_TWICE = "        C.apply(hdr.h);\n        C.apply(hdr.h); hdr.h.a = 1;"
_AGAIN = "C.apply(hdr.h); hdr.h.a = 1;"
_DUP_NODE = "Duplicate objects of type 'control node' with name '%s'"

# struct data p4c writes with a JSON list inside the field list, negative select labels (helper errs19,
# /work/e19 t3, t4, t8; elab_load_refusals.refuse_nested_struct_data, elab_parsers.negative_select_label)
_NESTED_TOP = "struct i_t { bit<8> p; bit<8> q; }\nstruct o_t { i_t i; bit<16> z; }\nstruct f_t { bit<8> p; bit<16> z; }"


def _nested_meta(src: str) -> str:
    return src.replace("struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; o_t o; f_t f; }")


_CC_NESTED = ("control CC(inout headers hdr, inout meta_t m) { apply { } }",
              "control CC(inout headers hdr, inout meta_t m) { apply { update_checksum(true, %s, hdr.h.b, HashAlgorithm.csum16); } }")


def _hash(data: str, pre: str = "") -> str:
    return _nested_meta(program(top=_NESTED_TOP, body=pre + _H % data))


def _select(labels: str, key: str = "(int<8>)hdr.h.a") -> str:
    return program().replace("state start { pkt.extract(hdr.h); transition accept; }",
                             f"state start {{ pkt.extract(hdr.h); transition select({key}) {{ {labels} default: accept; }} }}")


_VC = "control VC(inout headers hdr, inout meta_t m) { apply { } }"


def _bool_meta(src: str) -> str:
    return src.replace("struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; bool bl; }")


def _cs_update(data: str, fn: str = "update_checksum", cond: str = "true", algo: str = "csum16") -> str:
    return program(top=_NESTED_TOP).replace(_CC_NESTED[0], "control CC(inout headers hdr, inout meta_t m) { apply { "
                                                          f"{fn}({cond}, {data}, hdr.h.b, HashAlgorithm.{algo}); }} }}")


def _cs_verify(data: str) -> str:
    return program(top=_NESTED_TOP).replace(_VC, "control VC(inout headers hdr, inout meta_t m) { apply { "
                                                 f"verify_checksum(true, {data}, hdr.h.b, HashAlgorithm.csum16); }} }}")


# name -> (program, text where checkmate-switch's message points, BMv2's words)
REFUSED = {
    # the user metadata parameter as an element of a data list, or as a digest's data however given
    "hash_data_metadata_in_list": (program(body=_H % "{ hdr.h.a, m }"), "m }", _INVALID_REF),
    "update_checksum_metadata_in_list": (_CC % "{ m }", "m }", _INVALID_REF),
    "digest_metadata": (program(body="        digest(1, m);"), "m);", _INVALID_REF),
    "digest_metadata_in_list": (program(body="        digest(1, { m });"), "m }", _INVALID_REF),
    # a local copy (or an action parameter) of the user metadata's type as hash or digest data
    "hash_data_metadata_copy": (program(body="        meta_t m2 = m;\n" + _H % "m2"), "m2, 16w100", _NO_FIELD),
    "hash_data_metadata_action_parameter": (program(locals="    action a(in meta_t x) {" + _H[7:] % "{ x }" + " }",
                                                    body="        a(m);"), "x }", _NO_FIELD),
    "digest_metadata_copy": (program(body="        meta_t m2 = m; digest(1, m2);"), "m2);", _NO_FIELD),
    # another struct reached through a parameter, inside a hash data list
    "hash_data_headers_struct_in_list": (program(body=_H % "{ hdr.h.a, hdr }"), "hdr }", "Json::LogicError"),
    # a header union inside a hash data list
    "hash_data_union_in_list": (program(top="header_union u_t { h_t x; }", body="        u_t u; u.x = hdr.h;\n" + _H % "{ u }"),
                                "u }", "Invalid reference to object of type 'header' with name 'tmp'"),
    # a header stack inside a hash data list: p4c writes {"type": "header_stack"} (helper hashinv)
    "hash_data_header_stack_in_list": (program(body="        h_t[2] st; st[0] = hdr.h;\n" + _H % "{ hdr.h.a, st }"),
                                       "st }", "Unsupported input type 'header_stack'"),
    "hash_data_struct_with_a_stack": (program(top="struct ss_t { h_t[2] s; }", locals="    ss_t l;",
                                              body="        l.s[0] = hdr.h;\n" + _H % "l"),
                                      "l, 16w100", "Unsupported input type 'header_stack'"),
    # a stack element given as a list of its fields or a struct initializer: p4c's assign_header
    # takes a bare JSON list
    "stack_element_from_a_list": (program(body="        h_t[2] st = { { 1, 2, 3 }, hdr.h };\n        hdr.h.a = st[0].a;"),
                                  "{ { 1", "Json::LogicError"),
    "stack_element_from_a_struct_initializer": (program(
        body="        h_t[2] st = { hdr.h, { a = 1, b = 2, c = 3 } };\n        hdr.h.a = st[1].a;"), "{ hdr.h, {", "Json::LogicError"),
    # a header stack in a digest's data (bare, in a list, in a struct): init_learn_lists' assertion
    "digest_header_stack": (program(top="struct ds_t { h_t[2] s; }", locals="    ds_t d;",
                                    body="        d.s[0] = hdr.h; digest(1, d);"), "d);", "Assertion `type == \"field\"' failed"),
    "digest_header_stack_in_list": (program(body="        h_t[2] st; st[0] = hdr.h; digest(1, { hdr.h.a, st });"),
                                    "{ hdr.h.a, st }", "Assertion `type == \"field\"' failed"),
    # an action_selector with HashAlgorithm.random; a bool selector key
    "action_selector_random": (program(locals=_SEL % ("HashAlgorithm.random", "hdr.h.c: selector;"), body="        t.apply();"),
                               "HashAlgorithm.random", "Unknown hash algorithm: random"),
    "action_selector_bool_key": (program(locals=_SEL % ("HashAlgorithm.crc16", "hdr.h.c == 1: selector @name(\"k\");"),
                                         body="        t.apply();"),
                                 "== 1: selector", "Assertion `type == \"field\"' failed"),
    # two initial entries with the same match: the later one is named
    "duplicate_const_entries": (program(locals=_T % ("hdr.h.a: exact;", "1: a2(1); 2: a2(2); 8w1: a2(3);"),
                                        body="        t.apply();"), "8w1:", _DUP),
    "duplicate_lpm_entries": (program(locals=_T % ("hdr.h.a: lpm;", "0x10 &&& 0xf0: a2(1); 0x1f &&& 0xf0: a2(2);"),
                                      body="        t.apply();"), "0x1f", _DUP),
    "duplicate_entries_equal_priorities": (program(
        locals=_T % ("hdr.h.a: ternary;", "1 &&& 0xff: a2(1) @priority(3); 1 &&& 0xff: a2(2) @priority(3);"),
        body="        t.apply();"), "1 &&& 0xff: a2(2)", _DUP),
    # ... in log_msg's data list (p4c's FlattenLogMsg format "s=(x:{},y:{})"; helper errs18, /work/e18 t5)
    "log_msg_metadata_in_list": (program(body='        log_msg("s={}", { m });'), "m });", _INVALID_REF),
    "log_msg_header_and_metadata_in_list": (program(body='        log_msg("h={} s={}", { hdr.h, m });'), "m });", _INVALID_REF),
    # a control type whose only table is @hidden applied directly twice: p4c makes an instance per
    # application, both named I.C, and its JSON holds two tables I.C.t (simple_switch_grpc dies of a
    # SIGSEGV at SetForwardingPipelineConfig); checkmate-p4c refused it ("applied more than once";
    # corpus18's open probe, helper opens) -- in both branches of an if, through a sub-control C
    # applies, and applied from a sub-control's body
    "direct_application_twice_hidden_table": (program(top=_C % ("", "t.apply();"), body=_TWICE), _AGAIN, _DUP_NODE % "I.C.t"),
    "direct_application_in_both_branches_hidden_table": (program(
        top=_C % ("", "if (t.apply().hit) { h.a = 1; }"),
        body="        if (hdr.h.a == 1) { C.apply(hdr.h); } else { C.apply(hdr.h); hdr.h.a = 1; }"), _AGAIN, _DUP_NODE % "I.C.t"),
    "direct_application_twice_nested_hidden_table": (program(
        top=_C.replace("control C", "control Dn") % ("", "t.apply();") + _C % ("    Dn() d;\n", "d.apply(h);"), body=_TWICE),
        _AGAIN, _DUP_NODE % "I.C.d.t"),
    "direct_application_twice_from_a_sub_control": (program(
        top=_C % ("", "t.apply();") + "control S(inout h_t h) { apply { C.apply(h); C.apply(h); h.a = 1; } }",
        locals="    S() s;", body="        s.apply(hdr.h);"), "C.apply(h); h.a = 1;", _DUP_NODE % "I.s.C.t"),
    # (errs19) struct data: bare, a struct member of a parameter with a struct field, a struct
    # expression with one
    "hash_data_nested_struct_member": (_hash("m.o"), "m.o, 16w100", _LOGIC),
    "hash_data_nested_struct_expression": (_hash("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _LOGIC),
    # in a data list: any struct expression, a struct local with a struct field
    "hash_data_struct_expression_in_list": (_hash("{ (f_t){ p = hdr.h.a, z = 1 }, hdr.h.c }"), "(f_t)", _LOGIC),
    "hash_data_nested_struct_local_in_list": (_hash("{ l, hdr.h.a }", "        o_t l = m.o;\n"), "l, hdr.h.a", _LOGIC),
    "update_checksum_nested_struct_member": (_nested_meta(program(top=_NESTED_TOP).replace(_CC_NESTED[0], _CC_NESTED[1] % "m.o")),
                                             "m.o, hdr", _LOGIC),
    # a negative label of a select on one signed key: p4c writes "-0x03" (helper errs19, pc c_t_mask_signed)
    "select_negative_label": (_select("-3: reject;"), "-3: reject", "Assertion `hexstring[idx] != '-'' failed"),
    "select_negative_masked_label": (_select("-1 &&& 0x0f: reject;"), "-1 &&& 0x0f", "Assertion `hexstring[idx] != '-'' failed"),
    # (opens2) checksum data holding a struct expression: p4c writes it as a list inside the field list
    "update_checksum_nested_struct_expression": (_cs_update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _LOGIC),
    "update_checksum_nested_struct_expression_of_constants": (_cs_update("(o_t){ i = { 1, 2 }, z = 3 }"), "(o_t)", _LOGIC),
    "update_checksum_nested_struct_expression_under_a_condition": (
        _cs_update("(o_t){ i = { hdr.h.a, hdr.h.c }, z = m.y }", cond="hdr.h.isValid()"), "(o_t)", _LOGIC),
    "update_checksum_nested_struct_expression_crc16": (_cs_update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }", algo="crc16"),
                                                       "(o_t)", _LOGIC),
    "update_checksum_flat_struct_expression_in_list": (_cs_update("{ (f_t){ p = hdr.h.a, z = 1 }, hdr.h.c }"), "(f_t)", _LOGIC),
    "update_checksum_nested_struct_expression_in_list": (_cs_update("{ hdr.h.c, (o_t){ i = { hdr.h.a, 2 }, z = 1 } }"),
                                                         "(o_t)", _LOGIC),
    "update_checksum_with_payload_nested_struct_expression": (
        _cs_update("(o_t){ i = { hdr.h.a, 2 }, z = 1 }", fn="update_checksum_with_payload"), "(o_t)", _LOGIC),
    "verify_checksum_nested_struct_expression": (_cs_verify("(o_t){ i = { hdr.h.a, 2 }, z = 1 }"), "(o_t)", _LOGIC),
    # (errs21) a negative label of a select on a serializable enum over int<8> (errs19's check took
    # int<N> keys only; /work/e21 pf se_lookahead_serenum_int), a comparison of strings (a string
    # constructor parameter; pe e_str_ctor_compare)
    "select_negative_serenum_label": (
        program(top="enum int<8> Sy { A = 1, B = -2 }").replace(
            "state start { pkt.extract(hdr.h); transition accept; }",
            "state start { pkt.extract(hdr.h); transition select((Sy)(int<8>)hdr.h.a) { Sy.B: reject; default: accept; } }"),
        "Sy.B: reject", "Assertion `hexstring[idx] != '-'' failed"),
    # 'last' of a stack of header unions, in a select or a statement (pc c_u_union_stack_last)
    "union_stack_last": (
        program(top="header u1_t { bit<8> x; }\nheader_union u_t { u1_t one; h_t two; }").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; u_t[2] us; }").replace(
            "state start { pkt.extract(hdr.h); transition accept; }",
            "state start { pkt.extract(hdr.h); pkt.extract(hdr.us.next.one); "
            "transition select(hdr.us.last.one.x) { 1: accept; default: accept; } }"),
        "hdr.us.last", "Invalid reference to object of type 'header'"),
    "string_comparison": (
        program(top='control SubS(inout h_t h)(string k) { apply { if (k == "a") { h.c = 1; } } }',
                locals='    SubS("a") s;', body="        s.apply(hdr.h);"),
        '== "a"', "Invalid 'type' in expression: 'string'"),
    # (errs23) a varbit field of the metadata struct, used: p4c compiles it, simple_switch refuses
    # its JSON; checkmate-p4c refused the program ("varbit fields are only supported in headers")
    "varbit_metadata_field_used": (
        program(top="header vb_t { bit<8> l; varbit<32> v; }").replace(
            "struct meta_t { bit<8> x; bit<16> y; }", "struct meta_t { bit<8> x; bit<16> y; varbit<32> mv; }").replace(
            "struct headers { h_t h; }", "struct headers { h_t h; vb_t v1; }").replace(
            "    apply {\n\n    }", "    apply {\n        m.mv = hdr.v1.v;\n    }", 1),
        "mv = hdr", "Invalid reference to object of type 'header'"),
    # a direct_meter<S> of a struct read into a struct local: p4c writes the meter's result_target as
    # a name, and simple_switch dies loading it (Json::LogicError); checkmate-switch loaded the build
    "direct_meter_read_into_a_struct": (
        program(top="struct s2_t { bit<8> p; }", locals="    direct_meter<s2_t>(MeterType.packets) dm;\n"
                "    action a() { s2_t r; dm.read(r); hdr.h.c = r.p; }\n"
                "    table t { key = { hdr.h.a: exact; } actions = { a; } meters = dm; }", body="        t.apply();"),
        "r); hdr.h.c", "Json::LogicError"),
    # a bool in a checksum's data (an element, or a field of a struct given whole), as in hash's data:
    # "Unsupported input type 'expression' for calculation"; a bool checksum field of update_checksum:
    # simple_switch dies loading the JSON (Json::LogicError); checkmate-switch loaded the first, and
    # checkmate-p4c refused the second ("checksum field must be bit<N>")
    "update_checksum_data_with_a_bool": (
        _bool_meta(program().replace(_CC_NESTED[0], "control CC(inout headers hdr, inout meta_t m) { apply { "
                                     "update_checksum(true, { hdr.h.a, m.bl }, hdr.h.b, HashAlgorithm.csum16); } }")),
        "{ hdr.h.a, m.bl }", "Unsupported input type 'expression'"),
    "verify_checksum_struct_data_with_a_bool": (
        _bool_meta(program().replace(_VC, "control VC(inout headers hdr, inout meta_t m) { apply { "
                                     "verify_checksum(true, m, hdr.h.b, HashAlgorithm.csum16); } }")),
        "m, hdr.h.b", "Unsupported input type 'expression'"),
    "update_checksum_bool_field": (
        _bool_meta(program().replace(_CC_NESTED[0], "control CC(inout headers hdr, inout meta_t m) { apply { "
                                     "update_checksum(true, { hdr.h.a }, m.bl, HashAlgorithm.csum16); } }")),
        "m.bl, HashAlgorithm", "Json::LogicError"),
}
LOADED = {
    # a struct local, standard_metadata in log_msg's list, the metadata given bare (helper errs18)
    "log_msg_struct_local_in_list": program(top="struct s_t { bit<8> p; bit<8> q; }",
                                            body='        s_t l = { 1, hdr.h.a };\n        log_msg("l={}", { l });'),
    "log_msg_standard_metadata_in_list": program(body='        log_msg("s={}", { sm });'),
    "log_msg_metadata_bare": program(body='        log_msg("x={} y={}", m);'),
    # a bare metadata or headers struct as hash data, a struct local of another type, a field of a copy
    "hash_data_metadata_bare": program(body=_H % "m"),
    "hash_data_metadata_copy_fields": program(body="        meta_t m2 = m; m2.x = 3;\n" + _H % "{ m2.x, m2.y }"),
    "hash_data_struct_local_in_list": program(top="struct s_t { bit<8> p; bit<8> q; }",
                                              body="        s_t l = { 1, hdr.h.a };\n" + _H % "{ hdr.h.c, l }"),
    "stack_from_headers": program(body="        h_t[2] st = { hdr.h, hdr.h };\n        st[1].a = 3; hdr.h.c = st[1].a;"),
    "duplicate_entries_distinct_priorities": program(
        locals=_T % ("hdr.h.a: ternary;", "1 &&& 0xff: a2(1); 1 &&& 0xff: a2(2);"), body="        t.apply();"),
    "duplicate_range_entries": program(locals=_T % ("hdr.h.a: range;", "1 .. 5: a2(1); 1 .. 5: a2(2);"),
                                       body="        t.apply();"),
    # flat ones, the parameters themselves and struct locals given bare
    "hash_data_flat_struct_member": _hash("m.f"),
    "hash_data_inner_struct_member": _hash("m.o.i"),
    "hash_data_metadata_with_a_nested_struct": _hash("m"),
    "hash_data_nested_struct_local": _hash("l", "        o_t l = m.o;\n"),
    "hash_data_flat_struct_expression": _hash("(f_t){ p = hdr.h.a, z = 1 }"),
    "hash_data_flat_struct_local_alone_in_list": _hash("{ l }", "        f_t l = m.f;\n"),
    # a mask of all ones is dropped; a tuple's keys are concatenated as bits
    "select_negative_mask_all_ones": _select("5 &&& -1: reject;"),
    "select_negative_label_in_a_tuple": _select("(1, -3): reject;", "hdr.h.c, (int<8>)hdr.h.a"),
    # (opens2) ... given bare and flat: loads and runs (frames: diffcases/opens2.py)
    "update_checksum_flat_struct_expression": _cs_update("(f_t){ p = hdr.h.a, z = m.y }"),
    "verify_checksum_flat_struct_expression": _cs_verify("(i_t){ p = hdr.h.a, q = hdr.h.c }"),
}


# Loaded by simple_switch, which dies executing them (the packet is dropped there): random of an
# int<N> with a negative bound (p4c writes "-0x01"; boost range_error, /work/e17 g_random_int)
DIES = {
    "random_negative_bound": (program(body="        int<8> r; if (hdr.h.a == 9) { random(r, -1, -1); hdr.h.c = (bit<8>)r; }"),
                              "random(r, -1, -1); hdr.h.c = (bit<8>)r;"),
}


globals().update(base.load_refusal_tests(REFUSED, LOADED, DIES))
