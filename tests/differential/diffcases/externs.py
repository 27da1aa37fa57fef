"""v1model externs: checksums, hash, counters, direct counters, meters, registers (values
copied into the packet: BMv2's P4Runtime cannot read registers), digests, random-free
helpers, @field_list with a named constant."""
from controller.entities import Entry

from .base import H, H2, case, ipv4, program

CAT_CK = "checksums"
CAT_H = "hash"
CAT_C = "counters"
CAT_M = "meters"
CAT_R = "registers"
CAT_D = "digests"

IP_HEADERS = """header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags;
    bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst; }
"""
IP_PARSER = """
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.etype) { 0x0800: pip; 0x1234: ph; default: accept; } }
    state pip { pkt.extract(hdr.ip); transition accept; }
    state ph { pkt.extract(hdr.h); transition accept; }"""
IP_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.ip);\n        pkt.emit(hdr.h);"
IP_FIELDS = "    ipv4_t ip;\n"
IP_LIST = "{ hdr.ip.version, hdr.ip.ihl, hdr.ip.tos, hdr.ip.len, hdr.ip.id, hdr.ip.flags, hdr.ip.frag, hdr.ip.ttl, hdr.ip.proto, hdr.ip.src, hdr.ip.dst }"
VERIFY = f"apply {{ verify_checksum(hdr.ip.isValid(), {IP_LIST}, hdr.ip.csum, HashAlgorithm.csum16); }}"
UPDATE = f"apply {{ update_checksum(hdr.ip.isValid(), {IP_LIST}, hdr.ip.csum, HashAlgorithm.csum16); }}"
IP_FR = [(1, ipv4()), (2, ipv4(csum=0x1234)), (3, ipv4(ttl=1, src="192.168.1.1")), (1, H(1, 2, 3, 4)),
         (2, ipv4(tos=0xfc, dst="1.2.3.4"))]
CK_REPORT = "        hdr.eth.src[7:0] = (bit<8>)sm.checksum_error; if (sm.parser_error != error.NoError) { hdr.eth.src[15:8] = 0xee; }\n"


def ip(ingress, verify="apply { }", compute="apply { }", **kw):
    return program(CK_REPORT + ingress, headers=IP_HEADERS, fields=IP_FIELDS, parser=IP_PARSER, deparser=IP_DEP,
                   verify=verify, compute=compute, **kw)


CASES = [
    case("ck_verify", CAT_CK, ip("", verify=VERIFY), frames=IP_FR),
    case("ck_update_ttl", CAT_CK, ip("        if (hdr.ip.isValid()) { hdr.ip.ttl = hdr.ip.ttl - 1; }\n", compute=UPDATE), frames=IP_FR),
    case("ck_verify_and_update", CAT_CK, ip("        if (hdr.ip.isValid()) { hdr.ip.tos = 0x20; }\n", verify=VERIFY, compute=UPDATE), frames=IP_FR),
    case("ck_update_cond_false", CAT_CK, ip("        hdr.ip.ttl = 9;\n", compute=f"apply {{ update_checksum(hdr.ip.ttl == 0, {IP_LIST}, hdr.ip.csum, HashAlgorithm.csum16); }}"), frames=IP_FR),
    case("ck_verify_drop", CAT_CK, ip("        if (sm.checksum_error == 1) { mark_to_drop(sm); }\n", verify=VERIFY), frames=IP_FR),
    case("ck_update_h_fields", CAT_CK, ip("", compute="apply { update_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.b, hdr.h.d }, hdr.h.c, HashAlgorithm.csum16); }"), frames=IP_FR),
    # BMv2's verify/update_checksum leave out the fields of an invalid header (hash() keeps
    # them): h2 is made valid, written and invalidated again, or only parsed for some frames.
    # hash() reads h2.a also where h2 was never parsed: BMv2 then reads whatever an earlier
    # packet left in its reused header storage, so the case writes it first (it was flaky)
    case("ck_skips_invalid_header_fields", CAT_CK, program(
        "        if (!hdr.h2.isValid()) { hdr.h2.a = 7; }\n"
        "        if (hdr.h.a == 1) { hdr.h2.setValid(); hdr.h2.a = 3; hdr.h2.b = 4; hdr.h2.setInvalid(); }\n"
        "        bit<16> x; hash(x, HashAlgorithm.csum16, 16w0, { hdr.h2.a, hdr.h.b }, 32w65536); hdr.eth.src[15:0] = x;\n"
        "        hdr.eth.src[16:16] = sm.checksum_error;\n",
        verify="apply { verify_checksum(true, { hdr.h2.a, hdr.h2.d, hdr.h.a }, hdr.h.c, HashAlgorithm.csum16); }",
        compute="apply { update_checksum(true, { hdr.h2.b, hdr.h.a, hdr.h2.c }, hdr.eth.etype, HashAlgorithm.csum16); }"),
         frames=[(1, H(1, 2, 3, 4)), (1, H(2, 2, 0xfdff, 4)), (2, H2(5, 6, 7, 8, b=2)), (3, H(0xee, 1, 2, 3))],
         json_path=True),
    case("ck_verify_h_odd_bytes", CAT_CK, ip("", verify="apply { verify_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.d, hdr.h.b }, hdr.h.c, HashAlgorithm.csum16); }"), frames=IP_FR),
]

HASH_ALGS = ["crc16", "crc32", "csum16", "identity", "xor16", "crc16_custom", "crc32_custom"]
for alg in HASH_ALGS:
    CASES.append(case(f"hash_{alg}", CAT_H, program(
        f"        hash(hdr.h.d, HashAlgorithm.{alg}, 32w0, {{ hdr.h.a, hdr.h.b, hdr.h.c }}, 32w0xffffffff);\n"
        f"        hash(hdr.h.c, HashAlgorithm.{alg}, 16w0, {{ hdr.eth.src, hdr.h.a }}, 32w65536);\n")))
CASES += [
    case("hash_base_max", CAT_H, program("        hash(hdr.h.a, HashAlgorithm.crc16, 8w10, { hdr.h.c, hdr.h.d }, 16w7);\n"
                                         "        hash(hdr.h.b, HashAlgorithm.crc32, 16w3, { hdr.h.d }, 32w100);\n")),
    case("hash_unaligned_fields", CAT_H, program("        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.h.a[2:0], hdr.h.c[12:0], hdr.h.b[0:0] }, 64w0x100000000);\n")),
    case("hash_wide_result_truncated", CAT_H, program("        hash(hdr.h.a, HashAlgorithm.crc32, 32w0, { hdr.h.d }, 64w0x100000000);\n")),
    case("hash_random_free_ecmp", CAT_H, program("        bit<16> s; hash(s, HashAlgorithm.crc16, 16w0, { hdr.h.d, hdr.h.c }, 32w4); sm.egress_spec = (bit<9>)s + 1;\n")),
    # BMv2 takes max 0 as 1, so the result is base whatever the algorithm (checkmate-switch
    # used the unreduced hash)
    case("hash_max_zero", CAT_H, program("        hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.d, hdr.h.a }, 32w0);\n"
                                         "        hash(hdr.h.d, HashAlgorithm.identity, 32w5, { hdr.h.c, hdr.h.b }, 32w0);\n"
                                         "        hash(hdr.h.a, HashAlgorithm.xor16, 8w3, { hdr.h.d }, 16w0);\n")),
    # identity over more than 64 bits (BMv2 keeps the first 8 bytes of the field list) and over
    # a list that is not whole bytes (BMv2 pads it at the end)
    case("hash_identity_wide", CAT_H, program("        bit<64> r; hash(r, HashAlgorithm.identity, 64w0, { hdr.h.d, hdr.h.c, hdr.h.b, hdr.h.a, hdr.eth.src }, 64w0xffffffffffffffff);\n"
                                              "        bit<64> q; hash(q, HashAlgorithm.identity, 64w0, { hdr.h.d, hdr.h.c, hdr.h.b, hdr.h.a[0:0] }, 64w0xffffffffffffffff);\n"
                                              "        hdr.h.d = r[63:32] ^ r[31:0]; hdr.h.c = r[15:0]; hdr.h.a = q[7:0]; hdr.h.b = q[15:8];\n")),
    # base and max are read as 64-bit values: a max of 2**64 is 0, so the result is base
    case("hash_max_wider_than_64", CAT_H, program("        bit<128> r; hash(r, HashAlgorithm.crc32, 128w0x100000000000000007, { hdr.h.d }, 128w0x10000000000000000);\n"
                                                  "        hdr.h.d = r[31:0] ^ r[127:96]; hdr.h.c = r[79:64];\n")),
]

# ------------------------------------------------------------------ counters / meters / registers
CTR = """
    counter(8, CounterType.packets_and_bytes) c_pb;
    counter(8, CounterType.packets) c_p;
    counter(8, CounterType.bytes) c_b;
"""
CASES += [
    case("ctr_indexed", CAT_C, program("        c_pb.count((bit<32>)hdr.h.b[2:0]); c_p.count((bit<32>)sm.ingress_port); c_b.count(7);\n", ingress_decls=CTR)),
    case("ctr_out_of_range", CAT_C, program("        c_p.count((bit<32>)hdr.h.a);\n", ingress_decls=CTR)),
    case("ctr_egress_bytes", CAT_C, program("", egress="        c_pb.count(1); hdr.h2.setValid(); c_b.count(2);\n", egress_decls=CTR)),
    case("ctr_direct", CAT_C, program("        t.apply();\n", ingress_decls="""
    direct_counter(CounterType.packets_and_bytes) dc;
    action hit() { dc.count(); hdr.h.b = 1; }
    action miss() { dc.count(); }
    table t { key = { hdr.h.a: exact; } actions = { hit; miss; } default_action = miss(); counters = dc; }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.hit"), Entry("I.t", {"hdr.h.a": 0xff}, "I.hit")]),
    case("ctr_direct_ternary", CAT_C, program("        t.apply();\n", ingress_decls="""
    direct_counter(CounterType.packets) dc;
    action hit() { dc.count(); }
    table t { key = { hdr.h.a: ternary; } actions = { hit; NoAction; } counters = dc; }"""),
         entries=[Entry("I.t", {"hdr.h.a": (0, 0x80)}, "I.hit", {}, 1), Entry("I.t", {"hdr.h.a": (0xff, 0xff)}, "I.hit", {}, 2)]),
    case("reg_read_write", CAT_R, program("        bit<32> v; r.read(v, (bit<32>)hdr.h.b[1:0]); r.write((bit<32>)hdr.h.b[1:0], v + hdr.h.d); hdr.h.d = v;\n",
                                         ingress_decls="    register<bit<32>>(4) r;\n"), one_by_one=True),
    case("reg_out_of_range", CAT_R, program("        bit<16> v = 7; r.read(v, (bit<32>)hdr.h.a); r.write((bit<32>)hdr.h.a, 0x1234); hdr.h.c = v;\n",
                                           ingress_decls="    register<bit<16>>(2) r;\n")),
    case("reg_accumulate", CAT_R, program("        bit<8> v; r.read(v, 0); v = v + 1; r.write(0, v); hdr.h.a = v;\n",
                                         ingress_decls="    register<bit<8>>(1) r;\n"), one_by_one=True),
    case("reg_in_action", CAT_R, program("        a();\n", ingress_decls="""
    register<bit<16>>(16) r;
    action a() { bit<16> x; r.read(x, (bit<32>)sm.ingress_port); r.write((bit<32>)sm.ingress_port, x + hdr.h.c); hdr.h.c = x; }""")),
    case("meter_indexed_default", CAT_M, program("        bit<2> col; m.execute_meter((bit<32>)hdr.h.b[1:0], col); hdr.h.a = (bit<8>)col;\n",
                                                ingress_decls="    meter(4, MeterType.packets) m;\n")),
    case("meter_direct_default", CAT_M, program("        t.apply();\n", ingress_decls="""
    direct_meter<bit<8>>(MeterType.bytes) dm;
    action a() { dm.read(hdr.h.b); }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } default_action = NoAction(); meters = dm; }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "I.a")]),
]

# negative counter/meter sizes: p4c takes them as bit<32> (2**32-1 cells in its JSON, the
# P4Info's int32 maximum in the P4Info); neither BMv2 nor checkmate-switch allocates that
HUGE = "a negative size is 2**32-1 cells: more than simple_switch_grpc or checkmate-switch allocates"
CASES += [
    case("counter_size_negative", CAT_C, program("        c.count(0);\n",
                                                 ingress_decls="    counter(-1, CounterType.packets) c;\n"),
         p4info_only=HUGE),
    case("meter_size_negative", CAT_M, program("        bit<2> col; m.execute_meter(32w0, col); hdr.h.a = (bit<8>)col;\n",
                                               ingress_decls="    meter(-2, MeterType.bytes) m;\n"),
         p4info_only=HUGE),
]

# hash / execute_meter results stored into a serializable enum (its underlying bits) or a
# bool, both accepted by p4c. For a bool, p4c 1.2.4.8 writes the destination as an expression
# (d2b of the 1-bit field) and simple_switch_grpc 1.15.5 dies loading that JSON, so those are
# compared on their P4Info only (checkmate keeps the low bit, as a 1-bit field would).
RES_TOP = "enum bit<8> E8 { A = 1, B = 2 }\n"
BOOL_DEST = ("simple_switch_grpc 1.15.5 dies loading p4c's JSON for a hash/meter result stored into a bool "
             "(the destination is a d2b expression, not a field)")
CASES += [
    case("hash_into_enum", CAT_H, program(
        "        E8 he; hash(he, HashAlgorithm.crc32, 8w1, { hdr.h.c, hdr.h.a }, 16w3);\n"
        "        if (he == E8.A) { hdr.h.d = 0xa; } else if (he == E8.B) { hdr.h.d = 0xb; } else { hdr.h.d = (bit<32>)(bit<8>)he; }\n",
        top=RES_TOP)),
    case("meter_into_enum", CAT_M, program(
        "        E8 me = E8.B; m.execute_meter((bit<32>)hdr.h.b[1:0], me); hdr.h.c = (bit<16>)(bit<8>)me;\n",
        ingress_decls="    meter(4, MeterType.packets) m;\n", top=RES_TOP)),
    case("hash_into_bool", CAT_H, program(
        "        bool hb; hash(hb, HashAlgorithm.crc16, 16w0, { hdr.h.d }, 32w2);\n"
        "        if (hb) { hdr.h.b = 0xb1; }\n"), p4info_only=BOOL_DEST),
    case("meter_into_bool", CAT_M, program(
        "        bool mb = true; m.execute_meter(32w0, mb); if (!mb) { hdr.h.a = 0x60; }\n",
        ingress_decls="    meter(4, MeterType.packets) m;\n"), p4info_only=BOOL_DEST),
]

# ------------------------------------------------------------------ digests
TUPLE_DIGEST = ("simple_switch_grpc cannot configure a tuple digest: p4c names it digest_N in the P4Info "
                "but tuple_N in the JSON's learn_lists ('Error when configuring digest with target')")
DG_TOP = "struct d_t { bit<8> a; bit<16> c; bit<9> port; }\nstruct d2_t { bit<48> src; bit<32> d; }\n"
CASES += [
    case("digest_struct", CAT_D, program("        digest<d_t>(1, {hdr.h.a, hdr.h.c, sm.ingress_port});\n", top=DG_TOP)),
    case("digest_two_types", CAT_D, program("        if (hdr.h.a[0:0] == 1) { digest<d_t>(1, {hdr.h.a, hdr.h.c, sm.ingress_port}); }\n"
                                            "        else { digest<d2_t>(2, {hdr.eth.src, hdr.h.d}); }\n", top=DG_TOP)),
    case("digest_dropped_packet", CAT_D, program("        digest<d_t>(1, {hdr.h.a, hdr.h.c, sm.ingress_port}); mark_to_drop(sm);\n", top=DG_TOP)),
    case("digest_in_action", CAT_D, program("        t.apply();\n", top=DG_TOP, ingress_decls="""
    action learn() { digest<d2_t>(1, {hdr.eth.src, (bit<32>)hdr.h.b}); }
    table t { key = { hdr.h.a: exact; } actions = { learn; NoAction; } default_action = learn(); }"""),
         entries=[Entry("I.t", {"hdr.h.a": 1}, "NoAction")]),
    # tuple data: p4c names each call digest_N, and BMv2's P4Runtime server cannot configure
    # such a digest (P4Info name digest_N, JSON learn list tuple_N): P4Info compared only.
    # A one-member struct is still sent as a struct; a digest called in egress is listed but
    # BMv2 learns at the end of ingress only, so nothing is sent.
    case("digest_tuple_typed", CAT_D, program("        digest<tuple<bit<8>, bit<16>>>(1, {hdr.h.a, hdr.h.c});\n"),
         p4info_only=TUPLE_DIGEST),
    case("digest_tuple_untyped_list", CAT_D, program("        digest(1, {hdr.h.a, sm.ingress_port});\n"),
         p4info_only=TUPLE_DIGEST),
    case("digest_tuple_variable", CAT_D, program(
        "        tuple<bit<8>, bit<16>> t = {hdr.h.a, hdr.h.c};\n        t[0] = t[0] + 1;\n        digest(1, t);\n"),
         p4info_only=TUPLE_DIGEST),
    case("digest_struct_one_member", CAT_D, program("        digest<d1_t>(1, {hdr.h.a});\n",
                                                    top="struct d1_t { bit<8> a; }\n")),
    case("digest_in_egress", CAT_D, program("", egress="        digest<d1_t>(1, {hdr.h.a});\n",
                                            top="struct d1_t { bit<8> a; }\n")),
    case("digest_metadata_later_change", CAT_D, program("        meta.m8 = hdr.h.a; digest<d_t>(1, {meta.m8, hdr.h.c, sm.ingress_port}); meta.m8 = 0;\n", top=DG_TOP)),
]

# ------------------------------------------------------------------ log_msg
# log_msg with whole structs as data: p4c copies each into a temporary metadata instance
# (assign_header tmp <- standard_metadata / the user metadata) and logs its fields; the JSON
# loader refused such a copy between metadata instances ("'tmp_N' is not a header instance")
CASES += [
    case("log_msg_struct_data", CAT_H, program(
        "        meta.m8 = hdr.h.a + 1;\n"
        "        log_msg(\"sm={}\", {sm});\n"
        "        hdr.h.b = meta.m8; hdr.h.c = (bit<16>)sm.ingress_port;\n"), json_path=True),
]
