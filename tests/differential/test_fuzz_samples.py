"""Random entries and frames (fuzz_samples_gen.py) through the repository's own programs -- the
conformance programs and the pipeline tests' programs -- on real p4c -> BMv2 and checkmate-p4c ->
checkmate-switch: same P4Info, same frames/digests/counters, and p4c's JSON on checkmate-switch
gives BMv2's output too.  Fixed seeds, one switch pair for the module.  Longer runs (p4c's sample
programs, more seeds): ``python -m tests.differential.fuzz_samples PATHS --seeds 0-3``."""
from __future__ import annotations

from pathlib import Path

import pytest

from diff_targets import bmv2_available
from fuzz_samples import judge
from fuzz_samples_gen import draws_random, generate, load

TESTS = Path(__file__).resolve().parents[1]
# programs with parsers of several levels, stacks, lookahead, many tables, clones/multicast,
# counters, meters and registers
PROGRAMS = [TESTS / "conformance/programs" / f"{n}.p4" for n in (
    "actions", "advance", "checksum", "const_entries", "ecmp", "fwd", "hash", "ipv6", "keys",
    "lookahead_hdr", "meters", "parser", "parser_loop", "replication", "stack", "stack_rt",
    "stateful", "tables")] + [TESTS / "pipeline/programs" / f"{n}.p4" for n in (
    "features", "options", "source_routing", "unions", "calc", "replicate")]
SEEDS = (0, 1)
SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"real-program differential needs real p4c + BMv2: {SKIP}")


def test_generator_is_deterministic_and_walks_the_parser():
    prog = load(TESTS / "conformance/programs/parser.p4")
    assert not prog.skip, prog.skip
    a, b = generate(prog, 3), generate(prog, 3)
    assert (a.frames, a.entries, a.defaults, a.mcast) == (b.frames, b.entries, b.defaults, b.mcast)
    assert generate(prog, 4).frames != a.frames
    # the frames follow the parser's select cases: several distinct EtherTypes/lengths appear
    assert len({f[12:14] for _, f in a.frames + generate(prog, 5).frames if len(f) >= 14}) >= 2


def test_a_program_drawing_random_numbers_differs_as_random(targets):
    """random() over a range: each switch draws from its own generator (random.p4 seeds 114-117
    differed, FRAMES and JSONPATH); such differences are RANDOM, not ours.  random() of one value
    is a constant."""
    def prim(lo, hi):
        hexs = lambda v: {"type": "hexstr", "value": hex(v)}  # noqa: E731
        return {"actions": [{"primitives": [{"op": "modify_field_rng_uniform", "parameters": [
            {"type": "field", "value": ["r", "r8"]}, hexs(lo), hexs(hi)]}]}]}
    assert draws_random(prim(10, 20)) and not draws_random(prim(7, 7))
    prog = load(TESTS / "conformance/programs/random.p4")
    assert prog.random and not prog.skip
    o = judge(targets, generate(prog, 114), 114, random=prog.random)
    assert not o.ours and {k for k, _ in o.findings} <= {"RANDOM"}, o.findings


def test_a_hidden_action_of_a_table_is_not_written(tmp_path):
    """A @hidden action a table lists is in its action_refs, not in P4Info's actions (diffcase
    fe_hidden_actions; the generator died on a KeyError at seed 114)."""
    from diffcases.base import program
    src = program("        t.apply();\n", ingress_decls="""
    @hidden action ht(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { ht; NoAction; } }""")
    (tmp_path / "hidden.p4").write_text(src)
    prog = load(tmp_path / "hidden.p4")
    for seed in range(114, 120):
        case = generate(prog, seed)
        assert {e.action for e in case.entries + case.defaults} <= {"NoAction"}


def test_no_entry_for_a_table_p4c_left_out_of_its_json(tmp_path):
    """A P4Info table p4c's mid end removed from the JSON (applied only in a folded branch): BMv2
    refuses every INSERT, which ended the case as BMV2-DIED (diffcase fuzzm_table_only_in_folded_branch,
    seeds 114-115); no entries are written to it."""
    from diffcases import all_cases
    src = next(c.source for c in all_cases() if c.name == "fuzzm_table_only_in_folded_branch")
    (tmp_path / "folded.p4").write_text(src)
    prog = load(tmp_path / "folded.p4")
    in_json = {t["name"] for pipe in prog.json["pipelines"] for t in pipe["tables"]}
    assert {t.preamble.name for t in prog.p4info.tables} - in_json
    for seed in range(114, 122):
        assert {e.table for e in generate(prog, seed).entries} <= in_json


def test_no_two_entries_equal_under_a_keys_json_mask(tmp_path):
    """A key p4c writes as ``field & constant`` (the JSON key's ``mask``): BMv2 masks every entry's
    value, so ``6`` and ``0`` of ``sm.ingress_port & 0x1f1`` are one key (DUPLICATE_ENTRY, UNKNOWN),
    which ended the case as BMV2-DIED (diffcase program keys39_masked_standard_metadata_keys_mask_
    the_entries_ingress_and_egress, seeds 134-135); the generator keeps one of them."""
    from diffcases import all_cases
    src = next(c.source for c in all_cases()
               if c.name == "keys39_masked_standard_metadata_keys_mask_the_entries_ingress_and_egress")
    (tmp_path / "masked.p4").write_text(src)
    prog = load(tmp_path / "masked.p4")
    for seed in range(130, 150):
        keys = [(e.table, v & 0x1f1) for e in generate(prog, seed).entries for v in e.match.values()]
        assert len(keys) == len(set(keys)), (seed, keys)


def test_lpm_values_have_the_trailing_zeros_bmv2_wants(tmp_path):
    """BMv2 counts an lpm prefix from the top of the field's byte container: ``1/9`` of the 9-bit
    ``sm.ingress_port`` is PI's INVALID_ARGUMENT ("incorrect number of trailing zeros"), which ended
    the case as BMV2-DIED (diffcase program fz_lpm_prefix_on_field_not_whole_bytes, seeds 134-135)."""
    from diffcases import all_cases
    from switch.runtime.tables import lpm_mask
    src = next(c.source for c in all_cases() if c.name == "fz_lpm_prefix_on_field_not_whole_bytes")
    (tmp_path / "lpm.p4").write_text(src)
    prog = load(tmp_path / "lpm.p4")
    widths = {(t.preamble.name, f.name): f.bitwidth for t in prog.p4info.tables for f in t.match_fields}
    n = 0
    for seed in range(130, 150):
        for e in generate(prog, seed).entries:
            for k, v in e.match.items():
                if isinstance(v, tuple) and widths[(e.table, k)] == 9:
                    n += 1
                    assert v[0] & ~lpm_mask(9, v[1]) == 0, (seed, e)
    assert n


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_real_program_random_writes_and_frames(targets, path):
    prog = load(path)
    assert not prog.skip, f"{path}: {prog.skip}"
    for seed in SEEDS:
        case = generate(prog, seed)
        o = judge(targets, case, seed)
        assert o.p4c_ok
        assert not o.ours, (f"{path} seed {seed} (python -m tests.differential.fuzz_samples {path} "
                                f"--seeds {seed} --print):\n" + "\n".join(f"{k}: {t[:3000]}" for k, t in o.findings))
