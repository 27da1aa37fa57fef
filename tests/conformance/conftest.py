"""Conformance suite for the embedded v1model target (switch/), see docs/CONFORMANCE.md.

Every test compiles a small P4-16 program from ./programs, loads it into
``switch.runtime.Pipeline`` and checks output frames/ports, digests and counters
against values derived by hand from the P4-16 spec, v1model.p4 and BMv2
simple_switch's documented/observable behaviour.  Helpers live in p4conf.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
