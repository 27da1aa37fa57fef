"""Mutated programs (a token deleted, duplicated, replaced, or a number changed) either
compile and load or fail with a P4CompileError -- never another exception."""
import glob
import os
import random
import re

import pytest

from switch.compiler import P4CompileError, compile_source
from switch.runtime import Pipeline

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "..", "pipeline", "programs", "*.p4")))
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]")


def mutate(rng: random.Random, text: str) -> str:
    toks = list(TOKEN.finditer(text))
    m = rng.choice(toks)
    op = rng.choice(["del", "dup", "swap", "num"])
    if op == "del":
        return text[:m.start()] + text[m.end():]
    if op == "dup":
        return text[:m.end()] + " " + m.group(0) + text[m.end():]
    if op == "num":
        return text[:m.start()] + str(rng.choice([0, 1, 7, 255, 65536, 2 ** 40])) + text[m.end():]
    return text[:m.start()] + rng.choice(toks).group(0) + text[m.end():]


@pytest.mark.parametrize("seed", range(3))
def test_mutated_programs_fail_cleanly(seed):
    rng = random.Random(seed)
    for _ in range(25):
        path = rng.choice(PROGRAMS)
        with open(path) as f:
            text = mutate(rng, f.read())
        try:
            Pipeline(compile_source(text, os.path.basename(path)).device_config)
        except P4CompileError as e:
            assert re.match(r"[^:]+:\d+:\d+: ", str(e)), str(e)
