"""Found by helper fuzz71 (issue #15), each decided by real p4c 1.2.4.8 / BMv2 1.15.5.

fuzz66's open item: an action called with a header-union member as its ``inout`` (or ``in``)
argument, whose parameter the body reads only into stores that are dead themselves (a field
overwritten later in the body or after the call, metadata the next action overwrites, a local
unused or overwritten, a store under an ``if`` overwritten after it), or overwrites whole, or (``in``)
does not read at all.  p4c's repeated SimplifyDefUse drops those stores, then the copy-in
``y = hdr.u.x`` (and the copy-out it alone fed), then the caller's store ``hdr.u.x = hdr.h`` that
``a1``'s ``out`` copy-back overwrites: BMv2 keeps the parsed sibling ``u.w`` valid.  checkmate-p4c
took the call as a read of the member (``union_defuse._copied_in`` now lays the call out as p4c's
RemoveActionParameters does).  Guards: a chain to a live read, the field read between the calls,
a read in a condition, an ``in`` parameter read into an emitted field.
"""
from .base import case, program
from .fuzz18 import _U
from .fuzz31 import _F, _V

CAT = "front end (p4c-compatible)"

CASES = []

_A = "    action a0(inout h_t y) { %s }\n    action a1(out h_t y) { meta.m8 = 1; }\n"
_CALL = "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x);"
for _name, _a0, _body in [
        ("read_into_a_field_overwritten_after_the_call", "hdr.h.c = (bit<16>)y.a;", _CALL),
        ("read_into_a_field_overwritten_in_the_body", "hdr.h.d = (bit<32>)y.a; hdr.h.d = 7;", _CALL),
        ("read_into_metadata_overwritten_by_the_next_action", "meta.m8 = y.a;",
         "hdr.u.x = hdr.h; a0(hdr.u.x); a1(hdr.u.x); hdr.h.b = meta.m8;"),
        ("read_into_an_unused_local", "bit<8> t = y.a;", _CALL),
        ("read_into_a_local_overwritten", "bit<8> t = y.a; t = 3; hdr.h.b = t;", _CALL),
        ("read_in_a_dead_store_under_an_if", "if (hdr.h.b == 1) { hdr.h.d = (bit<32>)y.c; } hdr.h.d = 9;", _CALL),
        ("body_overwriting_the_parameter_whole", "y = hdr.h2;", "hdr.u.x = hdr.h; a0(hdr.u.x);"),
        # (guards: the dead read feeds a live one; the field read after the call before the overwrite)
        ("kept_by_a_chain_to_a_live_read", "meta.m16 = y.c; hdr.h.d = (bit<32>)meta.m16;", _CALL),
        ("kept_by_a_read_after_the_call", "hdr.h.d = (bit<32>)y.a;",
         "hdr.u.x = hdr.h; a0(hdr.u.x); hdr.h.b = hdr.h.d[7:0]; a1(hdr.u.x); hdr.h.d = 1;"),
        ("kept_by_a_read_in_a_condition", "hdr.h.d = (bit<32>)y.a; if (hdr.h.d == 3) { hdr.h.b = 5; } hdr.h.d = 7;", _CALL)]:
    CASES.append(case(f"fuzz71_union_store_across_an_inout_action_call_{_name}", CAT, program(
        "        " + _body + "\n" + _V, **dict(_U, ingress_decls=_A % _a0)), frames=_F))

# The same with an ``in`` parameter (its copy-in alone): unread, or read only into dead stores.
_I = "    action a2(in h_t y) { %s }\n    action a1(out h_t y) { meta.m8 = 1; }\n"
_CALL_IN = "hdr.u.x = hdr.h; a2(hdr.u.x); a1(hdr.u.x);"
for _name, _a2 in [
        ("unread", ""),
        ("read_into_a_field_overwritten_after_the_call", "hdr.h.c = (bit<16>)y.a;"),
        ("kept_by_a_live_read", "hdr.h.d = (bit<32>)y.a;")]:
    CASES.append(case(f"fuzz71_union_store_across_an_in_action_call_{_name}", CAT, program(
        "        " + _CALL_IN + "\n" + _V, **dict(_U, ingress_decls=_I % _a2)), frames=_F))

# A function called as a statement with the member as its ``inout`` argument whose body only writes
# the parameter, or as its ``in`` argument (a call for its effect: the copy-in is all it reads): p4c
# inlines it as an action (copy-in, body, copy-out) and drops the store the same way (checkmate-p4c's
# ``inlined_control`` looked at a function's ``out`` arguments only, and not into a call statement
# whose arguments are all ``in``).  Guard: the ``in`` parameter's value returned into an emitted
# field.  (A function with an ``in`` and an ``out`` argument, ``k(hdr.u.x, meta.m8)`` returning
# ``y.a`` into the ``out`` one that ``a1`` overwrites, differs still: open.)
_G = "void g(inout h_t y) { y.a = 5; }\nvoid f(in h_t y) { }\nbit<8> k2(in h_t y) { return y.a; }\n"
for _name, _body in [("inout_function_call_only_writing_it", "g(hdr.u.x);"),
                     ("in_function_call_statement", "f(hdr.u.x);"),
                     ("in_function_call_kept_by_its_value_read", "hdr.h.b = k2(hdr.u.x);")]:
    CASES.append(case(f"fuzz71_union_store_across_an_{_name}", CAT, program(
        "        hdr.u.x = hdr.h; " + _body + " a1(hdr.u.x);\n" + _V,
        **dict(_U, top=_G, ingress_decls="    action a1(out h_t y) { meta.m8 = 1; }\n")), frames=_F))
