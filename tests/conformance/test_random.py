"""random(result, lo, hi): every value in [lo, hi] (v1model.p4 comment; BMv2
primitives.cpp modify_field_rng_uniform uses uniform_int_distribution(lo, hi))."""
import struct

from p4conf import Switch, eth


def test_random_in_range_and_covers_it():
    sw = Switch("random.p4")
    seen8, seen16 = set(), set()
    for _ in range(300):
        port, out = sw.send1(1, eth(0x1234) + b"\xff\xff\xff\xff" + b"x")
        assert port == 1 and out.endswith(b"x")
        r8, r16, fixed = struct.unpack("!BHB", out[14:18])
        assert 10 <= r8 <= 20 and 1000 <= r16 <= 1003 and fixed == 7
        seen8.add(r8)
        seen16.add(r16)
    # 300 uniform draws: missing one of 11 values has probability < 1e-11
    assert seen8 == set(range(10, 21)) and seen16 == set(range(1000, 1004))
