"""Programs found by helper errs15 (issue #15): errs14's open items and a second sweep of the P4-16
spec's chapters with probe programs of our own (kept in /work/e15, outside the repository),
each decided by real p4c 1.2.4.8 and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused, listed differently in the P4Info, or
whose p4c JSON the ``switch/bmv2json`` loader refused (``json_path``: p4c's JSON on
checkmate-switch too).  ``INVALID`` (read by tests/differential/test_invalid.py): name ->
(program, words the message must contain (any of)) -- programs p4c rejects that checkmate-p4c
accepted.  Programs p4c compiles and BMv2 refuses to load are tests/p4c/test_load_refused.py.
"""
from .base import case, program, start_state

CAT = "front end (p4c-compatible)"

CASES = []

# f({a, b}) of a generic f<T>: p4c binds T to tuple<bit<8>, bit<16>>; checkmate-p4c refused it
# ("cannot infer type T of f from this argument"; errs14 probe g_tuple_generic_arg), and a
# tuple-typed value in log_msg ("the second argument must be a list expression"; P4Info-only case
# below: simple_switch_grpc died on the frames of each form tried -- a generic function's tuple
# parameter, whose p4c JSON names a header "x" that does not exist, and a tuple local).
CASES.append(case("errs15_generic_function_of_a_list", CAT, program("""
        tuple<bit<8>, bit<16>> t = id({ hdr.h.a, hdr.h.c });
        hdr.h.b = t[0] + 1;
        hdr.h.c = t[1] + 2;""", top="T id<T>(in T x) { return x; }\n")))

CASES.append(case("errs15_log_msg_of_a_tuple_value", CAT, program("""
        tuple<bit<8>, bit<16>> t = { hdr.h.b, hdr.h.c };
        log_msg("{} {}", t);
        logged({ hdr.h.a, hdr.h.c });""", top="void logged<T>(in T x) { log_msg(\"{} {}\", x); }\n"),
    p4info_only="simple_switch_grpc dies on log_msg of a tuple value (p4c compiles it)"))

# A serializable enum member whose value names an earlier member (`B = A + 1`): p4c resolves it and
# compiles the program as long as B is not used (using B is its Compiler Bug: INVALID below);
# checkmate-p4c refused the declaration ("unknown name A"; errs14 probe en_ser_member_refers_other_ok).
CASES.append(case("errs15_enum_member_names_an_earlier_one", CAT, program("""
        hdr.h.a = (bit<8>)En.A;
        if ((En)hdr.h.b == En.C) { hdr.h.c = 16w7; }""", top="enum bit<8> En { A = 3, B = A + 1, C = 2 }\n")))

# const entries of a table with an action profile: p4c's JSON has none (BMv2 loads the table empty;
# P4Info: is_const_table and has_initial_entries); checkmate-switch refused checkmate-p4c's own build
# ("entries of a table with action profile need exactly one of member_id or group_id").  Key 1
# is the first frame's h.a: BMv2 runs nothing for it.
CASES.append(case("errs15_action_profile_const_entries", CAT, program("        t.apply();\n        hdr.h.d = 9;\n",
                                                                     ingress_decls="""
    action a1(bit<8> v) { hdr.h.a = v; }
    action a2() { hdr.h.b = 2; }
    action_profile(4) ap;
    table t {
        key = { hdr.h.a: exact; }
        actions = { a1; a2; }
        implementation = ap;
        const entries = { 1: a2(); 0: a1(5); }
    }
""")))

# @name("") on a table: p4c names it "I." (alias "") and BMv2 loads it; the device config checker
# refused the empty alias of both builds (errs14 probe an_name_empty).
CASES.append(case("errs15_empty_name_annotation", CAT, program("        t.apply();\n", ingress_decls="""
    action a1(bit<8> v) { hdr.h.b = v; }
    @name("") table t {
        key = { hdr.h.a: exact; }
        actions = { a1; NoAction; }
        const entries = { 1: a1(7); 0xff: a1(8); }
    }
"""), json_path=True))

# A varbit<0> field: p4c writes no max_length for its header type (BMv2 loads it); the bmv2json
# loader refused it (errs14 probe vb_width_zero).
CASES.append(case("errs15_varbit_zero_declared", CAT, program("        hdr.h.b = hdr.h.b + 1;\n",
                                                             headers="header vz_t { varbit<0> v; }\n",
                                                             fields="    vz_t vz;\n"), json_path=True))

# A varbit in a digest: p4c compiles it (P4Info: bitstring varbit max_bitwidth; simple_switch loads
# the JSON) and simple_switch_grpc refuses the P4Info ("Error when importing p4info"; checkmate-switch
# now too: tests/p4c/test_load_refused.py); checkmate-p4c refused the program ("digest field f0 of
# type varbit is not supported"), the bmv2json loader gave the digest field no width (errs14 probe
# vb_digest).  P4Info compared only.
_VB_PARSER = start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.vb, (bit<32>)hdr.h.b[1:0] << 3);
        transition accept;
    }"""
CASES.append(case("errs15_varbit_in_a_digest", CAT, program("""
        digest(1, { hdr.vb.v });
        digest(1, { hdr.h.a, hdr.vb.v });""", headers="header vb_t { varbit<32> v; }\n", fields="    vb_t vb;\n",
    parser=_VB_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.vb);"),
    p4info_only="simple_switch_grpc refuses the P4Info: Error when importing p4info (a varbit digest member)"))

# A serializable enum as a control's constructor parameter: p4c takes it (a constant); checkmate-p4c
# refused the type ("type En is not supported").  And an instance of the program's own extern inside
# a sub-control that is never applied: p4c removes the instance before its back end refuses it.
_XT = "extern Ex { Ex(); void m(in bit<8> x); }\n"
CASES.append(case("errs15_serializable_enum_constructor_argument", CAT, program(
    "        c.apply(hdr.h);\n        u.apply(hdr.h);\n",
    top="enum bit<8> En { A = 3, B = 9 }\ncontrol C(inout h_t h)(En k) { apply { h.a = (bit<8>)k; if (k == En.B) { h.c = 1; } } }\n"
        + _XT + "control U(inout h_t h) { Ex() e; apply { e.m(h.a); } }\n",
    ingress_decls="    C(En.B) c;\n    U() unused_u;\n    C(En.A) u;\n")))

# Type inference of a generic function: T from a later argument when an earlier one is an untyped
# integer (`f(1, x)`), and from a generic struct argument (`g<T>(in S<T> s)` given an S<bit<8>>);
# checkmate-p4c refused both ("cannot infer type T of f from this argument", "cannot infer type
# argument T of g").
CASES.append(case("errs15_generic_inference_from_later_argument_and_struct", CAT, program("""
        hdr.h.b = pick(3, hdr.h.a);
        S<bit<16>> s = { x = hdr.h.c };
        hdr.h.c = first(s) + 1;""", top="T pick<T>(in T a, in T b) { return b; }\nstruct S<T> { T x; }\n"
                                  "T first<T>(in S<T> s) { return s.x; }\n")))

# A tuple digest holding a serializable enum value: checkmate-p4c died building the P4Info
# (TypeError: the enum's underlying type read as a `type` name); simple_switch_grpc refuses that
# P4Info ("Error when importing p4info"), checkmate-switch now too.  P4Info compared only.
CASES.append(case("errs15_digest_of_a_serializable_enum", CAT, program("""
        digest(1, { (En)hdr.h.a, hdr.h.b });""", top="enum bit<8> En { A = 1, B = 2 }\n"),
    p4info_only="simple_switch_grpc refuses the P4Info: Error when importing p4info (a serializable enum digest member)"))

# A varbit that is not a header's last field: p4c and BMv2 take it (p4c's JSON: max_length, the varbit
# first); the bmv2json loader refused it ("must be the last field").  p4c's JSON on checkmate-switch.
_VB_MID_PARSER = start_state() + """
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.vm, (bit<32>)hdr.h.b[1:0] << 3);
        transition accept;
    }"""
CASES.append(case("errs15_varbit_not_the_last_field", CAT, program("""
        if (hdr.vm.isValid()) { hdr.vm.g = hdr.vm.g + 1; hdr.h.a = hdr.vm.n; }""",
    headers="header vm_t { bit<8> n; varbit<24> v; bit<8> g; }\n", fields="    vm_t vm;\n", parser=_VB_MID_PARSER,
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.vm);"), json_path=True))

# `?:` is left-associative in p4c 1.2.4.8: `c1 ? c2 : c3 ? x : y` is `(c1 ? c2 : c3) ? x : y` --
# with bool c2, c3 it compiles and picks differently from the right-associative reading
# checkmate-p4c had (which refused this program: "?: branches have types bool and bit<8>").
CASES.append(case("errs15_conditional_operator_is_left_associative", CAT, program("""
        hdr.h.b = (hdr.h.a == 1) ? (hdr.h.b == 2) : (hdr.h.c == 0) ? 8w10 : 8w20;""")))

INVALID = {
    # ... and so `true ? 8w1 : false ? 8w2 : 8w3` is a type error (bit<8> and bool branches)
    "conditional_operator_chain_unparenthesized": (program("        hdr.h.a = hdr.h.b == 1 ? 8w1 : hdr.h.b == 2 ? 8w2 : 8w3;\n"),
                                                   ("?:", "bool")),
    # p4c's P4Runtime serializer: "-3: Negative values not supported yet" for an entry's int<N> action
    # argument (const or not; no position) -- checkmate-p4c checked only key values
    "entry_negative_int_action_argument": (program("        t.apply();\n", ingress_decls="""
    action a2(int<8> v) { hdr.h.b = (bit<8>)v; }
    table t { key = { hdr.h.a: exact; } actions = { a2; } entries = { 1: a2(-3); } }"""), ("Negative values not supported",)),
    "const_entry_int_action_argument_above_max": (program("        t.apply();\n", ingress_decls="""
    action a2(int<8> v) { hdr.h.b = (bit<8>)v; }
    table t { key = { hdr.h.a: exact; } actions = { a2; } const entries = { 1: a2((int<8>)8w0x80); } }"""), ("Negative values not supported",)),
    # a generic body is type-checked before T is bound: an untyped integer does not initialize a T
    "generic_function_int_initializes_type_parameter": (program("        hdr.h.b = f<bit<8>>();\n",
                                                                top="T f<T>() { T x = 0; return x; }\n"),
                                                        ("'int' type can only be unified",)),
    # a program's own extern (not v1model's): p4c type-checks its uses, then its BMv2 back end refuses
    # the declaration -- the instance, a method called, an extern function called -- at the
    # declaration; a value of such a call at the call (checkmate-p4c refused the instance itself:
    # "cannot instantiate Ex here", or named the call)
    "own_extern_instance": (program("        hdr.h.a = 1;\n", top=_XT, ingress_decls="    Ex() e;\n"), ("unknown extern instance",)),
    "own_extern_instance_at_top_level": (program("        hdr.h.a = 1;\n", top=_XT + "Ex() e;\n"), ("unknown extern instance",)),
    "own_extern_method_called": (program("        e.m(hdr.h.a);\n", top=_XT, ingress_decls="    Ex() e;\n"),
                                 ("Unknown extern method m from type Ex",)),
    "own_extern_generic_method_argument_type": (program("        e.m(hdr.h.c);\n", top="extern Ex<T> { Ex(); void m(in T x); }\n",
                                                        ingress_decls="    Ex<bit<8>>() e;\n"), ("type mismatch", "bit<16>")),
    "own_extern_method_value": (program("        hdr.h.b = e.g();\n", top="extern Ex { Ex(); bit<8> g(); }\n",
                                        ingress_decls="    Ex() e;\n"), ("could not convert expression to Json",)),
    "own_extern_method_in_parser": (program("", top=_XT, parser="    Ex() e;\n" + start_state() + "\n    state parse_h { "
                                            "pkt.extract(hdr.h); e.m(1); transition accept; }"), ("not supported in parser",)),
    "own_extern_function_in_used_action": (program("        a();\n", top="extern void f(in bit<8> x);\n",
                                                   ingress_decls="    action a() { f(1); }\n"), ("f: unknown extern function",)),
    "own_extern_function_value": (program("        hdr.h.b = f(hdr.h.a);\n", top="extern bit<8> f(in bit<8> x);\n"),
                                  ("f: not supported",)),
    # p4c names the direct counter's declaration
    "direct_counter_on_two_tables": (program("        t.apply();\n        t2.apply();\n", ingress_decls="""
    direct_counter(CounterType.packets) dc;
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } counters = dc; }
    table t2 { key = { hdr.h.b: exact; } actions = { NoAction; } counters = dc; }"""), ("cannot be attached to multiple tables",)),
    # using the member whose value names another: p4c 1.2.4.8 "Compiler Bug: Could not find type of
    # <SerEnumMember> B" at the member's declaration
    "enum_member_naming_another_used": (program("        hdr.h.a = (bit<8>)En.B;\n",
                                                top="enum bit<8> En { A = 1, B = A + 1 }\n"), ("Could not find type",)),
}
