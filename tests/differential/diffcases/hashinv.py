"""Helper hashinv (issue #15): hash / checksum data holding a WHOLE header (or a header stack, or
a struct of headers) that is invalid.  simple_switch_grpc 1.15.5 builds the calculation's input
from the valid headers only: an invalid header given whole contributes no bytes.  Both
checkmate paths hashed its zero fields (errs19's probes /work/e19/t9, t3_hb_hdr_whole*).

(crc16 and csum16 start at 0: leading zero bytes leave them unchanged, so most
cases use crc32.)  Frames: h only (h2 invalid) and h + h2 (h2 valid)."""
from .base import H, H2, case, program

CAT = "hash / checksum input (invalid headers)"
FR = [(1, H(1, 2, 3, 4)), (2, H(0x7f, 0x80, 0xffff, 0xdeadbeef)),
      (3, H2(5, 6, 7, 8, b=1, c=2, d=3)), (1, H2(0xff, 0, 0x1234, 0x9abcdef0, b=0x55))]

CASES = []


def _c(name, ingress, p4info_only="", **kw):
    CASES.append(case(f"hashinv_{name}", CAT, program(ingress, **kw), frames=FR, p4info_only=p4info_only,
                      json_path=not p4info_only))


_c("hash_whole_h2_list", "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.h2 }, 32w0xffffffff);\n"
   "        hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h2, hdr.h.b }, 32w65536);\n")
_c("hash_whole_h2_bare", "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, hdr.h2, 32w0xffffffff);\n")
_c("hash_identity_mixed", "        hash(hdr.h.d, HashAlgorithm.identity, 32w0, { hdr.h2, hdr.h.a }, 64w0x100000000);\n"
   "        hash(hdr.eth.src, HashAlgorithm.identity, 48w0, { hdr.h.b, hdr.h2 }, 64w0x1000000000000);\n")
_c("hash_headers_struct_bare", "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, hdr, 32w0xffffffff);\n")
_c("hash_headers_struct_in_list", "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr }, 32w0xffffffff);\n",
   "simple_switch dies loading p4c's JSON (a JSON list inside the calculation's input: Json::LogicError)")
_c("hash_field_of_invalid", "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h2.b, hdr.h.b }, 32w0xffffffff);\n"
   "        hash(hdr.eth.src, HashAlgorithm.identity, 48w0, { hdr.h.b, hdr.h2.a }, 64w0x1000000000000);\n")
_c("hash_set_invalid_in_control", "        hdr.h.setInvalid();\n"
   "        hash(hdr.h2.d, HashAlgorithm.crc32, 32w0, { hdr.eth.etype, hdr.h }, 32w0xffffffff);\n"
   "        hdr.h.setValid();\n")
_c("update_checksum_whole", "", compute="    apply {\n"
   "        update_checksum(true, { hdr.h.a, hdr.h2 }, hdr.h.c, HashAlgorithm.csum16);\n"
   "        update_checksum(true, { hdr.h2, hdr.h.b }, hdr.h.d, HashAlgorithm.crc32);\n    }")
_c("verify_checksum_whole", "        hdr.h.a = (bit<8>)sm.checksum_error;\n",
   verify="    apply {\n        verify_checksum(true, { hdr.h2, hdr.h.b }, hdr.h.c, HashAlgorithm.csum16);\n    }")
_STK = "    h_t[2] s;\n"
_STK_DEP = "        pkt.emit(hdr.eth);\n        pkt.emit(hdr.h);\n        pkt.emit(hdr.h2);\n        pkt.emit(hdr.s);"
_c("hash_stack_whole", "        hdr.s[0].setValid(); hdr.s[0].a = hdr.h.a; hdr.s[0].d = 9;\n"
   "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.s }, 32w0xffffffff);\n"
   "        hdr.s[0].setInvalid();\n", fields=_STK, deparser=_STK_DEP,
   p4info_only="simple_switch refuses p4c's JSON: Unsupported input type 'header_stack' for calculation")
_c("hash_stack_elements", "        hdr.s[0].setValid(); hdr.s[0].a = hdr.h.a; hdr.s[0].d = 9;\n"
   "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.s[1], hdr.h.b, hdr.s[0] }, 32w0xffffffff);\n"
   "        hdr.s[0].setInvalid();\n", fields=_STK, deparser=_STK_DEP)
_U = "header_union u_t { h_t x; h_t y; }\n"
_c("hash_union_whole", "        hdr.u.y = hdr.h;\n"
   "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.u }, 32w0xffffffff);\n"
   "        hdr.u.y.setInvalid();\n", headers=_U, fields="    u_t u;\n",
   p4info_only="simple_switch refuses p4c's JSON: Invalid reference to object of type 'header' with name 'tmp'")
_c("hash_union_members", "        hdr.u.y = hdr.h;\n"
   "        hash(hdr.h.d, HashAlgorithm.crc32, 32w0, { hdr.u.x, hdr.h.b, hdr.u.y }, 32w0xffffffff);\n"
   "        hdr.u.y.setInvalid();\n", headers=_U, fields="    u_t u;\n")
