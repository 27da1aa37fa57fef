"""Errors raised by the v1model pipeline's control-plane API.

The P4Runtime server (``switch/p4rt_server``) maps them onto gRPC status codes:
``EntryExists`` -> ALREADY_EXISTS, ``EntryNotFound`` -> NOT_FOUND, ``InvalidEntry``
-> INVALID_ARGUMENT, ``Unsupported`` -> UNIMPLEMENTED, ``TargetRefused`` -> UNKNOWN (what BMv2
itself refuses under PI's checks), ``OutOfSync`` -> INTERNAL (PI's read of what it cannot map back).  Every message names the
P4 object (table, counter, ...) and, where there is one, the field and value at fault.
"""
from __future__ import annotations


class PipelineError(Exception):
    """Base class of every control-plane error of :class:`switch.runtime.Pipeline`."""


class EntryExists(PipelineError):
    """An insert found an entry with the same match key (and priority) already installed."""


class EntryNotFound(PipelineError):
    """A modify/delete/read names an entry, index or group that is not installed."""


class InvalidEntry(PipelineError, ValueError):
    """An entry or argument is malformed: unknown id, value wider than the field, bad mask,
    prefix length out of range, missing or extra action parameter, write to a const table..."""


class Unsupported(PipelineError, NotImplementedError):
    """The program or request uses a feature the embedded target does not implement."""


class TargetRefused(PipelineError):
    """BMv2 refuses what PI's own checks let through (simple_switch_grpc: UNKNOWN, "Error when adding
    match entry to target"): e.g. an entry equal to an installed one under the key's mask."""


class OutOfSync(PipelineError):
    """PI reads back an entry whose key the target changed and finds it in no entry of its own
    (simple_switch_grpc: INTERNAL, "Table state out-of-sync with target")."""
