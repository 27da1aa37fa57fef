"""validate_device_config: the IR the compiler writes passes; an IR whose names or
literals would be pasted unchecked into the runtime's generated Python does not."""
import copy
import json
from pathlib import Path

import pytest

from p4c_helpers import program
from switch.compiler import compile_file, compile_source
from switch.compiler.ir_check import InvalidDeviceConfig, validate_device_config
from checkmate.paths import P4SRC

KEYWORDS = program(
    top="struct d_t { bit<8> from; bit<8> pass; }",
    locals="""    action pass(bit<8> from) { hdr.h.a = from; }
    table global { key = { hdr.h.a: exact; hdr.h.b[7:0]: exact @name("lo"); } actions = { pass; NoAction; } }""",
    body="""        global.apply(); bit<8> yield = 1; m.x = yield;
        digest<d_t>(1, {hdr.h.a, m.x});
        log_msg("it's {} \\" '''", {hdr.h.a});""")


@pytest.fixture(scope="module")
def checkmate_ir():
    return compile_file(P4SRC / "checkmate.p4").device_config


def test_compiler_output_is_valid(checkmate_ir):
    assert validate_device_config(checkmate_ir) is checkmate_ir
    # a JSON round trip (what the switch loads from a file) is still valid
    validate_device_config(json.loads(json.dumps(checkmate_ir)))


PROGRAMS = sorted(str(p) for d in ("pipeline", "conformance", "switch_proc")
                  for p in (Path(__file__).resolve().parents[1] / d / "programs").glob("*.p4"))


def test_every_test_program_is_valid():
    assert PROGRAMS
    for p in PROGRAMS:
        validate_device_config(compile_file(p).device_config)


def test_p4_names_that_are_python_keywords_are_valid():
    validate_device_config(compile_source(KEYWORDS, "kw.p4").device_config)


def _find(ir, pred, path=()):
    """Paths of every (container, key) whose value satisfies pred."""
    out = []
    items = ir.items() if isinstance(ir, dict) else enumerate(ir) if isinstance(ir, list) else ()
    for k, v in items:
        if pred(k, v):
            out.append((ir, k))
        out.extend(_find(v, pred, path + (k,)))
    return out


INJECT = "x\n__import__('os').system('touch /tmp/pwned')#"


@pytest.mark.parametrize("key", ["n", "py", "f", "obj", "hdr", "name", "alias", "to", "table", "s", "op"])
def test_injected_names_are_rejected(checkmate_ir, key):
    sites = _find(checkmate_ir, lambda k, v: k == key and isinstance(v, str))
    if not sites:
        pytest.skip(f"no {key!r} in the program")
    for container, k in sites[:: max(1, len(sites) // 5)]:
        ir = copy.deepcopy(checkmate_ir)
        # replay the path in the copy: find the same container by identity in the original
        bad = _replace(checkmate_ir, ir, container, k, INJECT)
        with pytest.raises(InvalidDeviceConfig) as ei:
            validate_device_config(bad)
        assert isinstance(ei.value, ValueError) and "invalid device config at" in str(ei.value)


def _replace(orig, cp, target, key, value):
    stack = [(orig, cp)]
    while stack:
        o, c = stack.pop()
        if o is target:
            c[key] = value
            return cp
        if isinstance(o, dict):
            stack.extend((o[k], c[k]) for k in o)
        elif isinstance(o, list):
            stack.extend(zip(o, c))
    raise AssertionError("container not found")


@pytest.mark.parametrize("mutate,where", [
    (lambda ir: ir.__setitem__("format", "other/1"), "format"),
    (lambda ir: ir.pop("tables"), "tables"),
    (lambda ir: ir.__setitem__("actions", {}), "actions"),
    (lambda ir: ir["headers"].__setitem__("h'); import os; ('", ir["headers"].pop(next(iter(ir["headers"])))),
     "headers"),
    (lambda ir: ir["headers"].__setitem__("__class__", {}), "headers"),
    (lambda ir: ir["tables"][0].__setitem__("id", "1); import os; (1"), "tables[0].id"),
    (lambda ir: ir["tables"][0].__setitem__("id", 1.5), "tables[0].id"),
    (lambda ir: ir["tables"][0].__setitem__("size", -1), "tables[0].size"),
    (lambda ir: ir["tables"][0].__setitem__("size", 1 << 200000), "tables[0].size"),
    (lambda ir: ir["registers"][0].__setitem__("width", 10 ** 9), "registers[0].width"),
    (lambda ir: ir["structs"]["standard_metadata_t"]["fields"][0].__setitem__(1, ["bit", 10 ** 9]),
     "structs.standard_metadata_t.fields[0][1]"),
    (lambda ir: ir["structs"]["standard_metadata_t"]["fields"][0].__setitem__(1, ["code", 8]),
     "structs.standard_metadata_t.fields[0][1]"),
    (lambda ir: ir["structs"]["standard_metadata_t"]["fields"][0].__setitem__(1, ["stack", "h", 1 << 40]),
     "structs.standard_metadata_t.fields[0][1]"),
    (lambda ir: ir["tables"][0]["keys"][0].__setitem__("name", "a'b"), "tables[0].keys[0].name"),
    (lambda ir: ir["actions"][0].__setitem__("py", "lambda"), None),
    (lambda ir: ir["actions"][0].__setitem__("py", "os.__class__"), None),
])
def test_malformed_configs_are_rejected(checkmate_ir, mutate, where):
    ir = copy.deepcopy(checkmate_ir)
    mutate(ir)
    with pytest.raises(InvalidDeviceConfig) as ei:
        validate_device_config(ir)
    if where is not None:
        assert ei.value.path == where, str(ei.value)


def test_wrong_operator_is_rejected(checkmate_ir):
    ir = copy.deepcopy(checkmate_ir)
    sites = _find(ir, lambda k, v: k == "o")
    assert sites
    container, k = sites[0]
    container[k] = "+ __import__('os').getpid() +"
    with pytest.raises(InvalidDeviceConfig, match="unknown operator"):
        validate_device_config(ir)


def test_free_text_is_allowed_where_it_is_only_repr_d():
    ir = compile_source(KEYWORDS, "kw.p4").device_config
    ir["program"] = "my prog (v2)"
    validate_device_config(ir)


def test_assert_location_is_text_and_the_program_runs():
    """An assert/assume keeps its source location (any path, quotes too) as text: the config
    loads, a holding assert forwards, a failing one drops the packet (simple_switch exits)."""
    from switch.runtime import Pipeline
    src = program(body="        assert(hdr.h.a != 0); assume(true); sm.egress_spec = 2;")
    ir = compile_source(src, "it's a \"dir\"/x y.p4").device_config
    assert "it's" in json.dumps(ir)
    validate_device_config(ir)
    pl = Pipeline(ir)
    assert pl.process(1, b"\x05\x00\x01\x02") == [(2, b"\x05\x00\x01\x02")]
    assert pl.process(1, b"\x00\x00\x01\x02") == []


@pytest.mark.parametrize("cfg", [None, [], "x", 1, {"format": "checkmate-v1model-ir/1"}])
def test_not_a_config(cfg):
    with pytest.raises(InvalidDeviceConfig):
        validate_device_config(cfg)


def test_deep_nesting_is_rejected_without_recursion(checkmate_ir):
    ir = copy.deepcopy(checkmate_ir)
    e = {"op": "const", "v": 1, "t": ["bit", 8]}
    for _ in range(100000):
        e = {"op": "un", "o": "~", "a": e, "t": ["bit", 8]}
    ir["blocks"]["ingress"]["body"] = [{"s": "assign", "l": e, "r": e}]
    with pytest.raises(InvalidDeviceConfig, match="nested more than"):
        validate_device_config(ir)


def test_select_ranges_beyond_bit_positions_are_values_not_slices():
    """``lo``/``hi`` are also select-range bounds (values up to the field's maximum), not only slice
    bit positions: a range such as 0x8000..0xFFFF must pass the validator and run."""
    from pathlib import Path

    from switch.compiler import compile_file
    from switch.runtime import Pipeline

    prog = compile_file(Path(__file__).parent / "programs" / "wide_select_range.p4")
    validate_device_config(prog.device_config)
    out = Pipeline(prog.device_config).process(0, b"\x90\x00" + bytes(20))
    assert out == [(1, b"\x90\x00" + bytes(20))]


NON_IDENT_NAMES = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    @name("se|t\u00e9") action set(bit<8> v) { hdr.h.a = v; }
    @name("pre|fix<>]{/t\u00e9\u25d5\U0001F600") table t {
        key = { hdr.h.a: exact @name("k\u00e9 |x"); } actions = { set; NoAction; } default_action = set(7); }
    apply { t.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_table_names_that_are_not_identifiers_load_and_run():
    """p4c keeps any @name text (its sample nonstandard_table_names-bmv2): table and action
    names, aliases, references and key names may be printable text without quotes or
    backslashes; the generator only uses them through repr() (the trace lines)."""
    from switch.runtime import Pipeline

    ir = json.loads(json.dumps(compile_source(NON_IDENT_NAMES, "names.p4").device_config))
    assert ir["tables"][0]["alias"] == "pre|fix<>]{/t\u00e9\u25d5\U0001F600"
    validate_device_config(ir)
    pipe = Pipeline(copy.deepcopy(ir))
    trace: list[str] = []
    pipe.trace = trace.append
    assert pipe.process(0, b"\x01") == [(0, b"\x07")]
    assert any(line.startswith("table I.pre|fix<>]{/t\u00e9") for line in trace), trace
    assert "action I.se|t\u00e9" in trace, trace
    for bad in ("t'x", 't"x', "t\\x", "t\nx"):
        for where in (lambda c: c["tables"][0], lambda c: c["actions"][0]):
            ir2 = copy.deepcopy(ir)
            where(ir2)["alias"] = bad
            with pytest.raises(InvalidDeviceConfig, match="unsafe characters"):
                validate_device_config(ir2)


def test_stack_size_bound_is_the_compilers(checkmate_ir):
    """One bound for a header stack's size, checkmate-p4c's MAX_STACK_SIZE, in ir_check too (it used
    the array bound 2**24): a stack of 2**20 passes, one more is refused (helper regs)."""
    from switch.compiler.elab_types import MAX_STACK_SIZE
    assert MAX_STACK_SIZE == 1 << 20
    ir = copy.deepcopy(checkmate_ir)
    field = ir["structs"]["standard_metadata_t"]["fields"][0]
    field[1] = ["stack", "h", MAX_STACK_SIZE]
    validate_device_config(ir)
    field[1] = ["stack", "h", MAX_STACK_SIZE + 1]
    with pytest.raises(InvalidDeviceConfig, match=f"size in 0..{MAX_STACK_SIZE}"):
        validate_device_config(ir)


def test_stack_deeper_than_2_16_compiles_and_runs():
    """p4c sets no limit on a stack's size and simple_switch 1.15.5 loads a JSON stack of 70000 (helper
    regs); checkmate-p4c refused more than 2**16 ("a stack size must be <= 65536")."""
    from switch.runtime import Pipeline
    src = program(top="header m_t { bit<8> v; }", locals="    m_t[70000] ms;",
                  body="        ms[69999].setValid(); ms[69999].v = hdr.h.a + 1; hdr.h.c = ms[69999].v; "
                       "sm.egress_spec = 1;")
    pl = Pipeline(compile_source(src, "deep_stack.p4").device_config)
    assert pl.process(0, bytes([4, 0, 0, 0])) == [(1, bytes([4, 0, 0, 5]))]
