#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct H { h_t h; }
struct M { }
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t sm) {
  state start { p.extract(hdr.h); transition select(hdr.h.a) { 0x8000 .. 0xFFFF: accept; default: accept; } }
}
control V(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out p, in H h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
