"""Programs found by helper errs26 (issue #15): a twelfth sweep of probe programs of our own (kept
in /work/errs26, outside the repository: parser states, lookahead/extract/advance forms, header
stacks, deparser statements, field lists and resubmit/recirculate/clone forms, standard_metadata
writes, checksum argument forms, literal forms, apply results, top-level constants, the V1Switch
instantiation), each decided by real p4c 1.2.4.8 and, for what runs, by simple_switch_grpc.

``CASES``: programs p4c accepts that checkmate-p4c refused.  Positions: tests/p4c/test_errs26.py.
"""
from .base import case, program

CAT = "front end (p4c-compatible)"

CASES = []

# A constant initialized by fields of a constant struct and header (checkmate-p4c: "constant K2 is
# not a compile-time constant"; /work/errs26 r_tc_const_hdr_invalid_read)
CASES.append(case("errs26_constant_from_fields_of_constants", CAT, program(
    "        hdr.h.b = K2;\n        hdr.h.c = K3 + (bit<16>)hdr.h.a;\n",
    top="struct s_t { bit<8> p; bit<16> q; }\nconst s_t KS = { 5, 0x1234 };\nconst h_t KH = { 1, 2, 3, 4 };\n"
        "const bit<8> K2 = KH.b + KS.p;\nconst bit<16> K3 = KS.q;\n")))

# A sub-parser given a stack's `.next` as its out argument (/work/errs26 s_sb_sp_stack_next): p4c
# writes remove_header of the "stack_field" [hs, "next"] where the inlined call starts, which
# simple_switch 1.15.5 dies executing (actions.h "Default switch case should not be reachable");
# checkmate-switch extracted into hs[0] and forwarded the packet; it now drops it there
# (elab_calls.apply_subparser; tests/p4c/test_errs26_loads.py).  P4Info compared only.
CASES.append(case("errs26_subparser_out_argument_stack_next", CAT, program(
    "        hdr.h.a = (bit<8>)(bit<1>)hdr.hs[0].isValid();\n        hdr.h.b = (bit<8>)(bit<1>)hdr.hs[1].isValid();\n"
    "        hdr.h.c = hdr.hs[0].a ++ hdr.hs[1].a;\n",
    fields="    h_t[3] hs;\n",
    top="parser SP(packet_in p, out h_t x) { state start { p.extract(x); transition accept; } }\n",
    parser="    SP() sp;\n    state start {\n        pkt.extract(hdr.eth);\n        sp.apply(pkt, hdr.hs.next);\n"
           "        sp.apply(pkt, hdr.hs.next);\n        transition select(hdr.eth.etype) { 0x1234: parse_h; default: accept; }\n    }\n"
           "    state parse_h { pkt.extract(hdr.h); transition accept; }"),
    p4info_only="simple_switch 1.15.5 dies executing remove_header of hs.next (a sub-parser's out argument)"))
