"""P4Runtime errors and how they reach the client.

Every failure inside the server is a :class:`P4RTError` carrying a gRPC status code
and a message that names the P4 object, field and value at fault.  Pipeline errors
from :mod:`switch.runtime.errors` are mapped onto codes by :func:`from_pipeline_error`.

Write errors follow the P4Runtime spec (section "Error reporting") and PI/BMv2:
when any update of a batch fails, the RPC fails with top-level code UNKNOWN and the
``google.rpc.Status`` sent in the ``grpc-status-details-bin`` trailer holds one
``p4.v1.Error`` per update, in request order -- OK for the updates that were applied,
the canonical code and message for those that were not.  Clients such as
p4runtime-shell decode exactly that.
"""
from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from grpc import StatusCode
from p4.v1 import p4runtime_pb2


class P4RTError(Exception):
    """A request the server refuses: ``code`` (grpc.StatusCode) and a precise message."""

    def __init__(self, code: StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


def from_pipeline_error(exc: Exception) -> P4RTError:
    """Map a :mod:`switch.runtime` error onto the P4Runtime code the spec asks for."""
    if isinstance(exc, P4RTError):
        return exc
    from switch.runtime import errors as rt_errors  # late: keeps this module importable on its own
    if isinstance(exc, rt_errors.EntryExists):
        return P4RTError(StatusCode.ALREADY_EXISTS, str(exc))
    if isinstance(exc, rt_errors.EntryNotFound):
        return P4RTError(StatusCode.NOT_FOUND, str(exc))
    if isinstance(exc, rt_errors.TargetRefused):
        return P4RTError(StatusCode.UNKNOWN, str(exc))
    if isinstance(exc, rt_errors.OutOfSync):
        return P4RTError(StatusCode.INTERNAL, str(exc))
    if isinstance(exc, rt_errors.Unsupported):
        return P4RTError(StatusCode.UNIMPLEMENTED, str(exc))
    if isinstance(exc, (rt_errors.InvalidEntry, ValueError, KeyError, TypeError)):
        return P4RTError(StatusCode.INVALID_ARGUMENT, str(exc))
    return P4RTError(StatusCode.INTERNAL, f"{type(exc).__name__}: {exc}")


def grpc_code_value(code: StatusCode) -> int:
    """The numeric google.rpc.Code of a grpc.StatusCode."""
    return code.value[0]


def abort(context: grpc.ServicerContext, err: P4RTError):
    """End the RPC with ``err`` (a plain status, no details)."""
    context.abort(err.code, err.message)


def abort_with_update_errors(context: grpc.ServicerContext, results: list[P4RTError | None]):
    """End a Write with UNKNOWN and one p4.v1.Error per update (None = applied)."""
    status = status_pb2.Status(code=code_pb2.UNKNOWN)
    failed = [r for r in results if r is not None]
    status.message = (f"{len(failed)} of {len(results)} updates failed; first: {failed[0]}"
                      if failed else "")
    for r in results:
        err = p4runtime_pb2.Error(canonical_code=code_pb2.OK)
        if r is not None:
            err.canonical_code = grpc_code_value(r.code)
            err.message = r.message
            err.space = "CHECKMATE-SWITCH"
        detail = any_pb2.Any()
        detail.Pack(err)
        status.details.append(detail)
    context.abort_with_status(_RichStatus(StatusCode.UNKNOWN, status.message, status))


class _RichStatus(grpc.Status):
    """A grpc.Status carrying a serialized google.rpc.Status in the details trailer."""

    def __init__(self, code: StatusCode, details: str, rpc_status: status_pb2.Status):
        self.code = code
        self.details = details
        self.trailing_metadata = (("grpc-status-details-bin", rpc_status.SerializeToString()),)
