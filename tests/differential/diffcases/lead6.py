"""Actions and the functions they call, as p4c's BMv2 back end judges them (issue #15, found by
the lead's random-expression runs, seeds 7055 and 7254): an action that only an unused action
calls is removed with it before p4c's target checks, so a conditional initializer in it is no
error; a function whose body sets a header valid, called unconditionally from an action, is
inlined there as an unconditional setValid (accepted) -- the refused forms (the same call under
a condition or after a conditional return, or a conditional setValid inside the function) are
in test_invalid.py.  And a `++` chain of 30 one-bit values, which p4c's BMv2 JSON nests about
120 expressions deep (shift, mask and or per term; fuzzh seed 83): BMv2 runs it, and so must
checkmate-switch from that JSON (json_path)."""
from .base import VALUES, case, program

_BITS = " ++ ".join(["(bit<1>)hdr.h.isValid()", "(bit<1>)hdr.h2.isValid()", "hdr.h.a[0:0]", "hdr.h.b[7:7]",
                     "(bit<1>)(hdr.h.c == 3)"] * 6)

CAT = "front end (p4c-compatible)"

CASES = [
    case("lead6_action_called_only_by_unused_action", CAT, program(
        "        a2();\n",
        ingress_decls="    action b0() { if (hdr.h.a == 1) { return; } hdr.h2 = {1, 2, 3, 4}; }\n"
                      "    action b1() { b0(); }\n"
                      "    action a2() { hdr.h.b = 0x42; }\n"), frames=VALUES),
    case("lead6_function_set_valid_called_unconditionally", CAT, program(
        "        a0();\n",
        top="void f0(inout h_t p) { p.setValid(); p.a = 0x11; }\n"
            "void f1(out h_t p) { p = {5, 6, 7, 8}; }\n",
        ingress_decls="    action a0() { if (hdr.h.a == 2) { hdr.h.b = 1; } else { hdr.h.b = 3; } f0(hdr.h2); f1(hdr.h); }\n"),
        frames=VALUES),
    case("lead6_concat_chain_nested_deep_in_p4c_json", CAT, program(
        f"        bit<30> v = {_BITS};\n        hdr.h.d = (bit<32>)v;\n"), frames=VALUES, json_path=True),
]
