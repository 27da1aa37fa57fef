"""Found by helper mutz35 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match."""
from .base import VALUES, case, program
from .externs import CAT_CK, IP_FR, IP_LIST, ip
from .fuzz25 import _FR as _F25_FR, _SUB as _F25_SUB, _SW as _F25_SW
from .fuzz28 import CASES as _FUZZ28
from .mutz34 import CAT, _sub_wrap

CAT_P4INFO = "front end: P4Info as p4c's"

# fuzz_mutants seed 2240 (sub_wrap on fuzz28_whole_header_copy_in_a_single_case_switch_read_by_kept_an_
# is_valid_of_the_source): the whole-header copy `hdr.s[1] = hdr.o` a single-case switch leaves is
# ended by an isValid() of either header in a sub-control's body as it is inline -- p4c inlines the body
# before its LocalCopyPropagation, and its JSON keeps `s[0] = s[1]` after `hdr.h.c = hdr.o.isValid() ?
# 1 : 2` there, so BMv2 copies hdr.s[1]; checkmate-p4c carried the copy past the apply (only a write
# in the body ended it) and copied hdr.o.
_W28 = "fuzz28_whole_header_copy_in_a_single_case_switch_read_by_"
CASES = [
    _sub_wrap(_FUZZ28, _W28 + "kept_an_is_valid_of_the_source", "hdr.h.c = hdr.o.isValid() ? 16w1 : 16w2;",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_an_is_valid_of_the_source_in_a_sub_control"),
    _sub_wrap(_FUZZ28, _W28 + "kept_an_is_valid_between", "hdr.h.c = hdr.s[1].isValid() ? 16w1 : 16w2;",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_an_is_valid_of_the_copy_in_a_sub_control"),
    _sub_wrap(_FUZZ28, _W28 + "an_assignment", "hdr.s[0] = hdr.s[1];",
              "mutz35_whole_header_copy_of_a_single_case_switch_ended_by_a_comparison_in_a_sub_control",
              "if (hdr.o == hdr.s[2]) { hdr.h.c = 7; }", keep=True),
]

# fuzz_mutants seed 1845 (kinds cast_slice,exit_stmt,switch_wrap; exit_stmt on errs15_log_msg_of_a_tuple_value:
# `return;` before the only call of a generic function holding a log_msg): p4c writes an (empty)
# type_info in the P4Info where its serializer converted a type -- at an extern call of a function
# only where the function is called from code it keeps; an unused function, or one called only after
# a `return`, in an `if (!true)` branch or after an if whose both arms return, is gone before.
# checkmate-p4c looked at every function's body.
_FN = "void drop_it(inout standard_metadata_t s) { mark_to_drop(s); }\n"
CASES += [
    case(f"mutz35_function_with_an_extern_call_{name}_writes_no_type_info", CAT_P4INFO,
         program(body, top=_FN), frames=VALUES[:2])
    for name, body in (("unused", ""), ("called_after_a_return", "        return;\n        drop_it(sm);\n"),
                       ("called_in_a_folded_branch", "        if (!true) { drop_it(sm); }\n"),
                       ("called_after_an_if_whose_arms_return",
                        "        if (hdr.h.a == 1) { return; } else { return; }\n        drop_it(sm);\n"))
] + [case("mutz35_function_with_an_extern_call_called_writes_type_info", CAT_P4INFO,
          program("        if (hdr.h.a == 1) { return; }\n        drop_it(sm);\n", top=_FN), frames=VALUES[:2])]

# p4c_mutate seed 337 (table_extern, a new kind: a direct meter given to a table, no action reading
# it): p4c's BMv2 back end wants a read of a table's direct meter ("must have at least one action
# with a read method call") only of a table its mid end keeps -- one applied only after a `return`
# under a condition it folds to true (an enum cast's), or in a branch it folds away, is in the P4Info and gone from
# the JSON, unchecked; checkmate-p4c checked every table of the P4Info and refused both.
_DM = ("    action s(bit<8> v) { hdr.h.c = hdr.h.c + (bit<16>)v; }\n"
       "    direct_meter<bit<8>>(MeterType.bytes) dm;\n"
       "    table t3 { meters = dm; key = { hdr.h.a: exact; } actions = { s; NoAction; } default_action = s(4); }\n")
CASES += [
    case("mutz35_direct_meter_unread_on_a_table_applied_only_after_a_folded_return", CAT_P4INFO, program(
        "        if (hdr.h.b == 3) {\n            if (((En_t)4w5 != En_t.C) || (hdr.h.b != hdr.h.b)) { return; }\n"
        "            t3.apply();\n        }\n        hdr.h.d = 7;\n", ingress_decls=_DM,
        top="enum bit<4> En_t { A = 1, B = 5, C = 9 }\n"), frames=VALUES[:3]),
    case("mutz35_direct_meter_unread_on_a_table_applied_only_in_a_folded_branch", CAT_P4INFO, program(
        "        bit<8> v = 3;\n        if (v <= 5) { hdr.h.b = 0x11; } else { t3.apply(); }\n", ingress_decls=_DM),
        frames=VALUES[:3]),
]

# p4c_mutate seed 430 (cast_slice, a new kind, on ck_update_cond_false): p4c's strength reduction makes a
# field of a checksum data element that slices all its bits, slices a `++` within one operand (also
# nested), slices a slice, or casts such a slice to the field's type -- `(hdr.ip.tos ++ 8w0)[15:8]` is
# hdr.ip.tos, which BMv2 sums (and `(hdr.ip.tos ++ 8w0)[7:0]` the constant 0); checkmate-p4c refused
# them as computations (a partial slice, a `++` kept whole and a sign round trip stay refused, probed).
for _name, _tos in [("a_full_slice", "hdr.ip.tos[7:0]"), ("a_concatenation_slice", "(hdr.ip.tos ++ 8w0)[15:8]"),
                    ("a_nested_concatenation_slice", "(8w1 ++ (8w0 ++ hdr.ip.tos))[7:0]"),
                    ("a_slice_of_a_slice", "hdr.ip.tos[7:0][7:0]"),
                    ("a_cast_of_a_full_slice", "(bit<8>)(hdr.ip.tos[7:0])"),
                    ("a_constant_slice_of_a_concatenation", "(hdr.ip.tos ++ 8w0)[7:0]")]:
    CASES.append(case(f"mutz35_checksum_data_element_strength_reduced_to_a_field_{_name}", CAT_CK, ip(
        "        if (hdr.ip.isValid()) { hdr.ip.ttl = hdr.ip.ttl - 1; }\n",
        compute=f"apply {{ update_checksum(hdr.ip.isValid(), {IP_LIST.replace('hdr.ip.tos', _tos)}, hdr.ip.csum, "
                "HashAlgorithm.csum16); }"), frames=IP_FR))

# fuzz_mutants seed 2285 (kinds cast_slice,exit_stmt,switch_wrap; exit_stmt on fuzz25_single_case_switch_
# copies_past_a_sub_control_in_a_block_and_an_if): the copy `meta.m8 = hdr.h.b` a single-case switch
# leaves goes on past an applied sub-control whose body writes neither but returns (conditionally, or
# at its end) -- p4c's RemoveReturns makes the return a flag, and its JSON reads hdr.h.b for
# `hdr.h.d = (bit<32>)meta.m8` after the applies (probed); checkmate-p4c ended the copy at any return.
_S3 = "    apply { hdr.h.c = 16w1; meta.m16 = 2; }"
for _name, _body in [("a_conditional_return",
                      "    apply { if (hdr.h.c == 0x1112) { return; } hdr.h.c = 16w1; meta.m16 = 2; }"),
                     ("a_return_at_its_end", "    apply { hdr.h.c = 16w1; meta.m16 = 2; return; }")]:
    assert _S3 in _F25_SUB
    CASES.append(case(f"mutz35_single_case_switch_copy_past_a_sub_control_with_{_name}", CAT, program(
        _F25_SW + "        { s3.apply(hdr, meta); }\n        if (hdr.h.b == 9) { s3.apply(hdr, meta); }\n"
        "        hdr.h.d = (bit<32>)meta.m8;\n", top=_F25_SUB.replace(_S3, _body), ingress_decls="    S3() s3;\n"),
        frames=_F25_FR))
