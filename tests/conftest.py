"""Suite-wide collection rule: how ``make test`` spreads the suite over processes.

``make test`` runs pytest with two pytest-xdist workers (``-n 2 --dist loadgroup``): the suite is
about half compile/CPU work (the differential block, the compiler and pipeline suites) and half
tests that mostly wait on processes they started (Mininet testbeds, BMv2, network namespaces), so
one core often idles when they run one after the other.  Two rules keep that safe:

* every test marked ``root`` (it makes network namespaces, veths, Mininet hosts or AF_PACKET
  sockets) goes to one group, ``net``: they run one at a time on one worker, as before, and never
  meet another Mininet or veth rig;
* every other test is grouped by its module, so a module's fixtures (a switch pair, p4c compiling
  its cases ahead) are built once, on one worker.

A plain ``pytest`` (no ``-n``) ignores the groups and runs everything in order, as before.
"""
from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    import pytest
    for item in items:
        group = "net" if item.get_closest_marker("root") else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
