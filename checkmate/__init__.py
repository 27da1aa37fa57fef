"""Checkmate: per-iteration checkpointing by in-network gradient replication.

This package holds what every component shares: the wire format
(:mod:`checkmate.wire`), its scapy dissector for tests and pcaps
(:mod:`checkmate.wire_scapy`), project paths, and the ``checkmate`` command.
The components themselves live in the top-level packages ``switch``,
``controller``, ``shadow``, ``trainer_hooks`` and ``topologies``.
"""
__version__ = "0.1.0"
