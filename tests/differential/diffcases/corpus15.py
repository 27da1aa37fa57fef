"""Constructs seen in public v1model programs not measured before (research prototypes, P4_14
programs translated by p4c, course programs fetched by helper corpus15 for issue #15), each
written here as a small program of our own and decided by real p4c 1.2.4.8 / BMv2 1.15.5.

p4c names a table key after the ``@name`` of the struct or header fields it goes through
(KeyNameGenerator): appended to its base's name, or alone when it starts with a dot --
``@name(".paxos") paxos_t paxos;`` makes the key ``hdr.paxos.msgtype`` ``paxos.msgtype`` and
``hdr.paxos.isValid()`` ``paxos.$valid$`` (every P4_14 program p4c translates carries such
names: P4B's p4xos acceptor); checkmate-p4c named it by the source text.

``INVALID`` (read by tests/differential/test_invalid.py): name -> (program, words the error
must contain)."""
from .base import H, Entry, case, program

CASES = []

# key names through field @names: absolute (".hh", ".mm", ".why"), a validity key (P4Info names:
# "hh.a", "hh.b", "hh.$valid$", "mm.x", "why")
CASES.append(case("corpus15_key_names_follow_field_name_annotations", "tables", program(
    headers='header g_t { bit<8> a; bit<8> b; }\nstruct mm_t { bit<8> x; @name(".why") bit<8> y; }\n',
    fields='    @name(".hh") g_t hh;\n',
    meta='    @name(".mm") mm_t mm;\n',
    parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        pkt.extract(hdr.hh);
        transition accept;
    }""",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.hh);",
    ingress_decls="""    action set(bit<32> v) { hdr.h.d = v; }
    table t {
        key = { hdr.hh.a: exact; hdr.hh.b: ternary; hdr.hh.isValid(): exact; meta.mm.x: exact; meta.mm.y: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }""",
    ingress="        meta.mm.y = hdr.h.b;\n        t.apply();\n"),
    frames=[(1, H(1, 2, 3, 4) + bytes([5, 6])), (1, H(1, 7, 3, 4) + bytes([5, 6])), (1, H(1, 2, 3, 4) + bytes([9, 6]))],
    entries=[Entry("I.t", {"hh.a": 5, "hh.b": (6, 0xff), "hh.$valid$": 1, "mm.x": 0, "why": 2},
                   "I.set", {"v": 0x11223344}, 10)]))


# an unattached direct counter sharing its @name with the table's own (P4B's ts_switching, a
# p4c-translated P4_14 program): p4c drops the unattached one ("Direct counter not used;
# ignoring") and its count() calls; checkmate-p4c refused the name as used twice
CASES.append(case("corpus15_unattached_direct_counter_shares_a_name", "externs", program(
    ingress_decls="""    @name(".dcnt") direct_counter(CounterType.bytes) dcnt;
    action take(bit<32> v) { dcnt.count(); hdr.h.d = v; }
    action skip() { dcnt.count(); hdr.h.c = 7; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { take; skip; }
        default_action = skip();
        @name(".dcnt") counters = direct_counter(CounterType.bytes);
    }""",
    ingress="        t.apply();\n"),
    frames=[(1, H(1, 2, 3, 4)), (1, H(2, 2, 3, 4)), (1, H(1, 5, 6, 7))],
    entries=[Entry("I.t", {"hdr.h.a": 1}, "I.take", {"v": 0xabcd})]))

# a division by a non-power of two inside an operand that p4c's strength reduction removes
# (`x / 10 * 0`, `0 * (x % 7)`, `(x / 10 & 0)`, `x / 6 * ZERO`, `(x / 3) * (x - x)`, `(x % 7) *
# (16w2 - 2)`, in an action too): p4c compiles
# them to constants before its BMv2 back end judges divisions; checkmate-p4c refused the
# division before it saw the `* 0` (corpus14's open item)
CASES.append(case("corpus15_division_under_times_zero_is_removed", "expressions", program(
    top="const bit<8> ZERO = 0;\n",
    ingress_decls="""    action a(bit<8> p) { hdr.h.b = p / 3 * 0 + 1; }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = a(9); }""",
    ingress="""        hdr.h.d = hdr.h.d / 10 * 0 + 5;
        hdr.h.c = 0 * (hdr.h.c % 7) + (hdr.h.c / 10 & 0) + (bit<16>)(hdr.h.a / 6 * ZERO) + 3;
        meta.m8 = hdr.h.a;
        meta.m8 = (meta.m8 / 5) * 8w0;
        hdr.h.a = hdr.h.a + meta.m8;
        meta.m16 = (hdr.h.c / 3) * (hdr.h.c - hdr.h.c) + (hdr.h.c % 7) * (16w2 - 2) + ((bit<16>)hdr.h.a * 0) / 5;
        hdr.h.c = hdr.h.c + meta.m16;
        t.apply();
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(0xff, 0xfe, 0xfffd, 0xfffffffc))]))

# conditional directives among a multi-line macro call's arguments (cpp runs them; checkmate-p4c
# refused the call as unterminated -- corpus14's open item), nested, with #elif, and __LINE__
# after the call (on the call's last line)
CASES.append(case("corpus15_conditionals_inside_macro_call_arguments", "language", program(
    top="#define XDEF\n#define ADD3(a, b, c) ((a) + (b) + (c))\n",
    ingress="""        hdr.h.a = ADD3(hdr.h.a,
#ifdef XDEF
            8w1,
#else
            8w2,
#endif
#ifndef XDEF
            8w4
#elif 1
            8w8
#else
            8w16
#endif
        ); hdr.h.c = __LINE__;
        hdr.h.b = ADD3(
#if 0
#ifdef XDEF
            1, 1,
#endif
#else
            8w3, 8w5,
#endif
            8w7);
        hdr.h.d = __LINE__;
"""), frames=[(1, H(1, 2, 3, 4))]))

# p4c lists direct counters and meters with their tables, in the tables' order, not in the
# order the instances are declared (a 5G UPF's dl_meter / ul_meter: declared dl first, the table
# of ul first); checkmate-p4c listed them by declaration
CASES.append(case("corpus15_direct_objects_listed_in_table_order", "externs", program(
    ingress_decls="""    direct_counter(CounterType.packets) cA;
    direct_counter(CounterType.bytes) cB;
    direct_meter<bit<8>>(MeterType.packets) mA;
    direct_meter<bit<8>>(MeterType.bytes) mB;
    action a(bit<8> v) { mA.read(meta.m8); hdr.h.b = v; }
    action b(bit<8> v) { mB.read(meta.m8); hdr.h.a = v; }
    table t1 { key = { hdr.h.a: exact; } actions = { b; NoAction; } counters = cB; meters = mB; default_action = NoAction(); }
    table t2 { key = { hdr.h.b: exact; } actions = { a; NoAction; } counters = cA; meters = mA; default_action = NoAction(); }""",
    ingress="        t2.apply();\n        t1.apply();\n"),
    frames=[(1, H(1, 2, 3, 4)), (1, H(5, 6, 7, 8))],
    entries=[Entry("I.t1", {"hdr.h.a": 1}, "I.b", {"v": 9}), Entry("I.t2", {"hdr.h.b": 2}, "I.a", {"v": 7})]))

# p4c's P4Info type_info names a digest struct's members (a nested struct's too) by their
# control-plane names -- a field's @name, one leading dot off; checkmate-p4c used the field names
CASES.append(case("corpus15_digest_members_named_by_field_annotations", "externs", program(
    top="""struct dg_t { @name("renamed") bit<8> f; @name(".dotted") bit<16> g; bit<8> h; }\n""",
    ingress="        digest<dg_t>(1, {hdr.h.a, hdr.h.c, hdr.h.b});\n"),
    frames=[(1, H(1, 2, 3, 4)), (1, H(5, 6, 7, 8))]))

INVALID = {
    # p4c reports a program's own extern function called inside an if in an action ("bugx:
    # Conditional execution in actions unsupported on this target", its midend) before the JSON
    # conversion's "bugx: unknown extern function" for the call in ingress's body (bf4's
    # instrumented programs call bug() in both places); checkmate-p4c reported the second
    "corpus15_conditional_extern_call_reported_before_unknown_extern": (program(
        "        bugx();\n",
        top="extern void bugx();\n",
        egress_decls="""    action a() { if (hdr.h.a == 1) { bugx(); } else { hdr.h.b = 2; } }
    table te { key = { hdr.h.a: exact; } actions = { a; NoAction; } }""",
        egress="        te.apply();\n"), ("conditional execution",)),
}
