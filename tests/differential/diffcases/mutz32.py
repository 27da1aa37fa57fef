"""Found by helper mutz32 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5: programs p4c
compiles whose behaviour checkmate-switch must match (fuzz_mutants: p4c_mutate's mutants of the
differential cases, run on both switches)."""
from .base import H, H2, PARSE_H2, case, eth, hdr, parse_h_state, program

CAT = "front end (p4c-compatible)"

_MARK = "        if (hdr.h.isValid()) { hdr.h.b = 0x77; }\n        if (hdr.h2.isValid()) { hdr.h2.b = 0x88; }\n"
_FRAMES = [(1, H(1, 2, 3, 4)), (2, H2(5, 6)), (3, eth(0x1235) + hdr(7, 8) + hdr(9, 10)), (1, eth(0x0800) + hdr(1))]


def _start(cases: str) -> str:
    return f"""\
    state start {{
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {{
            {cases}
        }}
    }}"""


CASES = [
    # fuzz_mutants seeds 86, 95, 97 (select_key): p4c's SimplifySelectCases drops every case after a
    # `default` or `_` keyset ("SelectCase: unreachable") -- the first one is taken for every packet
    # on BMv2; checkmate-switch kept them and took BMv2's rule for p4c's JSON (one default transition
    # per state, the last one, tried after the values): it parsed nothing past the Ethernet header, or
    # took a later value's state.  Guards: `(_)` is a one-element list for p4c, no default
    # expression -- nothing is dropped, and BMv2 takes the last default; a mask of 0 likewise.
    case(f"mutz32_select_cases_after_a_default_are_unreachable_{name}", CAT, program(
        _MARK, parser="\n".join((_start(cases), parse_h_state(), PARSE_H2))), frames=_FRAMES)
    for name, cases in [
        ("underscore_then_default", "_: parse_h; default: accept;"),
        ("default_then_a_value", "default: parse_h; 0x1234: parse_h2; 0x1235: accept;"),
        ("underscore_then_values", "_: parse_h2; 0x1234: parse_h; 0x1235: accept; default: reject;"),
        ("guard_parenthesised_underscore", "(_): parse_h; 0x1234: parse_h2; default: accept;"),
        ("guard_mask_of_zero", "0 &&& 0: parse_h; 0x1235: parse_h2; default: accept;"),
    ]
]

# fuzz_mutants seed 19 (dead_store on fuzz26's base): p4c's front-end SimplifyDefUse removes every
# store to a local nothing reads later -- `v = 7 / 3; v = 7;` both -- before LocalCopyPropagation
# takes a single-case switch as always run, so neither ends the case's copy of `v + 1`: BMv2 writes
# it on every packet.  checkmate-p4c took the later store's destination for a read of the earlier
# one, kept it, and ended the copy there.  (A read of v after them keeps the last one: a guard.)
_V = "        bit<8> v = 4;\n        if (hdr.h.c == 0x1111) { v = hdr.h.b; }\n" \
     "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = v + 1; } }\n"
_FR = [(1, H(a, 9, c, 0x22222222)) for a in (5, 6) for c in (0x1111, 0x1112)]
CASES += [
    case(f"mutz32_single_case_switch_copy_past_two_dead_local_stores_{name}", CAT, program(
        _V + stores + "        hdr.h.d = (bit<32>)meta.m8;\n"), frames=_FR)
    for name, stores in [("constants", "        v = 2;\n        v = 7;\n"),
                         ("with_a_division", "        v = 7 / 3;\n        v = 7;\n"),
                         ("guard_the_last_read", "        v = 2;\n        v = 7;\n        hdr.h.b = v;\n")]
]

# fuzz_mutants seed 91 (fold_guard on fuzz26's base): a local whose constant value is known before a
# single-case switch (`bit<8> v = 4;`, the `if` that wrote it folded away by p4c's front end) is
# put into the case by LocalCopyPropagation -- the copy after the switch is the constant 5, which a
# later live store to v does not end (BMv2: 5 on every packet); checkmate-p4c copied `v + 1` and
# ended it at `v = 7`.  Guard: v written in a kept `if` first -- not known.
_K = "        meta.m8 = 3;\n        switch (hdr.h.a) { 5: { meta.m8 = v + 1; } }\n" \
     "        v = 7;\n        hdr.h.b = v;\n        hdr.h.d = (bit<32>)meta.m8;\n"
CASES += [
    case(f"mutz32_single_case_switch_copy_of_a_known_local_{name}", CAT, program(pre + _K), frames=_FR)
    for name, pre in [("declared", "        bit<8> v = 4;\n"),
                      ("assigned", "        bit<8> v;\n        v = 4;\n"),
                      ("past_a_folded_if", "        bit<8> v = 4;\n"
                                           "        if ((true && false) && (hdr.h.c == 0x1111)) { v = hdr.h.b; }\n"),
                      ("guard_written_in_an_if", "        bit<8> v = 4;\n        if (hdr.h.c == 0x1111) { v = 2; }\n")]
]

# fuzz_mutants seed 310 (JSONPATH, any mutant of mutz21's varbit<0> case): p4c writes a header with a
# varbit<0> after fixed fields with a max_length of exactly the fixed bytes (`{bit<8> w; varbit<0>
# v;}`: max_length 1), which simple_switch loads and runs; checkmate-switch's loader refused p4c's
# JSON ("max_length leaves no room for 'v'").  A varbit<0> header alone (no max_length) loaded already.
# (The short frame's `z` is invalid: its field is read only under isValid(), since what BMv2 reads
# from an invalid header -- a reused PHV's stale bytes or zeros -- varies from run to run.)
CASES.append(case("mutz32_varbit_0_after_fixed_fields_on_p4c_json", CAT, program(
    "        hdr.h.d = hdr.z.isValid() ? (bit<32>)hdr.z.w + 32w0x100 : 32w0;\n",
    headers="header z_t { bit<8> w; varbit<0> v; }\n", fields="    z_t z;\n", parser="""\
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.z, 0);
        transition accept;
    }""", deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.z);"),
    frames=[(1, H(1, 2, 3, 4)), (1, H(0xff, 0xfe, 0xfffe, 5)), (1, H(3, 4, payload=b""))], json_path=True))

# fuzz_mutants seed 605 (late_store on fuzz11's base): p4c's def-use, blind to a verify or extract
# ending the parse, drops `meta.m32 = meta.m32 % 5` (overwritten by `meta.m32 = 7`) and then, in its
# next round, `meta.m32 = 5`, which only that store read -- where the parse ends early BMv2 sends
# the field's initial 0; checkmate-switch dropped the first store only and sent 5.
CASES += [
    case(f"mutz32_parser_store_read_only_by_a_dropped_store_dropped_too_{name}", CAT, program(
        "        hdr.h.d = meta.m32;\n        hdr.h.c = meta.m16;\n"
        "        if (sm.parser_error != error.NoError) { hdr.h.b = 0xee; }\n", parser=f"""
    state start {{ pkt.extract(hdr.eth); pkt.extract(hdr.h); meta.m32 = 5; {second} verify(hdr.h.a != 1, error.NoMatch);
                  meta.m16 = 9; pkt.extract(hdr.h2); meta.m32 = 7; meta.m16 = 4; transition accept; }}"""),
        frames=[(1, H(1)), (1, H(2, payload=b"\x01\x02")), (1, H(2))])
    for name, second in [("plus_one", "meta.m32 = meta.m32 + 1;"), ("modulo", "meta.m32 = meta.m32 % 5;"),
                         ("in_a_local", "bit<32> t = meta.m32; meta.m32 = t + 2;")]
]
