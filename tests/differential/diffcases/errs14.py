"""Programs found by helper errs14 (issue #15) in a sweep of the P4-16 spec's chapters with probe
programs of our own (a valid v1model program with one change each, as p4c's
testdata/p4_16_errors are made; kept in /work/corpus/errs14, outside the repository), each
decided by real p4c 1.2.4.8.

``CASES``: programs p4c accepts that checkmate-p4c refused or listed differently in the P4Info.
``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the message
must contain (any of)) -- programs p4c rejects that checkmate-p4c accepted.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# Explicit type arguments of log_msg<T>, extract<T>, emit<T> and update_checksum<T, O>:
# checkmate-p4c's parser read `log_msg<tuple<bit<8>>>(...)` as a comparison ("expected an
# expression, found 'tuple'"); the others parsed and their type arguments were never checked
# (see INVALID below).
CASES.append(case("errs14_explicit_type_arguments", CAT, program("""
        log_msg<tuple<bit<8>>>("a={}", { hdr.h.a });
        log_msg<h_t>("h={} {} {} {}", hdr.h);
        hdr.h.b = hdr.h.a + 1;""", parser="""    state start {
        pkt.extract<ethernet_t>(hdr.eth);
        transition select(hdr.eth.etype) { 0x1234: parse_h; default: accept; }
    }
    state parse_h {
        pkt.extract<h_t>(hdr.h);
        transition accept;
    }""", compute="apply { update_checksum<tuple<bit<8>, bit<8>>, bit<16>>(hdr.h.isValid(), { hdr.h.a, hdr.h.b }, "
                  "hdr.h.c, HashAlgorithm.csum16); }",
    deparser="        pkt.emit<ethernet_t>(hdr.eth);\n        pkt.emit<h_t>(hdr.h);")))

# A serializable enum over a typedef of bit<N>/int<N> (`typedef bit<8> B8; enum B8 E {...}`):
# p4c accepts it; checkmate-p4c's parser took only `bit`/`int` there ("expected '{'").
CASES.append(case("errs14_serializable_enum_over_typedef", CAT, program("""
        hdr.h.a = En.B;
        if ((En)hdr.h.b == En.A) { hdr.h.c = 16w0xabcd; }
        Sn s = Sn.M;
        hdr.h.d = (bit<32>)(bit<8>)(int<8>)s;""", top="typedef bit<8> B8;\ntypedef B8 B8b;\nenum B8b En { A = 3, B = 7 }\n"
    "typedef int<8> I8;\nenum I8 Sn { M = -3 }\n")))

# A @hidden table's actions are listed, and p4c lists them in the order of the control's tables
# (the top-level NoAction, its default, first): checkmate-p4c left the hidden table out of that
# walk and listed NoAction after the control's own actions.
CASES.append(case("errs14_hidden_table_action_order", CAT, program("        t.apply();\n", ingress_decls="""
    action a1(bit<8> v) { hdr.h.b = v; }
    action a2() { hdr.h.c = 2; }
    @hidden table t {
        key = { hdr.h.a: exact; }
        actions = { a1; a2; }
        const entries = { 1: a1(9); 2: a2(); }
    }
""")))

# A second V1Switch instance at top level (`... main; V1Switch(...) main2;`): p4c type-checks it
# and its BMv2 back end builds `main` only; checkmate-p4c refused it ("cannot instantiate
# V1Switch at top level").  (With wrong arguments p4c refuses it: INVALID below.)
_MAIN = "V1Switch(P(), VC(), I(), E(), CC(), D()) main;"
CASES.append(case("errs14_second_package_instance", CAT, program("        hdr.h.a = hdr.h.a + 1;\n").replace(
    _MAIN, _MAIN + "\nV1Switch(P(), VC(), E(), I(), CC(), D()) main2;")))

# A register indexed by a serializable enum (or a bool) (register<T, I>, V1MODEL_VERSION 20200408):
# p4c takes the index as is; checkmate-p4c refused it ("index of type En").  (A bool index
# expression, `rb.write(hdr.h.a == 1, ..)`, compiles on both but kills simple_switch_grpc as it
# loads the JSON -- "actions.cpp:239: Invalid expression type" -- so BMv2 decides nothing there.)
CASES.append(case("errs14_register_enum_index", CAT, program("""
        re.write(En.B, hdr.h.a);
        bit<8> y; re.read(y, En.B); hdr.h.d = (bit<32>)y;
        bit<8> z; re.read(z, En.A); hdr.h.b = z;""", top="enum bit<8> En { A = 1, B = 2 }\n", ingress_decls="""
    register<bit<8>, En>(4) re;
""", version=20200408)))

# log_msg in a parser state converts no type for p4c's P4Runtime serializer: no `type_info` in
# the P4Info of a program without tables or other externs (checkmate-p4c wrote an empty one).
CASES.append(case("errs14_log_msg_in_parser_no_type_info", CAT, program("", parser="""    state start {
        pkt.extract(hdr.eth);
        log_msg("etype {}", { hdr.eth.etype });
        transition select(hdr.eth.etype) { 0x1234: parse_h; default: accept; }
    }
    state parse_h {
        pkt.extract(hdr.h);
        log_msg("h");
        transition accept;
    }""")))

# `return` in the deparser (p4c accepts an unconditional one; what was emitted before it leaves): checkmate-switch's
# generated deparser returned nothing and the pipeline died (TypeError) on every packet.
CASES.append(case("errs14_return_in_deparser", CAT, program("        hdr.h.b = 5;\n", deparser="""        pkt.emit(hdr.eth);
        pkt.emit(hdr.h);
        return;
        pkt.emit(hdr.h2);""")))

# minSizeInBits/maxSizeInBits of a header union: its largest member (p4c folds it so), not the sum
# of its members; a struct or stack holding unions counts each so.  Found by tools/p4c_corpus.py
# --frames on errs14 probe un_minsize (checkmate-p4c gave 176 for { h_t; ethernet_t }, p4c 112).
_UNION_SIZES = "header vb_t { bit<8> n; varbit<32> v; }\nheader_union u_t { h_t x; ethernet_t y; }\n" \
    "header_union uv_t { h_t x; vb_t z; }\nstruct su_t { u_t u; bit<8> k; }\n"
CASES.append(case("errs14_union_size_in_bits", CAT, program("""
        hdr.h.a = (bit<8>)hdr.u.minSizeInBits();
        hdr.h.b = (bit<8>)u_t.maxSizeInBytes();
        hdr.h.c = (bit<8>)su_t.minSizeInBits() ++ (bit<8>)uv_t.maxSizeInBits();
        hdr.h.d = (bit<32>)hdr.us.minSizeInBits() + (bit<32>)uv_t.minSizeInBits();""",
    headers=_UNION_SIZES, fields="    u_t u;\n    u_t[2] us;\n")))

_UPD_VAR = "HashAlgorithm al = HashAlgorithm.csum16;\n"
_SUBP = "parser Sub(packet_in p, out h_t h)(bit<8> k) {\n%s\n}\n"
_SUBP_USE = "    Sub(1) s;\n    state start { pkt.extract(hdr.eth); s.apply(pkt, hdr.h); transition accept; }"
_TA_PARSER = "    state start { pkt.extract<%s>(hdr.eth); transition accept; }"

INVALID = {
    # the checksum functions' `algo` is directionless: a compile-time constant, not a variable that
    # constant propagation would fold ("argument used for directionless parameter 'algo' must be a
    # compile-time constant"); hash()'s `in` algo may be one
    "update_checksum_algorithm_variable": (program("", compute="apply { " + _UPD_VAR + " update_checksum(true, { hdr.h.a }, "
                                                   "hdr.h.c, al); }"), ("directionless", "compile-time constant")),
    "update_checksum_algorithm_control_variable": (program("", compute=_UPD_VAR + "apply { update_checksum(true, { hdr.h.a }, "
                                                           "hdr.h.c, al); }"), ("directionless", "compile-time constant")),
    "verify_checksum_algorithm_variable": (program("", verify="apply { " + _UPD_VAR + " verify_checksum(true, { hdr.h.a }, "
                                                   "hdr.h.c, al); }"), ("directionless", "compile-time constant")),
    # one scope for a block's parameters, type parameters and states
    "parser_state_named_as_parameter": (program("", parser="    state meta { transition accept; }\n"
                                                "    state start { pkt.extract(hdr.eth); transition accept; }"),
                                        ("Re-declaration of meta",)),
    "subparser_state_named_as_parameter": (program("", top=_SUBP % "    state h { transition accept; }\n"
                                                   "    state start { p.extract(h); transition accept; }", parser=_SUBP_USE),
                                           ("Re-declaration of h",)),
    "parser_state_named_as_type_parameter": (program("", top="parser Sub<T>(packet_in p, out T h) { state T { transition accept; } "
                                                     "state start { transition accept; } }\n"), ("Re-declaration of T",)),
    "constructor_parameter_named_as_parameter": (program("        s.apply(hdr.h);\n", top="control Sub(inout h_t h)(bit<8> h) "
                                                         "{ apply { } }\n", ingress_decls="    Sub(3) s;\n"), ("h duplicates h",)),
    "type_parameter_named_as_parameter": (program("", top="control Sub<T>(inout T T) { apply { } }\n"), ("Re-declaration of T",)),
    "function_type_parameter_named_as_parameter": (program("        ff(hdr.h.a);\n", top="void ff<T>(in T T) { }\n"),
                                                   ("Re-declaration of T",)),
    "control_constant_named_as_type_parameter": (program("", top="control Sub<T>(inout T x) { const bit<8> T = 1; apply { } }\n"),
                                                 ("Re-declaration of T",)),
    "parser_variable_named_as_type_parameter": (program("", top="parser Sub<T>(packet_in p, out T x) { bit<8> T = 1; "
                                                        "state start { transition accept; } }\n"), ("Re-declaration of T",)),
    # explicit type arguments are checked against the arguments
    "extract_type_argument_mismatch": (program("", parser=_TA_PARSER % "h_t"), ("type argument",)),
    "extract_next_type_argument_mismatch": (program("", fields="    h_t[2] s;\n", parser="    state start { pkt.extract(hdr.eth); "
                                                    "pkt.extract<ethernet_t>(hdr.s.next); transition accept; }"), ("type argument",)),
    "emit_type_argument_mismatch": (program("", deparser="        pkt.emit<h_t>(hdr.eth);"), ("type argument",)),
    "update_checksum_type_argument_mismatch": (program("", compute="apply { update_checksum<tuple<bit<8>>, bit<32>>(true, "
                                                       "{ hdr.h.a }, hdr.h.c, HashAlgorithm.csum16); }"), ("type argument",)),
    "log_msg_type_argument_mismatch": (program("        log_msg<tuple<bit<16>>>(\"x {}\", {hdr.h.a});\n"),
                                       ("type mismatch", "type argument")),
    # enums: at least one member; no `type` as a serializable enum's base
    "enum_without_members": (program("", top="enum En { }\n"), ("no members", "unexpected }")),
    "serializable_enum_without_members": (program("", top="enum bit<8> En { }\n"), ("no members", "unexpected }")),
    "serializable_enum_over_type": (program("", top="type bit<8> B8;\nenum B8 En { A = 1 }\n"), ("Illegal type for enum",)),
    # p4c 1.2.4.8 evaluates no constant of type error or string ("Cannot evaluate initializer for
    # constant"), used or not, at top level, in a control or in a block
    "constant_of_type_error": (program("", top="const error K = error.NoMatch;\n"), ("Cannot evaluate initializer",)),
    "control_constant_of_type_error": (program("        if (sm.parser_error == K) { hdr.h.a = 1; }\n",
                                               ingress_decls="    const error K = error.NoMatch;\n"), ("Cannot evaluate initializer",)),
    "block_constant_of_type_string": (program("        const string K = \"x\";\n"), ("Cannot evaluate initializer",)),
    "constant_struct_holding_error": (program("", top="struct se_t { error e; }\nconst se_t K = { e = error.NoMatch };\n"),
                                      ("Cannot evaluate initializer",)),
    # a width is an integer literal or an expression in parentheses: bit<(W)>, not bit<W>
    "width_named_by_constant": (program("        bit<W> x = 1; hdr.h.a = x;\n", top="const int W = 8;\n"), ("expecting ( or INTEGER",)),
    "int_width_named_by_constant": (program("        int<W> x = 1; hdr.h.a = (bit<8>)x;\n", top="const int W = 8;\n"),
                                    ("expecting ( or INTEGER",)),
    "field_width_named_by_constant": (program("", top="const int W = 8;\n", headers="header hw_t { bit<W> v; }\n"),
                                      ("expecting ( or INTEGER",)),
    # V1Switch: the metadata type is a struct; no block is generic; another instance is type-checked
    "metadata_type_is_header": (program("").replace("struct meta_t {", "header meta_t {"), ("user metadata type to be a struct",)),
    "metadata_type_is_bit": (program("").replace("inout meta_t meta", "inout bit<8> meta"), ("user metadata type to be a struct",)),
    "generic_ingress_in_v1switch": (program("").replace("control I(inout", "control I<Z>(inout"), ("could not infer a type",)),
    "second_package_instance_wrong_arguments": (program("").replace(_MAIN, _MAIN + "\nV1Switch(P(), VC(), D(), E(), CC(), D()) main2;"),
                                                ("V1Switch argument ingress",)),
    # one destination per direct meter (BMv2's result_target): p4c's back end refuses reads into two
    "direct_meter_reads_into_two_destinations": (program("        t.apply();\n", ingress_decls="""
    direct_meter<bit<8>>(MeterType.packets) dm;
    action r1() { dm.read(hdr.h.a); }
    action r2() { dm.read(hdr.h.b); }
    table t { key = { hdr.h.a: exact; } actions = { r1; r2; } meters = dm; }"""), ("same destination",)),
    "direct_meter_two_reads_in_one_action": (program("        t.apply();\n", ingress_decls="""
    direct_meter<bit<8>>(MeterType.packets) dm;
    action r() { dm.read(hdr.h.a); dm.read(meta.m8); }
    table t { key = { hdr.h.a: exact; } actions = { r; } meters = dm; }"""), ("same destination",)),
    # p4_16_errors/issue532: a user's extern function returning a struct ("functions or methods
    # returning structures are not supported on this target"; it said "unknown function")
    "extern_function_returning_struct": (program("        hdr.h.a = f(hdr.h.b).x;\n", top="struct sx_t { bit<8> x; }\n"
                                                 "extern sx_t f(in bit<8> v);\n"), ("returning structures",)),
    # p4_16_errors/issue2230: with no main, p4c still type-checks every block and names the first
    # error (it said "program has no 'main'")
    "no_main_and_a_type_error": (program("        hdr.h = hdr.eth;\n").replace(_MAIN, ""), ("type mismatch",)),
    # p4c's rules for parsers and deparsers: no push_front/pop_front in a parser (type checker);
    # no ?: in a deparser (made an if statement, "IfStatement: not supported within a deparser")
    "push_front_in_parser": (program("", fields="    h_t[2] s;\n", parser="    state start { pkt.extract(hdr.eth); "
                                     "hdr.s.push_front(1); transition accept; }"), ("cannot be used in a parser",)),
    "conditional_expression_in_deparser": (program("", deparser="        pkt.emit(hdr.h.a == 1 ? hdr.h : hdr.h2);"),
                                           ("not supported within a deparser",)),
    # generics: a value of a type parameter has no members; a generic struct is no type argument of itself
    "generic_function_member_of_type_parameter": (program("        f(hdr.h);\n", top="void f<T>(inout T x) { x.a = 1; }\n"),
                                                  ("Cannot extract field a",)),
    "generic_function_method_of_type_parameter": (program("        f(hdr.h);\n", top="void f<T>(inout T x) { x.setValid(); }\n"),
                                                  ("Cannot extract field setValid",)),
    "generic_struct_of_itself": (program("        G<G<bit<8>>> g; g.x.x = 1; hdr.h.a = g.x.x;\n", top="struct G<T> { T x; }\n"),
                                 ("contains self",)),
    # annotations
    "match_annotation_unknown_kind": (program("", meta="    @match(fuzzy) bit<8> mx;\n"), ("fuzzy: declaration not found",)),
    "match_annotation_without_argument": (program("", meta="    @match bit<8> mx;\n"), ("@match",)),
    "action_defaultonly_and_tableonly": (program("        t.apply();\n", ingress_decls="""
    action a1() { hdr.h.a = 1; }
    action a2() { hdr.h.b = 2; }
    table t { key = { hdr.h.a: exact; } actions = { a1; @defaultonly @tableonly a2; } }"""), ("@tableonly' and '@defaultonly",)),
}
