"""The Checkmate controller: P4Runtime programming, reconcile, heartbeat watchdog, checkmate-ctl.

Layers, bottom up (docs/CONTROLLER.md): :mod:`.topology` (what the testbed looks like),
:mod:`.p4info` (names <-> ids and bytes), :mod:`.entities` (table entries, groups by name),
:mod:`.client` (gRPC session and arbitration), :mod:`.device` (a switch by names),
:mod:`.plan` (what a switch should hold), :mod:`.reconcile` (make it so, idempotently),
:mod:`.watchdog` (hung ranks from heartbeat digests), :mod:`.artifacts` (the pipeline to push)
and :mod:`.cli` (``checkmate-ctl``).
"""
