"""Constructs seen in public v1model programs not measured before (helper corpus23, issue #15:
netx-ulx/dataplaneChangeDetection's sketches, jonadmark/intsight-bmv2, ...), each written here
as a small program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

Found: a function's directionless ``int`` parameter (``void UpdateRow(int num, inout metadata
meta)`` reading ``extra_op_counter.read(meta.counter, num)``) was refused wherever the body used
it as a ``bit<W>`` value ("cannot convert an untyped integer expression to bit<32>": a register
index, an assignment, an operand of ``+``/``|+|``).  p4c inlines the function, so each call's
constant stands for the parameter (elab_calls.bind_int_params elaborates one function per set of
values).  (The same program's ``UpdateRow(0, meta)`` also makes p4c write a JSON simple_switch
cannot load: tests/p4c/test_load_refused3.py.)

nds-group/DUNE-bmv2 (in-network ML inference): a struct field declared of a `type`, cast to its
underlying type and then widened (``(bit<32>) ((bit<16>)hashes.reg_idx)``), was refused as a cast
of the `type` itself (elab_casts.cast_expr); and an untyped literal in a list or struct initializer
for a field of a `type` (``VotingClasses_t voting_classes = {0,0,0};``) was accepted where p4c
types it as the underlying bit<8> and refuses it ("Cannot cast implicitly type 'bit<8>' to type
'Class_t'"; elab_values.make_value) -- in an initializer and in an assignment alike (``INVALID``)."""
from .base import H, case, eth, PAYLOAD, program

CASES = []

_SLOTS = """register<bit<16>>(8) r;
void bump(int slot, inout bit<16> v) {
    r.read(v, slot);
    v = v + slot;
    r.write(slot, v |+| slot);
}
bit<8> scaled(int k, in bit<8> x) { return x * k + (bit<8>)k; }
"""

# a directionless int parameter used as a register index and an operand; two calls
# with other constants (one elaborated body each), a function result computed with it
CASES.append(case("corpus23_function_int_parameter_as_bits", "front end (p4c-compatible)", program(
    "        bit<16> x = hdr.h.c;\n        bump(1, x);\n        hdr.h.c = x;\n        bit<16> y = 0;\n"
    "        bump(3, y);\n        hdr.h.d = (bit<32>)y;\n        hdr.h.b = scaled(5, hdr.h.a);\n",
    top=_SLOTS), frames=[(1, H(1, 2, 3, 4)), (1, H(2, 0, 0x10)), (1, H(3)), (1, H(4, 4, 0xffff)),
                         (1, eth(0x0800) + PAYLOAD)]))

# a struct field declared of a `type`, read through a cast to its underlying type and widened
# (nds-group/DUNE-bmv2: `hashes.reg_idx32 = (bit<32>) ((bit<16>)hashes.reg_idx);`), refused before
# as a cast of the `type` itself ("cast to bit<16> first"); the inner cast is that
CASES.append(case("corpus23_type_field_cast_to_underlying_then_widened", "front end (p4c-compatible)", program(
    "        st.i = (Idx_t)hdr.h.c;\n        st.w = (bit<32>) ((bit<16>)st.i);\n        hdr.h.d = st.w + 1;\n"
    "        hdr.h.b = (bit<8>) ((bit<16>)st.i);\n",
    top="type bit<16> Idx_t;\nstruct idx_s { Idx_t i; bit<32> w; }\n", ingress_decls="    idx_s st;\n")))

_VOTES = "type bit<8> Cls_t;\nstruct votes_t { Cls_t c0; Cls_t c1; }\n"

# name -> (program, words the message must contain (any of)); tests/differential/test_invalid.py
INVALID: dict[str, tuple[str, list[str]]] = {
    # a variable's initializer or an assignment gives an untyped literal for a field of a `type`:
    # p4c types it bit<8> and converts no bit<8> to the `type` implicitly (DUNE-bmv2's
    # `VotingClasses_t voting_classes = {0,0,0};`); casts in the list and a field assignment
    # `v.c0 = 0;` compile (corpus23_type_fields_initialized_as_p4c_takes)
    "corpus23_type_field_literal_in_control_local_list_initializer": (
        program("        hdr.h.b = (bit<8>)v.c0;\n", top=_VOTES, ingress_decls="    votes_t v = {0, 0};\n"),
        ["Cannot cast implicitly"]),
    "corpus23_type_field_literal_in_local_struct_initializer": (
        program("        votes_t v = {c0 = (Cls_t)1, c1 = 2};\n        hdr.h.b = (bit<8>)v.c1;\n", top=_VOTES),
        ["Cannot cast implicitly"]),
    "corpus23_type_field_literal_in_list_assignment": (
        program("        votes_t v;\n        v = {(Cls_t)1, 2};\n        hdr.h.b = (bit<8>)v.c1;\n", top=_VOTES),
        ["Cannot cast implicitly"]),
}

CASES.append(case("corpus23_type_fields_initialized_as_p4c_takes", "front end (p4c-compatible)", program(
    "        votes_t w = {(Cls_t)1, (Cls_t)2};\n        hdr.h.b = (bit<8>)v.c1 + (bit<8>)w.c0;\n"
    "        v = {(Cls_t)hdr.h.a, (Cls_t)4};\n        v.c1 = 9;\n        hdr.h.a = (bit<8>)v.c0 + (bit<8>)w.c1 + (bit<8>)v.c1;\n",
    top=_VOTES, ingress_decls="    votes_t v = {(Cls_t)5, (Cls_t)7};\n")))
