"""P4Runtime gRPC server of checkmate-switch (``p4.v1.P4Runtime``; a drop-in for PI/BMv2).

Modules, one concern each:

* :mod:`.codec` -- P4Runtime byte strings <-> ints, width checks, canonical form;
* :mod:`.p4info_index` -- P4Info by id, with widths, scopes and controller headers;
* :mod:`.translate` -- p4.v1 table entries <-> :mod:`switch.runtime` entries;
* :mod:`.arbitration` -- primary election;
* :mod:`.packetio` -- PacketIn/PacketOut controller metadata;
* :mod:`.digests` -- DigestList batching, acks and duplicate filter;
* :mod:`.state` -- verifying a ForwardingPipelineConfig into a loaded pipeline;
* :mod:`.errors` -- status codes and per-update ``p4.v1.Error`` details;
* :mod:`.writes` / :mod:`.reads` -- what Write does / Read returns, per entity kind;
* :mod:`.service` -- the RPCs: checks, pipeline config, StreamChannel.

:func:`serve` starts a gRPC server for a device (see :mod:`.service` for the device
interface) and returns it with the bound port.
"""
from __future__ import annotations

from concurrent import futures

import grpc

__all__ = ["P4RuntimeService", "serve"]


def __getattr__(name):  # the service pulls in the pipeline; load it only when asked for
    if name == "P4RuntimeService":
        from .service import P4RuntimeService
        return P4RuntimeService
    raise AttributeError(name)


def serve(device, address: str = "127.0.0.1:9559", device_id: int = 0, max_workers: int = 16,
          credentials: "grpc.ServerCredentials | None" = None):
    """Start the P4Runtime server on ``address`` (port 0 picks one).

    Returns ``(grpc_server, service, bound_port)``.  Each open StreamChannel holds a
    worker thread, so ``max_workers`` bounds concurrent streams plus unary calls.
    ``credentials`` (``grpc.ssl_server_credentials``, simple_switch_grpc's ``--grpc-server-ssl``):
    TLS, with or without client certificates; None: plaintext, as by default.
    """
    from p4.v1 import p4runtime_pb2_grpc

    from .service import P4RuntimeService

    service = P4RuntimeService(device, device_id)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="p4rt"),
                         options=[("grpc.max_receive_message_length", 256 << 20),
                                  ("grpc.max_send_message_length", 256 << 20),
                                  ("grpc.so_reuseport", 0)])
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(service, server)
    port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    if port == 0:
        service.close()
        raise OSError(f"cannot bind the P4Runtime server to {address}")
    server.start()
    return server, service, port
