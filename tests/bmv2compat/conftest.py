"""checkmate-switch side by side with real BMv2 over veths (see test_vs_bmv2.py, refrig.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
