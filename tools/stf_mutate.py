"""Packet-mutated copies of an STF corpus, for ``python -m tests.differential.stf`` (BMv2 decides).

    .venv/bin/python tools/stf_mutate.py SRC_DIR DST_DIR [SEED]

For every ``NAME.stf`` in SRC_DIR that has a ``NAME.p4`` next to it, DST_DIR gets the same
program and an STF that keeps every control command (table writes, mirroring, multicast,
``wait``) in order, drops the ``expect`` lines (the stored expectations only hold for the
stored packets), and follows each ``packet`` line with mutated copies of that packet: one cut
short at a random length, three with one byte changed, three with one bit flipped, and one
with 1..8 random bytes appended.  A ``wait`` closes each group, so the runner collects the
outputs of a few frames at a time (BMv2 drops frames when a hundred arrive back to back).
Files SRC_DIR holds that are not ``*-bmv2.p4`` programs (``#include``d fragments such as
``arith-skeleton.p4``) are copied too.  The same SEED gives the same mutations.

Differences this finds are worth a case when both the checkmate-p4c build and p4c's JSON on
checkmate-switch differ from BMv2 the same way on a frame that does not make the program read
a header whose ``extract`` failed (BMv2 then reads what an earlier packet left in the PHV it
reuses, which changes with timing; see docs/CONFORMANCE.md, "p4c's STF packet tests").
"""
from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

_PACKET = re.compile(r"packet\s+(\d+)\s+(.*)$")


def variants(data: bytes, rnd: random.Random) -> list[bytes]:
    """The mutated copies of one frame, in a fixed order for a given generator state."""
    out: list[bytes] = []
    if len(data) > 1:
        out.append(data[:rnd.randrange(1, len(data))])
    for _ in range(3):
        if not data:
            break
        changed = bytearray(data)
        i = rnd.randrange(len(changed))
        changed[i] = rnd.randrange(256)
        out.append(bytes(changed))
        flipped = bytearray(data)
        i = rnd.randrange(len(flipped))
        flipped[i] ^= 1 << rnd.randrange(8)
        out.append(bytes(flipped))
    out.append(data + bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 9))))
    return out


def mutate_stf(text: str, rnd: random.Random) -> str:
    """The STF text with expects dropped and each packet followed by its variants and a wait."""
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("expect"):
            continue
        out.append(line)
        m = _PACKET.match(stripped)
        if not m:
            continue
        hexdata = re.sub(r"[\s$]", "", m.group(2))
        if len(hexdata) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", hexdata):
            continue  # wildcards or an odd nibble count: left as it is
        out += [f"packet {m.group(1)} {v.hex()}" for v in variants(bytes.fromhex(hexdata), rnd)]
        out.append("wait")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.split("\n\n")[1])
        return 2
    src, dst = Path(argv[0]), Path(argv[1])
    seed = int(argv[2]) if len(argv) == 3 else 1
    dst.mkdir(parents=True, exist_ok=True)
    for p in sorted(src.glob("*.p4")):
        if not p.name.endswith("-bmv2.p4"):
            shutil.copy(p, dst)
    n = 0
    for stf in sorted(src.glob("*.stf")):
        p4 = stf.with_suffix(".p4")
        if not p4.exists():
            continue
        rnd = random.Random(f"{seed}:{stf.stem}")
        (dst / stf.name).write_text(mutate_stf(stf.read_text(), rnd))
        shutil.copy(p4, dst)
        n += 1
    print(f"{n} programs written to {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
