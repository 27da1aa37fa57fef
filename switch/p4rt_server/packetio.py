"""PacketIn / PacketOut through the CPU port, with controller packet metadata.

The P4 program declares two ``@controller_header`` headers, ``packet_in`` and
``packet_out``; P4Info lists their fields (``controller_packet_metadata``) in header
order with bit widths.  As in BMv2/PI:

* a frame the pipeline sends to the CPU port starts with the ``packet_in`` header
  (the program made it valid and the deparser emitted it first).  The server cuts
  those bytes off and turns each field into a ``PacketMetadata`` (canonical bytes); a
  frame shorter than the header is dropped (PI's PacketInMutate);
* a PacketOut's metadata is packed, MSB first, into a ``packet_out`` header that is
  put in front of the payload, and the frame enters the pipeline on the CPU port.
  Metadata the controller leaves out is 0, a field given twice takes its last value;
  unknown ids and values wider than their field are refused (INVALID_ARGUMENT; the
  service drops such a PacketOut without an answer, as simple_switch_grpc does).

Only the P4Info says where the fields are: a field p4c leaves out of it (``@hidden``) is
not skipped, the listed ones are packed or cut one after the other, as PI does.

Without a ``packet_in``/``packet_out`` header the payload passes unchanged.
"""
from __future__ import annotations

from grpc import StatusCode
from p4.v1 import p4runtime_pb2

from . import codec
from .errors import P4RTError
from .p4info_index import ControllerHeader


def split_packet_in(hdr: ControllerHeader | None, frame: bytes) -> p4runtime_pb2.PacketIn | None:
    msg = p4runtime_pb2.PacketIn()
    if hdr is None or not hdr.fields:
        msg.payload = frame
        return msg
    nbytes = (hdr.bitwidth + 7) // 8
    if len(frame) < nbytes:
        return None   # (PI drops it)
    word = int.from_bytes(frame[:nbytes], "big") >> (nbytes * 8 - hdr.bitwidth)
    shift = hdr.bitwidth
    for f in hdr.fields:
        shift -= f.bitwidth
        msg.metadata.add(metadata_id=f.id, value=codec.encode((word >> shift) & codec.mask_of(f.bitwidth)))
    msg.payload = frame[nbytes:]
    return msg


def build_packet_out(hdr: ControllerHeader | None, msg: p4runtime_pb2.PacketOut) -> bytes:
    if hdr is None or not hdr.fields:
        if msg.metadata:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            "PacketOut carries metadata but the program has no packet_out controller header")
        return msg.payload
    by_id = {f.id: f for f in hdr.fields}
    values: dict[int, int] = {}
    for md in msg.metadata:
        f = by_id.get(md.metadata_id)
        if f is None:
            raise P4RTError(StatusCode.INVALID_ARGUMENT,
                            f"PacketOut: unknown packet_out metadata id {md.metadata_id} "
                            f"(known: {', '.join(f'{x.id}={x.name}' for x in hdr.fields)})")
        values[f.id] = codec.decode(md.value, f.bitwidth, f"PacketOut metadata '{f.name}'")
    word = 0
    for f in hdr.fields:
        word = (word << f.bitwidth) | values.get(f.id, 0)
    nbytes = (hdr.bitwidth + 7) // 8
    word <<= nbytes * 8 - hdr.bitwidth
    return word.to_bytes(nbytes, "big") + msg.payload
