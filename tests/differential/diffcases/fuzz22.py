"""Disagreements found by helper fuzz22 (issue #15), each decided by real p4c 1.2.4.8 /
BMv2 1.15.5 and kept as a case.
"""
from .base import H, H2, case, program

CAT = "front end (p4c-compatible)"

CASES = []

_T = """
    action a0() { hdr.h.b = 0x11; }
    action a1() { hdr.h.c = 0x22; }
    action a2() { hdr.h.d = 0x33; }
    table t2 { actions = { a0; NoAction; } default_action = a0(); }
    table t3 { actions = { a1; NoAction; } default_action = a1(); }
    table t4 { actions = { a2; NoAction; } default_action = a2(); }
"""

# p4c's RemoveReturns runs on a control whose body holds a `return` (anywhere), and then takes an
# `exit` as one: what follows an exit in its block, or an `if` whose branches both exit/return, is
# dropped before the P4Info is written (fuzz_exprs seed 5563: `if (!(4w0 != 0)) { exit; }` then a
# conditional return: p4c listed no table after them).  A control without a return keeps them
# (`exit; t.apply();` lists t).  And the P4Info is written before p4c's mid end, whose
# LocalCopyPropagation takes a single-case switch as always run (fuzz21): the table after
# `switch (x) { 5: { return; } }` is listed although BMv2 never applies it.  checkmate-p4c listed
# t3 and t4 and left t2 out.
CASES.append(case("fuzz22_exit_taken_as_return_in_a_control_with_return", CAT, program("""
        if (hdr.h.a == 1) { hdr.h.d = 1; exit; t3.apply(); }
        if (hdr.h.a == 2) { hdr.h.d = 2; if (hdr.h.b == 0) { exit; } else { return; } t4.apply(); }
        switch (hdr.h.b) { 5: { return; } }
        t2.apply();
""", ingress_decls=_T), frames=[(1, H(a, b)) for a in (1, 2, 3) for b in (0, 5, 6)]))


# The same in an action holding a return: an unconditional exit ends it for p4c's BMv2 checks,
# so a conditional setValid after it is no target error (without the return it is one:
# fuzz21_function_setvalid_under_if_after_exit_in_action).  checkmate-p4c refused it.
CASES.append(case("fuzz22_exit_taken_as_return_in_an_action_with_return", CAT, program("""
        ra();
""", ingress_decls="""
    action ra() { hdr.h.b = 3; exit; if (hdr.h.a == 1) { hdr.h2.setValid(); } return; }
"""), frames=[(1, H(a)) for a in (1, 2)]))


# How far p4c 1.2.4.8 drops what follows a single-case switch whose case returns (fuzz21 found the
# drop: `fuzz21_single_case_switch_taken_as_always_run`).  RemoveReturns puts what follows the first
# statement that may return into `if (!flag) {..}`, up to and including the next one that may
# return, then the rest into a second `if (!flag)`, and so on; LocalCopyPropagation gives the flag
# the case's `true` after the switch, and the joins keep it until a branch sets the flag (a
# `return`; an `exit` sets none).  So only when the switch is the first statement of its block that
# may return does BMv2 skip the statements after it -- up to and including the next that holds a
# `return`; the ones after that run (c == 1..3).  An `if` around such a switch is a join that sets
# the flag: what follows the `if` runs (c == 4); a switch behind an earlier statement that may
# return drops nothing (c == 5), nor one whose case exits (c == 6).  checkmate dropped the rest of
# the block in each (and after an `if` whose other branch returns).
CASES.append(case("fuzz22_single_case_switch_drop_ends_at_next_return", CAT, program("""
        if (hdr.h.c == 1) {
            switch (hdr.h.b) { 5: { return; } }
            hdr.h.a = 7;
            if (hdr.h.d == 1) { return; }
            hdr.h.d = 8;
        } else if (hdr.h.c == 2) {
            switch (hdr.h.b) { 5: { return; } }
            hdr.h.a = 7;
            switch (hdr.h.b) { 6: { return; } }
            hdr.h.d = 8;
            switch (hdr.h.b) { 0: { return; } }
            hdr.h.a = hdr.h.a + 1;
        } else if (hdr.h.c == 3) {
            { switch (hdr.h.b) { 5: { return; } } hdr.h.a = 7; }
            hdr.h.d = 8;
            if (hdr.h.d == 1) { exit; }
            hdr.h.a = hdr.h.a + 1;
        } else if (hdr.h.c == 4) {
            if (hdr.h.d == 9) { return; } else { switch (hdr.h.b) { 5: { return; } } hdr.h.a = 7; }
            hdr.h.d = 8;
        } else if (hdr.h.c == 5) {
            if (hdr.h.d == 2) { return; }
            switch (hdr.h.b) { 5: { return; } }
            hdr.h.a = 7;
        } else {
            switch (hdr.h.b) { 5: { exit; } }
            hdr.h.a = 7;
        }
        hdr.h.c = hdr.h.c + 16;
"""), frames=[(1, H(1, b, c, d)) for c in (1, 2, 3, 4, 5, 6) for b in (0, 5, 6) for d in (0, 1)]))


# p4c's strength reduction takes `c ? a : b` for `a` only when the arms are the same IR after
# constant folding -- and a folded constant keeps the base of its (left) literal: `4w0x8 << 5` is
# a base-16 zero, `x % 1` a decimal one, so `c ? (4w0x8 << 5) : (x % 1)` stays, and so does a
# switch on its cast to an enum, with every case's tables in the P4Info (fuzz_exprs seed 6262;
# `c ? 4w0xe : 4w14` selects `E.A` at run time, where a folded cast would take the `default`).
# checkmate-p4c folded both (no t2; `hdr.h.d = 5`).  `c ? 4w0 : 4w0` folds on both.
CASES.append(case("fuzz22_conditional_arms_of_different_literal_bases_not_folded", CAT, program("""
        switch ((En_t)((hdr.h.a == 1) ? (4w0x8 << 5) : (((bit<4>)hdr.h.b) % 1))) {
            En_t.A: { t2.apply(); }
            default: { hdr.h.c = 3; }
        }
        switch ((En_t)((hdr.h.a == 1) ? 4w0xe : 4w14)) { En_t.A: { hdr.h.d = 4; } default: { hdr.h.d = 5; } }
        switch ((En_t)((hdr.h.a == 1) ? 4w0 : 4w0)) { En_t.B: { t3.apply(); } default: { hdr.h.b = 6; } }
""", ingress_decls=_T, top="enum bit<4> En_t { A = 14, B = 0 }\n"), frames=[(1, H(a, 7)) for a in (1, 2)]))


# p4c's def-use passes drop a store overwritten before anything reads it, so BMv2 never reads
# `hdr.s[i]` for it: `hdr.s[1] = hdr.s[i]; ...; { hdr.s[1] = {..}; }` forwards the packet whatever
# `i` is (fuzz_exprs seed 6144, in egress; the same in ingress and for a field).  checkmate-switch
# read the element and dropped the packet for i = 3 (past the end).  A store read first stays
# (BMv2 dies on the read past the end then: not compared, i < 3 only).
_STK_PARSER = """
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);
                  pkt.extract(hdr.s[2]); transition accept; }
"""
CASES.append(case("fuzz22_dead_store_of_a_stack_read_past_the_end", "stacks", program("""
        if (hdr.h.d[7:0] == 1) {
            hdr.s[1] = hdr.s[hdr.h.a[1:0]];
            hdr.h.c = 5;
            hdr.s[1] = {9};
        } else if (hdr.h.d[7:0] == 2) {
            hdr.h.b = hdr.s[hdr.h.a[1:0]].x + 1;
            hdr.s[0].x = 3;
            hdr.h.b = 7;
        } else if (hdr.h.d[7:0] == 3 && hdr.h.a < 3) {
            hdr.h.b = hdr.s[hdr.h.a[1:0]].x;
            hdr.h.c = (bit<16>)hdr.h.b;
            hdr.h.b = 7;
        }
""", egress="""
        if (hdr.h.d[7:0] == 4) {
            hdr.s[1] = hdr.s[hdr.h.a[1:0]];
            hdr.h.c = hdr.h.c + 1;
            { hdr.s[1] = {(bit<8>)hdr.h.c}; }
        }
""", headers="header e_t { bit<8> x; }\n", fields="    e_t[3] s;\n", parser=_STK_PARSER,
    deparser="        pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.s);\n"),
    frames=[(1, H(a, 0x11, 0x2233, d)) for d in (1, 2, 3, 4) for a in (0, 1, 2, 3)]))


# p4c's LocalCopyPropagation takes a single-case switch as always run (fuzz21) for header fields
# and non-constant values too: after `switch (x) { 5: { hdr.h.d = 5; } }` later reads of `hdr.h.d`
# in the control are 5 whatever x is (the field itself keeps its real value: the deparser is
# another control), and a value the case computes -- through its own locals -- is evaluated where
# it is read, with the values there (`v = hdr.h.a + 4` reads the current `hdr.h.a`): fuzz_headers
# seed 5648 (`switch (..) { 8w0xee: { hdr.h2.c = 16w0x2; } }`, then `(bit<8>)hdr.h2.c`).  A write
# of what the value reads ends it (c == 3).  checkmate-switch read the real values.
CASES.append(case("fuzz22_single_case_switch_copies_fields_and_expressions", CAT, program("""
        bit<8> v = 3;
        if (hdr.h.c == 1) {
            switch (hdr.h.b) { 5: { hdr.h.d = 5; } }
            hdr.h.c = (bit<16>)hdr.h.d[15:0];
        } else if (hdr.h.c == 2) {
            switch (hdr.h.b) { 5: { bit<8> t = hdr.h.a + 1; hdr.h.d = (bit<32>)t; v = hdr.h.a + 4; } }
            hdr.h.c = (bit<16>)hdr.h.d[15:0] + (bit<16>)v;
        } else if (hdr.h.c == 3) {
            switch (hdr.h.b) { 5: { v = hdr.h.a + 4; } }
            hdr.h.a = 9;
            hdr.h.c = (bit<16>)v;
        }
        hdr.h.b = hdr.h.b + 0x10;
"""), frames=[(1, H(a, b, c, 0x77)) for a in (1, 2) for b in (0, 5) for c in (1, 2, 3)]))


# An initializer that reads its own header (`h2 = {h2.a + 1, ..}`: built by p4c in a temporary that
# is never valid, so BMv2 writes no field of h2 and leaves it invalid) makes p4c's def-use pass drop
# an earlier store to another field of h2 -- also when the initializer sits in nested blocks, with a
# `setValid()` and a `switch` that does not read the field in between (fuzz_exprs seed 6247:
# `hdr.opt.e1 = ..; { ..; { ..; hdr.opt.setValid(); } { switch (..) {..} hdr.opt = {e0 = ..hdr.opt.e0..,
# e1 = .., ..}; } }`, then `hdr.opt.e1` read).  The field keeps its value from before the store on
# BMv2; checkmate dropped the store only when the initializer followed it in the same block.
CASES.append(case("fuzz22_store_before_nested_self_initializer_dropped", CAT, program("""
        hdr.h2.b = hdr.h.a;
        hdr.h2.d = 5;
        {
            bit<8> l = hdr.h.b;
            { hdr.h2.setValid(); }
            {
                switch (hdr.h.b) { 0: { } default: { hdr.h2.c = hdr.h2.c + 1; } }
                hdr.h2 = {hdr.h2.a + 1, 7, 8, hdr.h2.d};
            }
        }
        hdr.h.c = (bit<16>)hdr.h2.b;
        hdr.h.d = hdr.h2.d;
"""), frames=[(1, H2(3, 4, 5, 6, b=b)) for b in (0, 1)] + [(1, H(9, b)) for b in (0, 1)]))


# `for (T x in lo .. hi)` (P4-16 1.2.5) over constant bounds: lo, lo + 1, ..., hi, none when lo > hi,
# signed bounds too.  p4c 1.2.4.8 has no loops: the reference is the unrolled loop.  checkmate-p4c
# refused a range ("list expression only", left open by fuzz21).
CASES.append(case("fuzz22_for_in_constant_range", "language", program("""
        for (bit<8> i in 1 .. 3) { hdr.h.b = hdr.h.b + i; }
        for (bit<8> i in 5 .. 4) { hdr.h.a = 0; }
        for (int<8> j in -2 .. 1) { hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)j; }
"""), ref_source=program("""
        hdr.h.b = hdr.h.b + 1; hdr.h.b = hdr.h.b + 2; hdr.h.b = hdr.h.b + 3;
        hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)(-8s2); hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)(-8s1);
        hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)8s0; hdr.h.c = hdr.h.c + (bit<16>)(bit<8>)8s1;
"""), frames=[(1, H(1, 2, 3)), (1, H(7, 0xff, 0xfffe))]))


# p4c folds a constant switch before its BMv2 back end looks at the actions: an action called only
# in a case the switch does not select is unused and not checked -- a conditional `setValid` in it
# is no target error (fuzz_headers seed 5708: a conditional `pop_front` in an action called in
# `switch ((8w0x1 | 8w0x1)) { 8w0x2: {..} }`).  checkmate-p4c refused the program.
CASES.append(case("fuzz22_action_only_in_a_dead_switch_case_unchecked", CAT, program("""
        switch (8w1 | 8w1) { 8w2: { ac(); } default: { ab(); } }
        switch (8w2) { 8w2: { ab(); } 8w3: { ac(); hdr.h.c = 1; } }
""", ingress_decls="""
    action ac() { if (hdr.h.a == 1) { hdr.h2.setValid(); } }
    action ab() { hdr.h.b = hdr.h.b + 1; }
"""), frames=[(1, H(a)) for a in (1, 2)]))


# After a single-case switch whose case ends in `exit`, p4c's LocalCopyPropagation does not visit
# the flow that follows (nothing to merge with the exited case) up to the next join: a local read
# only there is never live, and its dead-code removal takes every assignment to it -- BMv2 reads 0
# (`v` in ingress: 0 whatever b is; in egress the `if` around the switch is the join, and the local
# read after it keeps its assignments).  checkmate-switch computed v.  (A local also read before
# the switch is not modelled: BMv2 then reads a stale value.)
CASES.append(case("fuzz22_local_read_only_after_an_exiting_single_case_switch", CAT, program("""
        bit<8> v = 1;
        switch (hdr.h.b) { 5: { exit; } }
        if (hdr.h.a == 1) { v = 2; }
        hdr.h.c = (bit<16>)v;
""", egress="""
        bit<8> w = hdr.h.a;
        if (hdr.h.a == 1) { switch (hdr.h.b) { 6: { exit; } } w = 7; }
        hdr.h.d = (bit<32>)w;
"""), frames=[(1, H(a, b)) for a in (1, 2) for b in (0, 5, 6)]))


# A `return` in a branch p4c folds away (`if (!true) { return; }`) does not end an action: an `exit`
# after an earlier conditional return is still the BMv2 target error (fuzz_exprs seed 6656;
# checkmate-p4c took the dead return as unconditional and accepted the program).  In test_invalid.
INVALID = {
    "fuzz22_exit_after_conditional_return_and_a_dead_return_in_action": (program("""
        ra();
""", ingress_decls="""
    action ra() { if (hdr.h.a == 1) { hdr.h.b = 2; return; } if (!true) { return; } exit; }
"""), ("conditional",)),
}
