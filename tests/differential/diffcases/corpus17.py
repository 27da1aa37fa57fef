"""Constructs seen in public v1model programs not measured before (the switch-cache course
assignment's student solutions, sketches, firewalls, NATs, a BNG, a multi-version key-value store
... fetched by helper corpus17 for issue #15), each written here as a small program of our own and
decided by real p4c 1.2.4.8 / BMv2 1.15.5.

A header stack deeper than 1024 (the key-value store's ``multiVal_t[1025] multiVal`` result stack,
pushed onto per recirculation): p4c sets no limit on a stack's size (it compiles 4096) and
simple_switch loads the JSON; checkmate-p4c refused the program ("a stack size must be <= 1024").

A loop of more than 64 recirculations (the same store answers a RANGE request by recirculating
once per key from egress): BMv2 sets no bound and sends the packet when the loop ends;
checkmate-switch dropped it after 64 passes.  A parser loop of more than 1000 states (the store's
result stack parsed element by element): BMv2 sets no bound, checkmate-switch stopped the parser
with ParserTimeout after 1000 transitions."""
from .base import H, H2, case, program

CASES = []

# a 1025-deep stack: push_front, writes to the first and the last element, `.next` in the parser
CASES.append(case("corpus17_header_stack_deeper_than_1024", "stacks", program(
    headers="header m_t { bit<8> v; }\n",
    fields="    m_t[1025] ms;\n",
    parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_h;
            default: accept;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            0xee: parse_m;
            default: accept;
        }
    }
    state parse_m {
        pkt.extract(hdr.ms.next);
        transition accept;
    }""",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.ms);",
    ingress="""        hdr.ms.push_front(2);
        hdr.ms[0].setValid();
        hdr.ms[0].v = hdr.h.b;
        if (hdr.h.c == 7) {
            hdr.ms[1024].setValid();
            hdr.ms[1024].v = 0x77;
        }
        hdr.h.d = (bit<32>)hdr.ms[2].v;
"""), frames=[(1, H(1, 2, 3, 4)), (1, H(0xee, 5, 7, 4)), (1, H2(9, 8, 7, 6))], json_path=True))


# 70 and 100 recirculations from egress, the pass count carried in a field list; a resubmit loop of
# 65 passes in ingress
CASES.append(case("corpus17_more_than_64_recirculations", "replication", program(
    meta="    @field_list(0) bit<8> n;\n",
    ingress="""        if (hdr.h.a == 3 && meta.n < 65) {
            meta.n = meta.n + 1;
            resubmit_preserving_field_list(0);
        }
        hdr.h.c = (bit<16>)meta.n;
""",
    egress="""        if (hdr.h.a != 3 && meta.n < hdr.h.b) {
            meta.n = meta.n + 1;
            hdr.h.d = hdr.h.d + 1;
            recirculate_preserving_field_list(0);
        }
"""), frames=[(1, H(1, 70, 0, 0)), (1, H(2, 100, 0, 5)), (1, H(3, 0, 0, 0)), (1, H(4, 64, 0, 0))], json_path=True))

# a parser loop over 1030 one-byte elements of a 1100-deep stack (a last element 0 ends it)
CASES.append(case("corpus17_parser_loop_longer_than_1000_states", "parsers", program(
    headers="header m_t { bit<8> v; }\n",
    fields="    m_t[1100] ms;\n",
    parser="""    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) {
            0x1234: parse_m;
            default: accept;
        }
    }
    state parse_m {
        pkt.extract(hdr.ms.next);
        transition select(hdr.ms.last.v) {
            0: parse_h;
            default: parse_m;
        }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }""",
    deparser="        pkt.emit(hdr.eth);\n        pkt.emit(hdr.ms);\n        pkt.emit(hdr.h);",
    ingress="""        if (sm.parser_error != error.NoError) { hdr.h.c = 0xeeee; }
        hdr.h.b = hdr.ms[1028].v;
"""), frames=[(1, bytes.fromhex("000000000002000000000001") + b"\x12\x34" + bytes([1 + i % 200 for i in range(1029)]) + b"\0"
                + bytes(8) + bytes(16)),
              (1, bytes.fromhex("000000000002000000000001") + b"\x12\x34" + bytes([7] * 20) + b"\0" + bytes(8))], json_path=True))

# name -> (where: "compile" (also fails P4Info equality) | "runtime", strict, reason)
KNOWN: dict[str, tuple[str, bool, str]] = {
}

INVALID: dict[str, tuple[str, list[str]]] = {
}
