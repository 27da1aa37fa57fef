"""Fixtures of the hooks tests.  The shared helper module (shadowkit.py) lives next to this file and
is imported by name."""
import os
import sys

import pytest
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import shadowkit  # noqa: E402


@pytest.fixture(scope="module")
def gloo_group():
    """One real rank (gloo, world size 1) in this process for a whole test module; skips when a default
    process group already exists (another module's, or a leak)."""
    if dist.is_initialized():
        pytest.skip("a default process group already exists in this process")
    with shadowkit.gloo_group():
        yield
