"""The Checkmate shadow node (``checkmate-shadow``) and the trainer side of its protocol.

``protocol`` (seam dataclasses, TCP framing) and ``client`` (``ShadowClient``) are what a trainer
imports; ``node.ShadowNode`` runs a shadow in-process; ``export`` is ``checkmate export``.
Design notes: docs/SHADOW.md.
"""
