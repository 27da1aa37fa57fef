"""Constructs p4c 1.2.4.8 accepts that checkmate-p4c refused, left open by the earlier fuzz
rounds and taken up by helper open6 (issue #15): a compile-time bool cast to a bit or int
type of any width (p4c folds it to 1 or 0; a run-time bool still casts to bit<1> only); two
list expressions compared, an untyped literal taking the type of the element it meets; a plain
(not serializable) enum as a control-plane action parameter (32 bits in p4c's JSON: the
member's position; a P4Info type_name without width), given by a default action or a call;
a HashAlgorithm constant (global or local), or a local whose value is known at the call, as
hash()'s algorithm; digest() called in the
deparser (p4c lists the digest; its JSON drops the call, so BMv2 sends nothing for it); a
digest struct with a header or a nested struct member (p4c accepts it and describes the member
in type_info; simple_switch_grpc refuses that P4Info, so the P4Info is compared only); a run-time
bit<N> value cast to ``int`` (p4c's BMv2 back end gives int a width of 0: the value reads 0); a
leading comma in a select's expression list or a list expression (p4c's grammar takes it:
``select(, x)`` is ``select(x)``; found by tools/p4c_mutate.py, seed 6); a function missing a
``return`` called only where p4c folds the call away (``true || f(x)``; seed 7); an ``error``
value in a hash's data (its 32-bit code, as in p4c's JSON; seed 8)."""
from .base import VALUES, case, eth, program

CAT = "front end (p4c-compatible)"
DIGEST_MEMBER = ("simple_switch_grpc refuses p4c's P4Info of a digest struct with a header or struct member "
                 "('Error when importing p4info'; checkmate-switch too)")

CASES = [
    # (int<8>)true, (bit<8>)K with K a bool constant, !K, false - 1 in int<8>, a folded && :
    # each is a constant of the cast's type
    case("open6_constant_bool_cast_any_width", CAT, program(
        "        hdr.h.a = (bit<8>)K + (bit<8>)(!K) + (bit<8>)((int<8>)true);\n"
        "        hdr.h.b = (bit<8>)((int<8>)false - 1);\n"
        "        hdr.h.c = (bit<16>)(true && K) + (bit<16>)(bit<1>)(int<1>)true;\n",
        top="const bool K = true;\n"), frames=VALUES),
    # { x, 1 } == { 8w1, 8w2 }: 1 becomes a bit<8>; nested lists; an untyped pair (folded)
    case("open6_list_expressions_compared", CAT, program(
        "        if ({ hdr.h.a, 1 } == { 8w1, 8w2 }) { hdr.h.b = 0x11; }\n"
        "        if ({ hdr.h.a, 2 } == { 8w1, 8w2 }) { hdr.h.b = hdr.h.b | 0x22; }\n"
        "        if ({ hdr.h.a, { 3, hdr.h.c } } != { 8w0xff, { 8w3, 0xffff } }) { hdr.h.c = 0x3333; }\n"
        "        if ({ 7, hdr.h.b } == { hdr.h.d[7:0], 8w0x22 }) { hdr.h.d = 0x44; }\n"
        "        if ({ hdr.h.a, 1 } == { 8w0, 2 }) { hdr.h.a = 0x55; }\n"),
        frames=VALUES),
    case("open6_plain_enum_action_parameter", CAT, program(
        "        t.apply();\n        a1(En.A, 8w0x40);\n",
        top="enum En { A, B, C }\n",
        ingress_decls="    action a1(En v, bit<8> w) { if (v == En.C) { hdr.h.b = w; } else if (v == En.A) { hdr.h.c = 16w0x77 + (bit<16>)w; } }\n"
                      "    table t { key = { hdr.h.a: exact; } actions = { a1; NoAction; } default_action = a1(En.C, 8w0x21); }\n"),
        frames=VALUES, json_path=True),
    case("open6_hash_algorithm_constant", CAT, program(
        "        const HashAlgorithm LA = HashAlgorithm.identity;\n"
        "        bit<16> r; hash(r, AL, 16w0, { hdr.h.a, hdr.h.b }, 16w1024); hdr.h.c = r;\n"
        "        bit<32> q; hash(q, LA, 32w5, { hdr.h.b }, 32w64); hdr.h.d = q;\n",
        top="const HashAlgorithm AL = HashAlgorithm.crc32;\n"), frames=VALUES),
    # a HashAlgorithm variable whose value p4c's constant propagation knows at each call
    case("open6_hash_algorithm_variable", CAT, program(
        "        HashAlgorithm al = HashAlgorithm.crc16;\n"
        "        bit<16> r; hash(r, al, 16w0, { hdr.h.a, hdr.h.b }, 16w1024); hdr.h.c = r;\n"
        "        al = HashAlgorithm.csum16;\n"
        "        bit<32> q; hash(q, al, 32w0, { hdr.h.c, hdr.h.b }, 32w65536); hdr.h.d = q;\n")),
    case("open6_digest_in_deparser", "digests", program(
        "        if (hdr.h.a == 1) { digest<dg_t>(1, { hdr.h.c }); }\n",
        top="struct dg_t { bit<16> c; }\nstruct dg2_t { bit<8> a; }\n",
        deparser="        digest<dg2_t>(1, { hdr.h.a });\n        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);"),
        frames=VALUES),
    case("open6_digest_header_member", "digests", program(
        "        dg_t d; d.x = hdr.h.a; d.hh = hdr.h;\n        digest<dg_t>(1, d);\n        digest<dg3_t>(1, { hdr.h.b, hdr.h2 });\n",
        top="struct dg_t { bit<8> x; h_t hh; }\nstruct dg3_t { bit<8> y; h_t h2; }\n"), p4info_only=DIGEST_MEMBER),
    case("open6_digest_nested_struct_member", "digests", program(
        "        dg_t d; d.x = hdr.h.a; d.n.p = hdr.h.b; d.n.q = hdr.h.c;\n        digest<dg_t>(1, d);\n",
        top="struct in_t { bit<8> p; bit<16> q; }\nstruct dg_t { bit<8> x; in_t n; }\n"), p4info_only=DIGEST_MEMBER),
    # (int)x of a run-time x: 0 on BMv2 (p4c masks it with 0), in arithmetic, a comparison,
    # a narrowing cast and as a varbit extract's length (the mutation of issue561-bmv2)
    case("open6_runtime_value_cast_to_int", CAT, program(
        "        hdr.h.c = hdr.h.c + (int)hdr.h.a;\n"
        "        hdr.h.d = (bit<32>)(8 * (int)hdr.h.b - 16);\n"
        "        if ((int)hdr.h.a > 3) { hdr.h.a = 0x33; }\n"
        "        hdr.h.b = (bit<8>)((int)(int<8>)hdr.h.b + 2);\n",
        headers="header vh_t { bit<8> n; varbit<64> v; }\n", fields="    vh_t vh;\n",
        parser="""    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            0xff: parse_v;
            default: accept;
        }
    }
    state parse_v {
        pkt.extract(hdr.vh, (bit<32>)(8 * (int)hdr.h.b + 8));
        transition accept;
    }""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.vh);"),
        frames=VALUES),
    case("open6_leading_comma_in_expression_lists", CAT, program(
        "        pair_t p = { , hdr.h.a, hdr.h.b };\n        hdr.h.c = p.y ++ p.x;\n"
        "        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, { , hdr.h.a }, 16w1024); hdr.h.d = (bit<32>)r;\n",
        top="struct pair_t { bit<8> x; bit<8> y; }\n",
        parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(, hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }"""), frames=VALUES),
    case("open6_function_without_return_folded_away", CAT, program(
        "        bool b = true || f(hdr.h.a);\n        bool c = false && f(hdr.h.b);\n"
        "        if (b && !c) { hdr.h.c = 0x5151; }\n",
        top="bool f(inout bit<8> v) {\n    v = 0x99;\n}\n"), frames=VALUES),
    case("open6_error_in_hash_data", CAT, program(
        "        bit<16> r; hash(r, HashAlgorithm.crc16, 16w0, { sm.parser_error, error.StackOutOfBounds, hdr.eth.etype }, 32w65536);\n"
        "        hdr.eth.dst[15:0] = r;\n"), frames=VALUES + [(1, eth(0x1234) + bytes([1, 2]))]),
]
