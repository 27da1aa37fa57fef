"""Constructs left open by the earlier rounds and taken up by helper open7 (issue #15), each
decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A HashAlgorithm parameter of an action, a function or a sub-control (an ``in`` or directionless
parameter, or a control's constructor parameter) given to ``hash()``: p4c inlines the callable,
so the algorithm is the constant of each call (checkmate-p4c picks the member when the hash
runs); a call that passes a value chosen at run time -- or, to an action, any local variable
-- p4c refuses ("Unimplemented compiler support"), and so does checkmate-p4c (``INVALID``).

The right operand of ``false && X`` / ``true || X`` (a constant left side): p4c folds it away
before its type checker runs, so only unknown names and constant-folding errors there refuse
the program (``INVALID`` has those and the operands p4c does not fold)."""
from .base import H, PAYLOAD, VALUES, case, eth, hdr, program
from .fuzz_fuzzh import U_HDR

CAT = "front end (p4c-compatible)"
HASH_FRAMES = VALUES + [(1, H(0x31, 0x42, 0x5354, 0x61626364))]

_FN = ("bit<16> f(in HashAlgorithm al, in bit<8> x) { bit<16> r; hash(r, al, 16w0, { x }, 32w65536); return r; }\n"
       "bit<16> g(in HashAlgorithm al, in bit<8> x) { return f(al, x) + 1; }\n")

CASES = [
    # an action's `in` parameter, its directionless one given by a direct call, one passed on
    # by another action and one copied into a local; two calls of one action with two
    # algorithms; a global constant
    case("open7_hash_algorithm_action_parameter", CAT, program(
        "        a(HashAlgorithm.crc16, hdr.h.c);\n        bit<16> t = 0; a(HashAlgorithm.csum16, t); hdr.h.d[15:0] = t;\n"
        "        b(HashAlgorithm.xor16); hdr.eth.src[15:0] = meta.m16; e(HashAlgorithm.crc16);\n"
        "        if (hdr.h.b == 0x80) { a(K, hdr.eth.dst[15:0]); } else { d(HashAlgorithm.identity); }\n",
        top="const HashAlgorithm K = HashAlgorithm.crc32;\n",
        ingress_decls="    action a(in HashAlgorithm al, inout bit<16> r) { hash(r, al, 16w0, { hdr.h.a, hdr.h.b }, 32w65536); }\n"
                      "    action b(in HashAlgorithm al) { a(al, meta.m16); }\n"
                      "    action d(HashAlgorithm al) { hash(hdr.eth.dst[31:0], al, 32w7, { hdr.h.c }, 32w100000); }\n"
                      "    action e(in HashAlgorithm al) { HashAlgorithm y = al; hash(hdr.h.d[31:16], y, 16w0, { hdr.h.b }, 32w65536); }\n"),
        frames=HASH_FRAMES),
    # a function's parameter, also passed on by another function and by an action; a local
    # whose value p4c's constant propagation knows
    case("open7_hash_algorithm_function_parameter", CAT, program(
        "        hdr.h.c = f(HashAlgorithm.crc16, hdr.h.a); hdr.h.d[15:0] = g(HashAlgorithm.identity, hdr.h.b);\n"
        "        HashAlgorithm x = HashAlgorithm.crc32; hdr.h.d[31:16] = f(x, hdr.h.a ^ hdr.h.b);\n"
        "        a(HashAlgorithm.csum16);\n",
        top=_FN, ingress_decls="    action a(in HashAlgorithm al) { hdr.eth.src[15:0] = f(al, hdr.h.b); }\n"),
        frames=HASH_FRAMES),
    # a sub-control's apply parameter and constructor parameter; an action bound in a table's
    # actions list and default action
    case("open7_hash_algorithm_control_and_table", CAT, program(
        "        s1.apply(hdr.h.c, hdr.h.a, HashAlgorithm.crc16);\n"
        "        HashAlgorithm x = HashAlgorithm.xor16; s1.apply(hdr.eth.src[15:0], hdr.h.b, x);\n"
        "        s2.apply(hdr.h.d[15:0], hdr.h.b, HashAlgorithm.identity); t.apply();\n",
        top="control S(inout bit<16> r, in bit<8> x, in HashAlgorithm al) { apply { hash(r, al, 16w0, { x }, 32w65536); } }\n"
            "control T(inout bit<16> r, in bit<8> x, in HashAlgorithm unused)(HashAlgorithm al) {\n"
            "    apply { hash(r, al, 16w0, { x, x }, 32w65536); } }\n",
        ingress_decls="    S() s1;\n    T(HashAlgorithm.crc32) s2;\n"
                      "    action a(in HashAlgorithm al) { hash(hdr.eth.dst[15:0], al, 16w0, { hdr.h.a }, 32w65536); }\n"
                      "    table t { key = { hdr.h.a: exact; } actions = { a(HashAlgorithm.csum16); NoAction; }\n"
                      "        default_action = a(HashAlgorithm.csum16); }\n"),
        frames=HASH_FRAMES),
]

# `false && X` / `true || X` with a constant left side: p4c folds X away before type checking,
# so an unknown field, header, member, method or error there, a type mismatch, a non-bool, a
# wrong argument count or an index out of bounds is no error (and a table applied there is
# not applied: p4c removes it); X is not evaluated
_DEAD = ("bool f(in bit<8> v) { return v == 1; }\nconst bool K = false;\n")
CASES.append(case("open7_folded_away_operand_not_type_checked", CAT, program(
    "        bool b = false && f(hdr.h.zz);\n"
    "        if (true || f(hdr.zz.a) || hdr.h.a.zz()) { hdr.h.b = 0x11; }\n"
    "        if (!true && (hdr.h.a == 16w1)) { hdr.h.c = 1; }\n"
    "        hdr.h.d[7:0] = (K && f(hdr.h.a, hdr.h.b)) ? 8w1 : 8w2;\n"
    "        if ((1 == 2) && (t.apply().hit || hdr.s[5].isValid() || sm.parser_error == error.Zz)) { hdr.h.a = 0x44; }\n"
    "        bool e = true || 8w1;\n        if (b || !e || (false && HashAlgorithm.zz == HashAlgorithm.crc32)) { hdr.h.a = 0x55; }\n",
    top=_DEAD, fields="    h_t[2] s;\n", ingress_decls="    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }\n")))

# p4c 1.2.4.8 refuses these (test_invalid.py takes them in): name -> (source, words of the message)
INVALID = {
    "hash_algorithm_runtime_action_argument": (program(
        "        HashAlgorithm x = HashAlgorithm.crc16; if (hdr.h.b == 1) { x = HashAlgorithm.crc32; } a(x);\n",
        ingress_decls="    action a(in HashAlgorithm al) { hash(hdr.h.c, al, 16w0, { hdr.h.a }, 32w65536); }\n"),
        ("HashAlgorithm", "run time")),
    # an action takes no local, even one whose value is known (p4c keeps the variable)
    "hash_algorithm_local_action_argument": (program(
        "        HashAlgorithm x = HashAlgorithm.crc32; a(x);\n",
        ingress_decls="    action a(in HashAlgorithm al) { hash(hdr.h.c, al, 16w0, { hdr.h.a }, 32w65536); }\n"),
        ("HashAlgorithm", "run time")),
    "hash_algorithm_runtime_function_argument": (program(
        "        HashAlgorithm x = HashAlgorithm.crc16; if (hdr.h.b == 1) { x = HashAlgorithm.crc32; }\n"
        "        hdr.h.c = f(x, hdr.h.a);\n", top=_FN), ("HashAlgorithm", "run time")),
    "hash_algorithm_runtime_through_action": (program(
        "        HashAlgorithm x = HashAlgorithm.crc16; if (hdr.h.b == 1) { x = HashAlgorithm.crc32; } b(x);\n",
        ingress_decls="    action a(in HashAlgorithm al) { hash(hdr.h.c, al, 16w0, { hdr.h.a }, 32w65536); }\n"
                      "    action b(in HashAlgorithm al) { a(al); }\n"), ("HashAlgorithm", "run time")),
    # in a folded-away operand, p4c still resolves names and folds constants; a left side that
    # is not a constant folds nothing
    "folded_away_operand_unknown_name": (program("        if (false && f(zz)) { hdr.h.a = 1; }\n", top=_DEAD),
                                         ("unknown name",)),
    "folded_away_operand_unknown_function": (program("        if (true || zz(hdr.h.a)) { hdr.h.a = 1; }\n", top=_DEAD),
                                             ("unknown function",)),
    "folded_away_operand_division_by_zero": (program("        if (false && (8w1 / 8w0 == 1)) { hdr.h.a = 1; }\n",
                                                     top=_DEAD), ("division by zero",)),
    "folded_away_operand_negative_shift": (program("        if (false && (hdr.h.a << -1) == 0) { hdr.h.a = 1; }\n",
                                                   top=_DEAD), ("negative",)),
    "constant_right_operand_not_folded": (program("        if (f(hdr.h.zz) && false) { hdr.h.a = 1; }\n", top=_DEAD),
                                          ("no field zz",)),
    "runtime_left_operand_not_folded": (program("        if ((hdr.h.a == 1 && false) && f(hdr.h.zz)) { hdr.h.a = 1; }\n",
                                                top=_DEAD), ("no field zz",)),
    # a control-plane HashAlgorithm (p4c 1.2.4.8: "Compiler Bug ... Null ei")
    "hash_algorithm_table_action_parameter": (program("        t.apply();\n", ingress_decls=(
        "    action a(HashAlgorithm al) { hash(hdr.h.c, al, 16w0, { hdr.h.a }, 32w65536); }\n"
        "    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }\n")), ("HashAlgorithm", "control plane")),
}

# ------------------------------------------------------------------ union dead stores through an inlined control
U_PARSER = """    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x1234: ph; default: accept; } }
    state ph { pkt.extract(hdr.h); transition select(hdr.h.a) { 2: pux; 3: puw; 4: ph2; default: accept; } }
    state ph2 { pkt.extract(hdr.h2); transition select(hdr.h2.a) { 3: puw; default: accept; } }
    state pux { pkt.extract(hdr.u.x); transition accept; }
    state puw { pkt.extract(hdr.u.w); transition accept; }"""
U_FR = [(p, eth(0x1234) + hdr(3, b, 2, 3) + bytes.fromhex("07620a") + PAYLOAD) for p, b in ((1, 1), (2, 2), (3, 3), (4, 4))] + \
       [(p, eth(0x1234) + hdr(4, b, 2, 3) + hdr(3, 9, 8, 7) + bytes.fromhex("07620a") + PAYLOAD) for p, b in ((1, 1), (2, 2), (3, 3), (4, 4))] + \
       [(2, eth(0x1234) + hdr(2, 1, 5, 6) + hdr(9, 8, 7, 6) + PAYLOAD)]
CASES.append(
    # fuzzh seed 27 (O1): `hdr.u.x = hdr.h; s1.apply(hdr, meta);` whose body starts `hh.u.x = ...`: p4c
    # inlines the control (the struct argument in place) and its def-use pass drops the first
    # assignment -- BMv2 keeps u.w valid; a read of u.x in the body first keeps it
    case("open7_union_dead_store_before_inlined_control", CAT, program(
        "        if (hdr.h.b == 1) { hdr.u.x = hdr.h; s1.apply(hdr, meta); }\n"
        "        else if (hdr.h.b == 2) { hdr.u.x = hdr.h; s2.apply(hdr, meta); }\n"
        "        else if (hdr.h.b == 3) { hdr.u.x = hdr.h; s3.apply(hdr); }\n"
        "        hdr.eth.src[2:0] = (bit<1>)hdr.u.x.isValid() ++ (bit<1>)hdr.u.w.isValid() ++ (bit<1>)hdr.u.isValid();\n",
        headers=U_HDR, fields="    u_t u;\n", parser=U_PARSER,
        top="control S1(inout headers_t hh, inout meta_t mm) { apply { hh.u.x = hh.h2; mm.m8 = 1; } }\n"
            "control S2(inout headers_t hh, inout meta_t mm) { apply { mm.m8 = hh.u.x.a; hh.u.x = hh.h2; } }\n"
            "control S3(inout headers_t hh) { apply { hh.eth.etype = 0x1234; hh.u.x = hh.h2; } }\n",
        ingress_decls="    S1() s1;\n    S2() s2;\n    S3() s3;\n",
        deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);\n        pkt.emit(hdr.u);"),
         frames=U_FR, json_path=True))
