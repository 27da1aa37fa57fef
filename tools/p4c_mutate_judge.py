"""Judging one mutant for tools/p4c_mutate.py (moved out of it to keep it short, helper mutz26):
real p4c's verdict (cached by the mutant's hash), checkmate-p4c's in-process compile, and the
verdict line's class (see p4c_mutate's docstring); ``bases`` picks the base programs."""
from __future__ import annotations

import hashlib
import re
import traceback
from pathlib import Path

from switch.bmv2json.p4c import run_p4c_cached
from switch.compiler import P4CompileError, compile_file
from tools.p4c_mutate_entries import entries_differ
from tools.p4c_mutate_p4info import p4info_differs

_LOC = re.compile(r"^\S+\.p4:(\d+):\d+: ")
_P4C_POS = re.compile(r"^\S+\(\d+\)(?::\s*|$)")
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"', re.M)


def p4c_verdict(path: Path, cache_root: Path) -> str | None:
    """None when p4c accepts ``path``, else its first error line."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    r = run_p4c_cached(path, cache_root / f"p4c-{digest}")
    if not isinstance(r, str):
        return None
    lines = [ln.strip() for ln in r.splitlines() if ln.strip()]
    # (an error line, not a warning whose file name says "error": fe_error_*.p4 -- mutz26's `far` seed 171)
    errs = [ln for ln in lines if "error" in (rest := _P4C_POS.sub("", ln).lower()) and not rest.startswith("[--wwarn")]
    # (and the position an error's "Originating from:" names: `file(22): 'match' case label ...`)
    errs[1:1] = [ln for i, ln in enumerate(lines) if i and lines[i - 1].endswith("Originating from:")][:1]
    return " ".join((errs or lines or ["(no output)"])[:2])[:300]


def ours_verdict(path: Path) -> tuple[str, str]:
    """('ok'|'error'|'crash', message)."""
    try:
        compile_file(str(path))
        return "ok", ""
    except P4CompileError as e:
        return "error", str(e).splitlines()[0][:300]
    except RecursionError:
        return "crash", "RecursionError"
    except Exception as e:  # noqa: BLE001 -- an internal error is a finding
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "crash", f"{type(e).__name__}: {str(e)[:200]} ({Path(tb.filename).name}:{tb.lineno})"


def judge(path: Path, mline: int, cache_root: Path) -> tuple[str, str, str]:
    ref = p4c_verdict(path, cache_root)
    kind, msg = ours_verdict(path)
    if kind == "crash":
        return "CRASH", ref or "(p4c accepts)", msg
    if ref is None:   # (both accept: the P4Infos compared, p4c_mutate_p4info, then the const entries)
        diff = p4info_differs(path, cache_root) if kind == "ok" else ""
        if diff:
            return "P4INFO", "", diff
        diff = entries_differ(path, cache_root) if kind == "ok" else ""
        return ("ENTRIES" if diff else "agree-accept" if kind == "ok" else "REJECT"), "", diff or msg
    if kind == "ok":
        return "INVALID-ACCEPTED", ref, ""
    m = _LOC.match(msg)
    if not m:
        return "NOLOC", ref, msg
    line = int(m.group(1))
    # (p4c's output is cached by the text: the same mutant of another base names that one's file --
    # `tbl_lpm_default_route-dup_apply-<hash>.p4(49)` for `tbl_lpm-dup_apply-<hash>.p4`, mutz28's `far`)
    p4c_lines = {int(x) for x in re.findall(r"(?:^|[\s/])" + _same_text(path.name) + r"\((\d+)\)", ref)}
    where = "near" if abs(line - mline) <= 3 else "p4cline" if line in p4c_lines else "far"
    return f"agree-reject {where}", ref, msg


def _same_text(name: str) -> str:
    """A pattern of the file names of mutants with the text of ``name`` (``<base>-<kind>-<hash>.p4``:
    any base), else of ``name`` itself."""
    m = re.fullmatch(r".+(-\w+-[0-9a-f]{12}\.p4)", name)
    return r"[^\s/()]*" + re.escape(m.group(1)) if m else re.escape(name)


def bases(dirs: list[Path]) -> list[Path]:
    out = []
    for d in dirs:
        for p in sorted(d.rglob("*.p4")):
            t = p.read_text(errors="replace")
            if "v1model.p4" in t and "V1Switch" in t and not _LOCAL_INCLUDE.search(t):
                out.append(p)
    return out
