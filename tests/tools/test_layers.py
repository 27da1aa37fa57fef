"""The project's import graph: no cycle anywhere (function-level imports included -- a lazy import
hides a cycle from Python, not from a reader), and the layers only import downwards:

    checkmate (wire, paths) < switch < controller < shadow < trainer_hooks < topologies < benchmarks

(`checkmate.cli`, the command line over everything, sits on top).  The graph is read from the
sources with `ast`, so nothing is imported to check it."""
from __future__ import annotations

import ast
from pathlib import Path

from checkmate.paths import ROOT

LAYERS = ["checkmate", "switch", "controller", "shadow", "trainer_hooks", "topologies", "benchmarks"]
TOP = {"checkmate.cli"}


def module_files() -> dict[str, Path]:
    out = {}
    for top in LAYERS:
        for f in (ROOT / top).rglob("*.py"):
            parts = f.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports.  ``from pkg import sub`` is an edge to ``pkg.sub``
    (and to ``pkg`` only when it also takes a name defined there)."""
    g: dict[str, set[str]] = {m: set() for m in files}
    for m, f in files.items():
        pkg = m if f.name == "__init__.py" else m.rpartition(".")[0]
        for n in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(n, ast.Import):
                g[m] |= {a.name for a in n.names if a.name in files}
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg.split(".")[:len(pkg.split(".")) - (n.level - 1)]
                    name = ".".join(base + ([n.module] if n.module else []))
                else:
                    name = n.module or ""
                subs = {f"{name}.{a.name}" for a in n.names} & files.keys()
                g[m] |= subs
                if name in files and len(subs) < len(n.names):
                    g[m].add(name)
    for m in g:
        g[m].discard(m)
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter; counter += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter; counter += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop(); on.discard(x); comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def upward_imports(g: dict[str, set[str]]) -> list[tuple[str, str]]:
    rank = {t: i for i, t in enumerate(LAYERS)}
    return sorted((m, d) for m, ds in g.items() for d in ds
                  if m not in TOP and rank[m.split(".")[0]] < rank[d.split(".")[0]])


def test_the_checks_see_a_cycle_and_an_upward_import():
    g = {"switch.a": {"switch.b"}, "switch.b": {"switch.c"}, "switch.c": {"switch.a"},
         "controller.x": {"switch.a"}, "shadow.y": {"topologies.z"}, "topologies.z": set()}
    assert cycles(g) == [["switch.a", "switch.b", "switch.c"]]
    assert upward_imports(g) == [("shadow.y", "topologies.z")]


def test_the_graph_reads_relative_and_lazy_imports():
    g = import_graph(module_files())
    assert "switch.compiler.stale_stack" in g["switch.compiler.const_index"]      # from .stale_stack import
    assert "benchmarks.scale" in g["benchmarks.suite"]                            # inside a function
    assert "controller.topology_load" in g["controller.topology"]


def test_no_import_cycle():
    assert cycles(import_graph(module_files())) == []


def test_layers_only_import_downwards():
    assert upward_imports(import_graph(module_files())) == []
