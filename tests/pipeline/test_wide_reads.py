"""A wildcard P4Runtime read of a counter, meter or register of a bit<32> size (``counter(-1)``: 2**32-1
cells) starts answering at once and holds no more than one batch of answers.

The cells of such an array are allocated lazily (externs.SparseCells), so checkmate-switch loads it
where the machine could hold BMv2's cells (runtime/bmv2_memory); its Read RPC built every cell's
answer before sending the first, and a fuzz_mutants run's wildcard counter read of ``counter(-1)``
(seed 4924 on the negative-size base, before bmv2_memory refused that size here) grew
checkmate-switch past 6 GB until a watchdog killed it (helper mutz51).  Each read runs in a child
process under an address-space limit, so the growth fails the test instead of the machine."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from switch.compiler import compile_source

REPO = Path(__file__).resolve().parents[2]

SRC = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<48> d; bit<48> s; bit<16> t; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control I(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    counter(32w0xffffffff, CounterType.packets_and_bytes) c;
    register<bit<16>>(32w0x7fffffff) r;
    meter(32w0x7fffffff, MeterType.packets) mt;
    apply { c.count(7); r.write(9, 0x1234); bit<2> col; mt.execute_meter(3, col); sm.egress_spec = 1; } }
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), C(), D()) main;
"""

CHILD = textwrap.dedent("""
    import resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    from p4.config.v1 import p4info_pb2
    from p4.v1 import p4runtime_pb2
    import switch.runtime.pipeline as pipeline_mod
    pipeline_mod.refuse_unallocatable = lambda ir: None   # (this machine's RAM + swap may not hold BMv2's cells)
    from switch.p4rt_server.service import P4RuntimeService
    from switch.p4rt_server.state import build_state

    class Device:
        packet_in_handler = None
        def install(self, pipeline): pass

    cfg = p4runtime_pb2.ForwardingPipelineConfig()
    cfg.p4info.ParseFromString(open(sys.argv[1], "rb").read())
    cfg.p4_device_config = open(sys.argv[2], "rb").read()
    svc = P4RuntimeService(Device())
    svc._state = st = build_state(cfg)
    st.pipeline.process(0, bytes(12) + b"\\x08\\x00")
    kind = sys.argv[3]
    req = p4runtime_pb2.ReadRequest(device_id=0)
    ent = req.entities.add()
    ids = {"counter": cfg.p4info.counters, "register": cfg.p4info.registers, "meter": cfg.p4info.meters}[kind]
    getattr(ent, kind + "_entry").SetInParent()
    setattr(getattr(ent, kind + "_entry"), kind + "_id", ids[0].preamble.id)
    t = time.monotonic()
    answers = svc.Read(req, None)
    seen = []
    for resp in answers:
        seen.extend(resp.entities)
        if len(seen) >= 2048:
            break
    answers.close()
    print(len(seen), round(time.monotonic() - t, 2), seen[7] if kind == "counter" else seen[9] if kind == "register" else seen[3])
""")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    prog = compile_source(SRC, "wide_reads.p4")
    d = tmp_path_factory.mktemp("wide")
    (d / "p4info.bin").write_bytes(prog.p4info.SerializeToString())
    (d / "config.json").write_text(json.dumps(prog.device_config))
    ir = prog.device_config   # (the P4Info's int32 size says 2**31-1 for the counter)
    assert [(o["name"], o["size"]) for k in ("counters", "registers", "meters") for o in ir[k]] == \
        [("I.c", 2**32 - 1), ("I.r", 2**31 - 1), ("I.mt", 2**31 - 1)]
    return d


@pytest.mark.parametrize("kind", ["counter", "register", "meter"])
def test_wildcard_read_of_a_bit32_array_streams(build, kind):
    """The first 2048 answers of a 2**32-1-cell wildcard read come within seconds, in index order,
    with the cells the frame wrote; before, Read built every cell's answer first (MemoryError here)."""
    r = subprocess.run([sys.executable, "-c", CHILD, str(build / "p4info.bin"), str(build / "config.json"), kind],
                       capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    n, secs, cell = r.stdout.split(" ", 2)
    assert int(n) >= 2048 and float(secs) < 30
    if kind == "counter":
        assert "index: 7" in cell and "packet_count: 1" in cell and "byte_count: 14" in cell
    elif kind == "register":
        assert "index: 9" in cell and 'bitstring: "\\0224"' in cell
    else:
        assert "index: 3" in cell and "config" not in cell   # never configured
