"""tools/stf_mutate.py: packet-mutated STF copies (no switch needed: the text and its parse)."""
import random

from tests.differential.stf import parse_stf
from tools.stf_mutate import mutate_stf, variants

STF = """# a comment
add t h.a:1 c.set(v:2)
packet 0 0102 0304
expect 0 0102 0304
packet 1 0a0
expect 1 0a0b
mirroring_add 5 4
"""


def test_variants_are_fixed_per_seed_and_cover_each_kind():
    data = bytes.fromhex("00112233445566")
    a, b = variants(data, random.Random("s")), variants(data, random.Random("s"))
    assert a == b and len(a) == 8
    assert len(a[0]) < len(data)                                   # cut short
    assert all(len(v) == len(data) and v != data or v == data for v in a[1:7])
    flips = a[2:7:2]                                                 # one bit each
    assert all(bin(int.from_bytes(v, "big") ^ int.from_bytes(data, "big")).count("1") == 1 for v in flips)
    assert a[7][:len(data)] == data and 1 <= len(a[7]) - len(data) <= 8


def test_commands_kept_expects_dropped_and_groups_closed_by_wait():
    out = mutate_stf(STF, random.Random(1))
    cmds = parse_stf(out, "m.stf")
    kinds = [c.kind for c in cmds]
    assert "expect" not in kinds and kinds[0] == "add" and kinds[-1] == "mirroring_add"
    # the first packet (4 bytes) gets 8 variants and a wait; an odd nibble count is left alone
    assert kinds[1:11] == ["packet"] * 9 + ["wait"]
    assert kinds[11] == "packet" and kinds.count("wait") == 1
    assert cmds[1].data == bytes.fromhex("01020304")
