"""Programs found by helper errs16 (issue #15): errs15's open items and a third sweep of probe
programs of our own (kept in /work/e16, outside the repository), each decided by real p4c 1.2.4.8
and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused, listed differently in the P4Info, or
ran differently.  ``INVALID`` (read by tests/differential/test_invalid.py): name -> (program,
words the message must contain (any of)) -- programs p4c rejects that checkmate-p4c accepted.
Programs p4c compiles and BMv2 refuses to load are tests/p4c/test_load_refused.py.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# push_front/pop_front with a negative count: p4c writes "-0x1" into its JSON; simple_switch 1.15.5
# loads it and dies on the first packet that executes it ("Conversion from negative integer to an
# unsigned type", boost range_error; pop_front(-2) likewise).  checkmate-switch moved nothing and
# forwarded the packet; it now drops it there with a trace line (the run-time death of
# elab_object_calls.bmv2_dies).  P4Info compared only (BMv2 cannot run it).
_DIES = "simple_switch 1.15.5 dies executing a negative push_front/pop_front count (boost range_error)"
CASES.append(case("errs16_push_front_negative", CAT, program("""
        hdr.s[0].setValid(); hdr.s[0].a = hdr.h.a; hdr.s[0].b = 1;
        hdr.s[1].setValid(); hdr.s[1].a = hdr.h.b; hdr.s[1].b = 2;
        hdr.s.push_front(-1);
        hdr.h.c = (hdr.s[0].isValid() ? 8w1 : 8w0) ++ (hdr.s[1].isValid() ? 8w1 : 8w0);
        hdr.h.d = (bit<32>)(hdr.s[2].isValid() ? 8w1 : 8w0);""", fields="    h_t[3] s;\n",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"), p4info_only=_DIES))

# An instance initializer giving an extern's abstract methods (`Ex() e = { bit<8> f(...) { ... } };`):
# p4c type-checks it and compiles the program where its back end never sees the instance (a control
# nobody instantiates, a sub-control nobody applies -- elsewhere "Ex: unknown extern instance");
# checkmate-p4c did not parse it ("expected ';', found '='"; errs15's open item).  Parameter names may
# differ from the abstract method's; the body reads the control's locals.
_ABS = "extern Ex { Ex(); abstract bit<8> f(in bit<8> x); }\n"
_ABS_CTL = "control U(inout bit<8> v) {\n    bit<8> k = 3;\n    Ex() e = { %s };\n    apply { v = v + k; }\n}\n"
# the same generic header named otherwise (G): both compile it
CASES.append(case("errs16_generic_header_named_G", CAT, program("""
        G<bit<8>> x; x.setValid(); x.f = hdr.h.a + 1; hdr.h.b = x.f;
        G2<bit<8>, bit<16>> y; y.setValid(); y.a = hdr.h.a; y.b = hdr.h.c + 2; hdr.h.c = y.b;""",
    top="header G<T> { T f; }\nheader G2<A, B> { A a; B b; }\n")))

CASES.append(case("errs16_abstract_methods_initializer", CAT, program("""
        hdr.h.a = hdr.h.a + 1;""", top=_ABS + _ABS_CTL % "bit<8> f(in bit<8> y) { return y; }" + _ABS_CTL.replace(
    "control U", "control W") % "bit<8> f(in bit<8> x) { return x + k; }", ingress_decls="    U() u;\n")))

INVALID = {
    # update_checksum into a slice of a field: p4c computes into a temporary and assigns the slice, a
    # statement its back end refuses in the compute-checksum control
    "errs16_update_checksum_into_a_slice": (program("", compute="apply { update_checksum(true, { hdr.h.a }, hdr.h.d[15:0], "
                                                                "HashAlgorithm.csum16); }"),
                                            ("only calls to update_checksum",)),
    # a top-level function named like an extern function of v1model.p4 (p4c: "random duplicates random",
    # whatever its parameters; an action of a control may take the name)
    "errs16_function_named_random": (program("        hdr.h.a = random();\n", top="bit<8> random() { return 3; }\n"),
                                     ("random duplicates random",)),
    "errs16_function_named_truncate": (program("        hdr.h.a = 1;\n", top="void truncate(in bit<32> length) { }\n"),
                                       ("truncate duplicates truncate",)),
    # a unary operator on a serializable enum member: p4c's constant folding refuses it ("Se.A: expected
    # an integer value"), also in an unused local; on a variable of the enum it compiles
    "errs16_unary_minus_on_enum_member": (program("        hdr.h.a = (bit<8>)(-Se.A);\n", top="enum bit<8> Se { A = 1 }\n"),
                                          ("expected an integer value",)),
    "errs16_unary_complement_on_enum_member_unused": (program("        bit<8> q = (bit<8>)(~Se.A);\n",
                                                              top="enum bit<8> Se { A = 1 }\n"), ("expected an integer value",)),
    # register<bit<0>> in a control p4c keeps: its back end's "bit<0>: unknown width" (no position)
    "errs16_register_of_bit0": (program("        hdr.h.a = 1;\n", ingress_decls="    register<bit<0>>(4) r;\n"),
                                ("bit<0>: unknown width",)),
    # verify_checksum's checksum argument an untyped literal: p4c cannot infer its type O
    "errs16_verify_checksum_untyped_literal": (program("", verify="apply { verify_checksum(true, { hdr.h.a }, 5, "
                                                           "HashAlgorithm.csum16); }"), ("could not infer a width",)),
    # a generic struct or header named like a type variable of core.p4/v1model.p4 (T, O, D, M, H, I:
    # `header H<T> { T f; }`): p4c 1.2.4.8 dies without a message (exit status 245) on any use of it --
    # a local, a field, one in a function nobody calls; checkmate-p4c compiled them (errs15's open item,
    # "a local of a generic header type": the same header named G compiles on both, see CASES)
    "errs16_generic_header_named_H_local": (program("        H<bit<8>> x; x.setValid(); x.f = 1; hdr.h.b = x.f;\n",
                                                    top="header H<T> { T f; }\n"), ("type variable of core.p4/v1model.p4",)),
    "errs16_generic_header_named_M_field": (program("        hdr.g.setValid(); hdr.g.f = 3;\n", headers="header M<T> { T f; }\n",
                                                    fields="    M<bit<8>> g;\n"), ("type variable of core.p4/v1model.p4",)),
    "errs16_generic_struct_named_T_unused_function": (program(
        "        hdr.h.b = 1;\n", top="struct T<A, B> { A f; B g; }\nbit<8> fn() { T<bit<8>, bit<8>> x = { 1, 2 }; return x.f; }\n"),
        ("type variable of core.p4/v1model.p4",)),
    # the instance initializer's rules (p4c's type checker; each was a parse error "expected ';'")
    "errs16_abstract_method_missing": (program(top=_ABS + _ABS_CTL % ""), ("f abstract method not implemented",)),
    "errs16_abstract_method_extra": (program(top=_ABS + _ABS_CTL % "bit<8> f(in bit<8> x) { return x; } void g() { }"),
                                     ("g: no matching abstract method",)),
    "errs16_abstract_method_wrong_type": (program(top=_ABS + _ABS_CTL % "bit<16> f(in bit<8> x) { return 1; }"),
                                          ("does not have the expected type",)),
    "errs16_abstract_method_wrong_direction": (program(top=_ABS + _ABS_CTL % "bit<8> f(inout bit<8> x) { return 1; }"),
                                               ("does not have the expected type",)),
    "errs16_abstract_method_twice": (program(top=_ABS + _ABS_CTL % "bit<8> f(in bit<8> x) { return x; } "
                                                                   "bit<8> f(in bit<8> x) { return x; }"),
                                     ("Duplicate declaration of f",)),
    "errs16_abstract_method_body_type_error": (program(top=_ABS + _ABS_CTL % "bit<8> f(in bit<8> x) { return x + 16w1; }"),
                                               ("width",)),
    "errs16_abstract_methods_not_given": (program(top=_ABS + _ABS_CTL.replace(" = { %s }", "")),
                                          ("must declare abstract methods for Ex",)),
    "errs16_initializer_without_abstract_methods": (program(top="extern Ey { Ey(); }\n" + _ABS_CTL.replace("Ex()", "Ey()") %
                                                            "bit<8> f(in bit<8> x) { return x; }"),
                                                    ("instance initializers for extern without abstract methods",)),
}
