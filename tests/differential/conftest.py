"""Differential conformance suite: real p4c + BMv2 against checkmate-p4c + checkmate-switch.

See docs/CONFORMANCE.md ("Differential suite").  The helper modules (diff_targets,
diff_harness, diffcases) live next to this file and are imported by name.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def targets():
    """One BMv2 + checkmate-switch pair (:class:`diff_session.Targets`) for a module's cases;
    a module that wants more (p4c compiling ahead in the background) defines its own."""
    from diff_session import Targets
    t = Targets()
    yield t
    t.stop()
