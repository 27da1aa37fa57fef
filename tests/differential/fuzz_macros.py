"""Random macro programs through our preprocessor and through GNU cpp, as p4c runs it (``cc -E -C
-undef -nostdinc -x assembler-with-cpp``), compared token by token (issue #15).  Only ``cc`` is
needed, neither p4c nor BMv2.

The programs are :mod:`fuzz_macros_gen`'s (``--kind macros|comments|ifs``, deterministic per seed).
Each is written to ``prog.p4`` in a scratch folder and preprocessed by both sides:

* ours: :meth:`switch.compiler.preprocessor.Preprocessor.run_text`, its ``Line`` records (file,
  line, text) -- what the P4 lexer reads;
* cpp: its output, whose line markers (``# N "prog.p4" ...``) give each later line its number (a
  ``#`` line that is no directive, which cpp prints after expanding it, is left out: p4c's lexer
  skips it, ours prints it blank), and its first ``error:`` on stderr.

Both texts are cut into C preprocessing tokens (:func:`tokens`: names, pp-numbers, string and
character literals, punctuators; comments dropped -- cpp -C keeps the comments of text lines, ours
blanks them, and a comment cpp puts inside a stringified argument stays in the string on both sides).
``--mode 1`` compares the token sequences, ``--mode 2`` (default) also each token's line number (a
``__LINE__``, a call over several lines, a splice, a multi-line string shift what p4c names in its
errors).  Where either side refuses the program both must, and in mode 2 on the same line and column.

CLI (progress on stderr, a summary at the end, exit status 1 where something differed)::

    python -m tests.differential.fuzz_macros --kind ifs --seeds 0-2000 [--mode 1] [--out DIR] [--reduce]
    python -m tests.differential.fuzz_macros --kind comments --seeds 17 --print

Each difference is written to ``OUT/<kind>-<seed>/`` (``prog.p4``, ``diff.txt``; with ``--reduce`` also
``reduced.p4``: :func:`reduce` removes lines, then blocks of lines, while the same mode still differs).
The CI runs fixed seeds of every kind (``tests/p4c/test_fuzz_macros.py``).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_macros_gen import KINDS, generate  # noqa: E402

CPP = ["cc", "-E", "-C", "-undef", "-nostdinc", "-x", "assembler-with-cpp"]
NAME = "prog.p4"
_MARKER = re.compile(r'# (\d+) "([^"]*)"( \d)*$')
_ERROR = re.compile(rf"^{re.escape(NAME)}:(\d+):(\d+): error: (.*)$", re.M)
_TOKEN = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*|\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*|"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\\n])*'?"""
                    r"|%:%:|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|##|<:|:>|<%|%>|%:|\S")


def cc_available() -> str | None:
    """None where ``cc`` runs, else why not."""
    return None if shutil.which("cc") else "cc (GNU cpp, what p4c preprocesses with) is not on PATH"


def tokens(lines) -> list[tuple[int, str]]:
    """``(line, token)`` of ``(line number, text)`` pairs, comments dropped.  A ``/* */`` comment and a
    string may run on over lines (a stringified argument holding a comment written over lines: the
    string goes on, cpp57); the token counts on the line where it starts."""
    text, starts = "", []
    for no, t in lines:
        starts.append((len(text), no))
        text += t + "\n"
    out, i, k = [], 0, 0
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = len(text) if j < 0 else j + 2
        elif text.startswith("//", i):
            i = text.find("\n", i)
        else:
            m = _TOKEN.match(text, i)
            while k + 1 < len(starts) and starts[k + 1][0] <= i:
                k += 1
            out.append((starts[k][1], m.group(0)))
            i = m.end()
    return out


class Result:
    """One side's view of a program: its tokens with their lines, or its error ``(line, col, message)``."""

    def __init__(self, toks=None, error=None):
        self.toks, self.error = toks, error

    def __repr__(self):
        return f"error {self.error}" if self.error else f"{len(self.toks)} tokens"


def ours(text: str) -> Result:
    from switch.compiler.errors import P4CompileError
    from switch.compiler.preprocessor import Preprocessor
    try:
        lines = Preprocessor().run_text(text, NAME)
    except P4CompileError as e:
        return Result(error=(e.loc.line, e.loc.col, e.message))
    except RecursionError:
        return Result(error=(0, 0, "CRASH: RecursionError"))
    return Result(toks=tokens((ln.line, ln.text) for ln in lines if ln.file == NAME))


def cpp(text: str, work: str) -> Result:
    path = os.path.join(work, NAME)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    p = subprocess.run(CPP + [NAME], cwd=work, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        m = _ERROR.search(p.stderr)
        return Result(error=(int(m.group(1)), int(m.group(2)), m.group(3)) if m else (0, 0, p.stderr.strip()[-300:]))
    lines, no, here = [], 1, False
    for raw in p.stdout.split("\n"):
        m = _MARKER.match(raw)
        if m:
            no, here = int(m.group(1)), m.group(2) == NAME
            continue
        if here and not raw.lstrip().startswith("#"):   # (p4c's lexer skips a line cpp passed through)
            lines.append((no, raw))
        no += 1
    return Result(toks=tokens(lines))


def differs(a: Result, b: Result, mode: int) -> str | None:
    """Why ours (``a``) and cpp's (``b``) differ in ``mode`` (1: tokens, 2: tokens and lines), or None."""
    if a.error or b.error:
        if not (a.error and b.error):
            return f"ours {a!r}, cpp {b!r}"
        if mode == 2 and a.error[:2] != b.error[:2]:
            return f"error at ours {a.error}, cpp {b.error}"
        return None
    x = [t for _, t in a.toks] if mode == 1 else a.toks
    y = [t for _, t in b.toks] if mode == 1 else b.toks
    if x == y:
        return None
    k = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return (f"token {k} (of {len(x)} ours, {len(y)} cpp): ours {x[max(0, k - 3):k + 4]}, "
            f"cpp {y[max(0, k - 3):k + 4]}")


def check(text: str, mode: int, work: str) -> str | None:
    return differs(ours(text), cpp(text, work), mode)


def _kind(why: str | None) -> str | None:
    """The kind of a difference: tokens, error positions, or one side refusing."""
    return why and ("token" if why.startswith("token") else why.split(" ")[0] + " " + why.split(" ")[1])


def reduce(text: str, mode: int, work: str, budget: int = 400) -> str:
    """Greedy line removal (blocks of lines, halving, then single lines) while ``mode`` still differs
    the same way (:func:`_kind`)."""
    kind = _kind(check(text, mode, work))
    lines = text.split("\n")
    size = max(1, len(lines) // 2)
    while size >= 1 and budget > 0:
        i = 0
        while i < len(lines) and budget > 0:
            cand = lines[:i] + lines[i + size:]
            budget -= 1
            if _kind(check("\n".join(cand), mode, work)) == kind:
                lines = cand
            else:
                i += size
        size //= 2
    return "\n".join(lines)


def run(kinds, seeds, mode: int = 2, out: Path | None = None, reduce_: bool = False, log=sys.stderr) -> dict:
    """Every seed of every kind; ``{kind: [seeds that differ]}`` and counts."""
    failing, counts, t0 = {}, {}, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz_macros") as work:
        for kind in kinds:
            failing[kind], counts[kind] = [], {"seeds": 0, "errors": 0}
            for n, seed in enumerate(seeds):
                text = generate(seed, kind)
                a, b = ours(text), cpp(text, work)
                why = differs(a, b, mode)
                counts[kind]["seeds"] += 1
                counts[kind]["errors"] += bool(b.error)
                if why:
                    failing[kind].append(seed)
                    print(f"{kind} seed {seed}: {why}", file=log, flush=True)
                    if out is not None:
                        d = out / f"{kind}-{seed}"
                        d.mkdir(parents=True, exist_ok=True)
                        (d / "prog.p4").write_text(text, encoding="utf-8")
                        (d / "diff.txt").write_text(f"mode {mode}: {why}\n", encoding="utf-8")
                        if reduce_:
                            (d / "reduced.p4").write_text(reduce(text, mode, work) + "\n", encoding="utf-8")
                if (n + 1) % 200 == 0:
                    print(f"[{kind} {n + 1}/{len(seeds)} {time.monotonic() - t0:.0f}s] {len(failing[kind])} differ",
                          file=log, flush=True)
    return {"failing": failing, "counts": counts}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    ap.add_argument("--seeds", default="0-199", help="e.g. 0-500 or 3,17,40-45")
    ap.add_argument("--mode", type=int, choices=(1, 2), default=2, help="1: tokens; 2: tokens and their lines")
    ap.add_argument("--out", default=None, help="where differences are written (one folder per kind and seed)")
    ap.add_argument("--reduce", action="store_true", help="also write a reduced program of each difference")
    ap.add_argument("--print", action="store_true", help="print the seeds' programs, run nothing")
    a = ap.parse_args(argv)
    from fuzz_run import parse_seeds   # (the fuzzers' one seed-list reader; here only for the CLI)
    kinds, seeds = [k for k in a.kind.split(",") if k], parse_seeds(a.seeds)
    if a.print:
        for k in kinds:
            for s in seeds:
                print(f"// {k} seed {s}\n{generate(s, k)}")
        return 0
    why = cc_available()
    if why:
        print(why, file=sys.stderr)
        return 2
    res = run(kinds, seeds, a.mode, Path(a.out) if a.out else None, a.reduce)
    for k in kinds:
        c = res["counts"][k]
        print(f"{k}: {c['seeds']} seeds (cpp refused {c['errors']}), mode {a.mode}, "
              f"{len(res['failing'][k])} differ {res['failing'][k][:50]}")
    return 1 if any(res["failing"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
