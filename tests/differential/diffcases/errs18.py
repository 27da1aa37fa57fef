"""Programs found by helper errs18 (issue #15): errs17's open items and a fifth sweep of probe
programs of our own (kept in /work/e18, outside the repository), each decided by real p4c 1.2.4.8
and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused or ran differently.  ``INVALID`` (read by
tests/differential/test_invalid.py): name -> (program, words the message must contain (any of)) --
programs p4c rejects that checkmate-p4c accepted.  ``log_msg`` calls simple_switch dies executing
(its own count of ``{}``, switch/log_format.py) are tests/p4c/test_load_refused.py's ``DIES``.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# log_msg of a tuple value with a format of as many placeholders as values runs on BMv2: errs15/16
# took the death of `log_msg("{} {}", t)` for the tuple's, and the build dropped every packet that
# logged one -- BMv2 reads one placeholder in "{} {}" (/work/e18 t3 tup_good, tup_generic_good)
CASES.append(case("errs18_log_msg_of_a_tuple_value_runs", CAT, program("""
        tuple<bit<8>, bit<16>> t = { hdr.h.a, hdr.h.c };
        log_msg("a={} c={}", t);
        logged({ hdr.h.b, hdr.h.d });
        hdr.h.b = hdr.h.b + 1;""", top='void logged<T>(in T x) { log_msg("b={} d={}", x); }\n'), json_path=True))

# Formats simple_switch runs: its placeholders are the "{}" it finds from the second character on,
# after one from the third character past it; a header or struct in the list is p4c's "(a:{},...)"
# (/work/e18 t1, t2, t3, t5).  The trace line of both builds is BMv2's (tests/p4c/test_load_refused.py).
CASES.append(case("errs18_log_msg_formats_simple_switch_runs", CAT, program("""
        log_msg("x{}", { hdr.h.a });
        log_msg("x{} {}", { hdr.h.a, hdr.h.c });
        log_msg("{}{}", { hdr.h.a });
        log_msg("x{}{}", { hdr.h.b });
        log_msg("{{}}", { hdr.h.a });
        log_msg("{} x{}", { hdr.h.d });
        log_msg("plain", { hdr.h });
        log_msg("h={}", { hdr.h2 });
        log_msg("a={} b={} c={} d={}", hdr.h);
        u_t u; u.x = hdr.h; log_msg("u={} {}", { u.x.a, u.x.c });
        s_t s = { hdr.h.a, hdr.h.b }; log_msg("s={}", { s });
        log_msg("x={} y={}", s);
        hdr.h.b = hdr.h.b + 2;""", top="struct s_t { bit<8> x; bit<8> y; }\n",
    headers="header_union u_t { h_t x; ethernet_t y; }\n"), json_path=True))

# `@name("")` on an action the apply block calls: p4c names it "I." (BMv2 loads it); the device
# config checker refused the build ("'I.' is not a (dotted) identifier"; errs15 fixed a table's;
# /work/e18 pd d_ann_name_empty)
CASES.append(case("errs18_empty_name_on_a_called_action", CAT, program("        a();\n        t.apply();\n",
                                                                       ingress_decls="""
    @name("") action a() { hdr.h.a = 1; }
    action b(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.c: exact; } actions = { b; } const entries = { 3: b(9); } }
"""), json_path=True))

# `pkt.extract(hdr.s[e])` with `e` computed (a slice, a cast): p4c 1.2.4.8 extracts into a temporary
# copy of the element (`tmp = s[e]; extract(tmp)`, no copy back), so simple_switch consumes the bytes
# and the stack stays as it was; checkmate-p4c extracted into the element, which the deparser then
# emitted (/work/e18 pc c_parser_stack_index_var, t7).  A field index is a JSON BMv2 cannot load.
CASES.append(case("errs18_extract_into_a_stack_element_at_a_computed_index", CAT, program("""
        hdr.h.c = hdr.s[0].isValid() ? 16w1 : 16w0;
        hdr.h.d = (bit<32>)meta.m8;""", fields="    h_t[3] s;\n",
    parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x1234: parse_h; default: accept; }
    }
    state parse_h {
        pkt.extract(hdr.h);
        meta.m8 = hdr.h.b & 1;
        pkt.extract(hdr.s[hdr.h.b[0:0]]);
        pkt.extract(hdr.s[(bit<2>)meta.m8[1:1]]);
        transition accept;
    }""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.s);"), json_path=True))

_SEL = """    action_selector(HashAlgorithm.crc16, 32w4, 32w16) sel;
    action s(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { s; } implementation = sel; const entries = { %s } }
"""

INVALID = {
    # p4c refuses what its BMv2 back end cannot log: a union given bare, a varbit field; and its
    # FlattenLogMsg gives no type to a scalar next to a header in the list, or to a nested list
    "errs18_log_msg_union_given_bare": (program("""
        u_t u; u.x = hdr.h; log_msg("x{} {} {} {} {} {} {}", u);""", headers="header_union u_t { h_t x; ethernet_t y; }\n"),
                                        ("only integral values",)),
    "errs18_log_msg_header_and_scalar_in_the_list": (program('        log_msg("h={} a={}", { hdr.h, hdr.h.a });\n'),
                                                     ("Unknown type",)),
    "errs18_log_msg_nested_list": (program('        log_msg("x={} y={}", { { hdr.h.a, hdr.h.b }, hdr.h.c });\n'),
                                   ("Unknown type",)),
    "errs18_log_msg_nested_struct_given_bare": (program("""
        n_t n = { { hdr.h.a, hdr.h.b }, 1 }; log_msg("a={} b={} c={}", n);""",
                                                         top="struct s_t { bit<8> x; bit<8> y; }\nstruct n_t { s_t s; bit<8> z; }\n"),
                                                 ("only integral values",)),
    "errs18_log_msg_varbit": (program('        log_msg("v={}", { hdr.v.v });\n', headers="header vb_t { varbit<16> v; }\n",
                                      fields="    vb_t v;\n"), ("only integral values",)),
    # an action declared in a parser is p4c's syntax error ("unexpected ACTION"), which comes before
    # the type errors of the rest: checkmate-p4c reported verify() in the function above first
    # (/work/e18 pc c_verify_in_function)
    "errs18_action_declared_in_a_parser": (program("        hdr.h.b = 1;\n", top="void chk(in bit<8> x) { verify(x != 9, error.NoMatch); }\n",
                                                   parser="    action nop() { }\n    state start { transition accept; }"),
                                           ("no actions or tables in a parser",)),
    # const entries of a table with an action selector: p4c counts the selector key in the keyset
    # and its P4Runtime serializer refuses the entry (/work/e18 pd d_ap_selector_const_entries, t6 sel2)
    "errs18_const_entry_without_the_selector_key": (program("        t.apply();\n", ingress_decls=_SEL % "1: s(1);"),
                                                    ("Size of entry keyset",)),
    "errs18_const_entry_of_a_selector_table": (program("        t.apply();\n", ingress_decls=_SEL % "(1, 2): s(1);"),
                                               ("selector: match type not supported",)),
}
