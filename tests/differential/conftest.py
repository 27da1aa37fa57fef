"""Differential conformance suite: real p4c + BMv2 against checkmate-p4c + checkmate-switch.

See docs/CONFORMANCE.md ("Differential suite").  The helper modules (diff_targets,
diff_harness, diffcases) live next to this file and are imported by name.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
