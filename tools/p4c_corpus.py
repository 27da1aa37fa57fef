"""Measure checkmate-p4c against real p4c on a directory of P4 programs (a corpus kept outside
the repository, e.g. p4c's public test programs).

    PYTHONPATH=. .venv/bin/python tools/p4c_corpus.py DIR [DIR ...] [-o RESULTS] [-k NAME]

For every ``*.p4`` under each DIR that is a v1model program (includes ``v1model.p4`` and
instantiates ``V1Switch``, counting the local files it ``#include "..."``s), real ``p4c --target bmv2 --arch v1model`` decides whether the
program is valid; checkmate-p4c then compiles it in-process and the pair is classified:

=================  ==========================================================================
``ok``             both accept and the P4Infos are equal (:func:`canonical_text`, the same
                   comparison as tests/differential/test_p4info_equal.py)
``p4info``         both accept, P4Infos differ (first differing lines shown)
``reject``         p4c accepts, checkmate-p4c rejects it (its message shown)
``crash``          p4c accepts, checkmate-p4c raised something other than a compile error
``crash-invalid``  p4c rejects, checkmate-p4c raised something other than a compile error
``rejected``       both reject; checkmate-p4c's message has ``file:line:col``
``rejected-noloc`` both reject, but checkmate-p4c's message lacks a position
``accept``         p4c rejects, checkmate-p4c accepts (p4c's first error shown)
``skip``           not a v1model program
=================  ==========================================================================

With ``--frames``, every program both compilers accept also runs a fixed set of frames
(IPv4/UDP, TCP, ICMP, IPv6, 802.1Q, ARP, odd EtherTypes, short and random frames; no table
entries, so default actions and const entries) through two embedded pipelines in-process:
checkmate-p4c's build and p4c's BMv2 JSON translated by ``switch/bmv2json``.  No switch or
BMv2 is started.  A difference is a bug in one of the two front ends (the differential
harness with real BMv2 decides which); the line then reads ``frames-differ`` (first differing
frame shown) or ``json-refused`` (the BMv2 JSON loader refused p4c's output).

p4c's outputs are cached by source hash (``$CHECKMATE_CORPUS_CACHE``, default a per-user
temp dir), so re-measuring after a compiler change only runs checkmate-p4c again.  The
per-program lines and the counts go to RESULTS (default
``/work/corpus/p4c/front-results.txt`` when that folder exists, else stdout only).
Needs p4c (exits 2 without it); the project itself never does.
"""
from __future__ import annotations

import argparse
import collections
import difflib
import os
import re
import sys
import tempfile
import traceback
from pathlib import Path

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from switch.bmv2json.p4c import p4c_path, run_p4c_cached, source_digest  # noqa: F401  (source_digest: tests)
from switch.compiler import P4CompileError, compile_file
from switch.compiler.p4info import canonical_text

DEFAULT_OUT = Path("/work/corpus/p4c/front-results.txt")
_LOC = re.compile(r"^\S+\.p4:\d+:\d+: ")


_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def program_text(src: Path) -> str:
    """The program's text with the files it ``#include "..."``s next to it appended (one
    level): p4c's samples put the skeleton with ``V1Switch`` in a shared include."""
    text = src.read_text(errors="replace")
    for name in _LOCAL_INCLUDE.findall(text):
        inc = src.parent / name
        if inc.is_file():
            text += "\n" + inc.read_text(errors="replace")
    return text


def is_v1model(text: str) -> bool:
    return "v1model.p4" in text and "V1Switch" in text


def p4c_result(src: Path, cache_root: Path) -> p4info_pb2.P4Info | str:
    """p4c's P4Info, or its error text (cached by :func:`source_digest`)."""
    digest = source_digest(src)
    result = run_p4c_cached(src, cache_root / f"p4c-{digest}")
    if isinstance(result, str):
        return result
    return text_format.Parse(result[1], p4info_pb2.P4Info())


def first_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower():
            return ln
    return lines[0] if lines else "(no output)"


def probe_frames(seed: int = 4) -> list[bytes]:
    """The fixed frame set of ``--frames`` (deterministic)."""
    import random
    import struct
    rng = random.Random(seed)

    def eth(t: int) -> bytes:
        return bytes.fromhex("000000000002000000000001") + struct.pack("!H", t)

    def ipv4(proto: int, l4: bytes) -> bytes:
        return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, 0, 64, proto, 0,
                           bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2])) + l4
    udp = struct.pack("!HHHH", 1234, 5678, 16, 0) + bytes(range(8))
    tcp = struct.pack("!HHIIBBHHH", 1234, 80, 1, 2, 0x50, 0x12, 100, 0, 0) + bytes(6)
    out = [eth(0x0800) + ipv4(17, udp), eth(0x0800) + ipv4(6, tcp), eth(0x0800) + ipv4(1, bytes(12)),
           eth(0x86DD) + struct.pack("!IHBB", 0x60000000, 16, 17, 64) + bytes(32) + udp,
           eth(0x8100) + b"\x00\x05\x08\x00" + ipv4(17, udp), eth(0x0806) + bytes(28),
           eth(0x1234) + bytes(range(40)), eth(0x0800) + bytes(5)]
    for _ in range(12):
        out.append(bytes(rng.randrange(256) for _ in range(rng.choice([14, 20, 34, 54, 64, 100, 200]))))
    return out


def frame_outputs(device_config: dict, frames: list[bytes]) -> list:
    """What an embedded pipeline (fixed clock and random seed) sends for each frame, received
    on ports 1, 2, 3 in turn; an exception becomes its type name."""
    import json

    from switch.runtime import Pipeline
    pl = Pipeline(json.loads(json.dumps(device_config)), clock=lambda: 1000, seed=7)
    out = []
    for i, f in enumerate(frames):
        try:
            out.append(pl.process(1 + i % 3, f))
        except Exception as e:  # noqa: BLE001 -- compared like an output
            out.append(f"raised {type(e).__name__}")
    return out


def frames_differ(ours: list, theirs: list) -> str:
    """'' when both output lists are equal, else the first differing frame."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"frame {i}: checkmate-p4c {str(a)[:140]} / p4c JSON {str(b)[:140]}"
    return "" if len(ours) == len(theirs) else "different numbers of results"


def _p4c_json_config(src: Path, cache_root: Path) -> dict:
    """p4c's (cached) BMv2 JSON of ``src`` translated by switch/bmv2json (Bmv2JsonError if not)."""
    import json

    from switch.bmv2json import translate
    digest = source_digest(src)
    result = run_p4c_cached(src, cache_root / f"p4c-{digest}")
    return translate(json.loads(result[0]), text_format.Parse(result[1], p4info_pb2.P4Info()))


def compare_frames(src: Path, ours_cfg: dict, cache_root: Path) -> tuple[str, str]:
    """``("", "")``, ``("frames-differ", ...)`` or ``("json-refused", ...)`` for a program both accept."""
    from switch.bmv2json import Bmv2JsonError
    try:
        theirs_cfg = _p4c_json_config(src, cache_root)
        frames = probe_frames()
        theirs = frame_outputs(theirs_cfg, frames)
    except Exception as e:  # noqa: BLE001 -- Bmv2JsonError, or the pipeline's own refusal
        kind = "" if isinstance(e, Bmv2JsonError) else f"{type(e).__name__}: "
        try:   # (a program BMv2 refuses too -- HashAlgorithm.random: checkmate-switch refuses ours)
            frame_outputs(ours_cfg, [])
            also = ""
        except Exception:  # noqa: BLE001
            also = " [checkmate-p4c's build refused too]"
        return "json-refused", kind + (str(e).splitlines() or [""])[0] + also
    try:
        ours = frame_outputs(ours_cfg, frames)
    except Exception as e:  # noqa: BLE001
        return "frames-differ", f"checkmate-p4c's build does not load: {type(e).__name__}: {e}"
    d = frames_differ(ours, theirs)
    return ("frames-differ", d) if d else ("", "")


def classify(src: Path, cache_root: Path, frames: bool = False) -> tuple[str, str]:
    if not is_v1model(program_text(src)):
        return "skip", "not v1model"
    ref = p4c_result(src, cache_root)
    try:
        prog = compile_file(str(src))
        ours = prog.p4info
        err = None
    except P4CompileError as e:
        ours, err = None, str(e)
    except RecursionError:
        ours, err = None, "crash: RecursionError"
    except Exception as e:  # an internal error is a finding, not a reason to stop measuring
        tb = traceback.extract_tb(e.__traceback__)[-1]
        ours, err = None, f"crash: {type(e).__name__}: {e} ({Path(tb.filename).name}:{tb.lineno})"
    if isinstance(ref, str):
        if err is None:
            return "accept", first_error(ref)
        if err.startswith("crash:"):
            return "crash-invalid", err
        return ("rejected" if _LOC.match(err) else "rejected-noloc"), err.splitlines()[0]
    if err is not None:
        detail = err.splitlines()[0]
        if frames:  # the BMv2 JSON loader on its own: p4c's JSON still has to load
            try:
                frame_outputs(_p4c_json_config(src, cache_root), probe_frames()[:1])
                detail += " [p4c JSON loads]"
            except Exception as e:  # noqa: BLE001
                detail += f" [p4c JSON refused: {(str(e).splitlines() or [''])[0]}]"
        return ("crash" if err.startswith("crash:") else "reject"), detail
    if frames:
        kind, detail = compare_frames(src, prog.device_config, cache_root)
        if kind:
            return kind, detail
    a, b = canonical_text(ref), canonical_text(ours)
    if a == b:
        return "ok", ""
    diff = [ln for ln in difflib.unified_diff(a.splitlines(), b.splitlines(), "p4c", "checkmate", lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    return "p4info", " | ".join(diff[:4])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT if DEFAULT_OUT.parent.is_dir() else None)
    ap.add_argument("-k", "--filter", default="", help="only programs whose file name contains this")
    ap.add_argument("--frames", action="store_true",
                    help="also run the same frames through checkmate-p4c's build and p4c's JSON (in-process)")
    args = ap.parse_args(argv)
    if p4c_path() is None:
        print("p4c is not installed (see ../shared/p4ref/README.md)", file=sys.stderr)
        return 2
    cache_root = Path(os.environ.get("CHECKMATE_CORPUS_CACHE")
                      or Path(tempfile.gettempdir()) / f"cmcorpus-p4c-{os.getuid()}")
    lines, counts = [], collections.Counter()
    for d in args.dirs:
        for src in sorted(d.rglob("*.p4")):
            if args.filter not in src.name:
                continue
            kind, detail = classify(src, cache_root, args.frames)
            counts[kind] += 1
            line = f"{kind:14} {src.name}" + (f"  {detail[:300]}" if detail else "")
            lines.append(line)
            print(line, flush=True)
    c = counts
    both = c["frames-differ"] + c["json-refused"]
    summary = [
        "",
        f"p4c accepts {c['ok'] + c['p4info'] + c['reject'] + c['crash'] + both}: checkmate-p4c compiles "
        f"{c['ok'] + c['p4info'] + both}, with P4Info equal {c['ok']}; rejects {c['reject']}, internal error {c['crash']}",
        f"p4c rejects {c['rejected'] + c['rejected-noloc'] + c['accept'] + c['crash-invalid']}: checkmate-p4c "
        f"rejects {c['rejected']} with file:line:col, {c['rejected-noloc']} without, internal error "
        f"{c['crash-invalid']}, accepts {c['accept']}",
        f"not v1model (skipped): {c['skip']}",
    ]
    if args.frames:
        summary.append(f"frames (both accept): the two front ends differ on {c['frames-differ']}, "
                       f"p4c's JSON refused by the loader {c['json-refused']}")
    print("\n".join(summary))
    if args.out:
        args.out.write_text("\n".join(lines + summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
