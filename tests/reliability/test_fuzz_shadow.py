"""Fuzzing a real shadow node (shadow.node.ShadowNode, real UDP and TCP on loopback).

10,000 malformed datagrams (random bytes, truncated headers, bad version/flags/dtype, huge counts,
wrong job, unowned params, out-of-range offsets, byte flips) go to the data port of a node bootstrapped
with a small real model that has already published iteration 1.  Each must be counted as ``rejected``
with ``last_error`` naming a header field; the published state must not change by a single bit, no
loss may be declared, and a valid iteration 2 must still complete bit-exactly afterwards.  The
management port gets garbage too.
"""
from __future__ import annotations

import random
import socket
import struct
import time

import pytest

from checkmate import wire
from shadow.packets import gradient_packets

from .conftest import JOB, bits_equal, state_bits

N = 10_000
FIELD_NAMES = {name for name, _ in wire.FIELDS}


def would_accept(d: bytes, node) -> bool:
    """True when the shadow's ingest rules (docs/SHADOW.md) must accept ``d`` -- such a datagram is
    not malformed, so it is kept out of the malformed corpus (forgeries are test_access's subject)."""
    try:
        t = wire.unpack_fields(d, 0, payload_len=len(d) - wire.HEADER_LEN)
    except wire.WireError:
        return False
    flags, dt, job, pid, off, count = t[1], t[2], t[4], t[8], t[9], t[10]
    if job != JOB or not flags & wire.FLAG_FINAL or flags & (wire.FLAG_ACK | wire.FLAG_CTRL):
        return False
    params = node._layout.params
    if pid not in node.owned or dt != wire.DTYPE_FP32 or off + count > params[pid].numel:
        return False
    return True


def malformed_corpus(valid: list[bytes], node, n: int, seed: int = 5) -> list[bytes]:
    rng = random.Random(seed)
    unowned = [p.param_id for p in node._layout.params if p.param_id not in node.owned]
    out, kinds = [], ("random", "trunc", "version", "flags", "dtype", "count", "job", "pid", "offset", "flip",
                      "notfinal", "empty")
    i = 0
    while len(out) < n:
        k = kinds[i % len(kinds)]
        i += 1
        b = bytearray(rng.choice(valid))
        if k == "random":
            b = bytearray(rng.randbytes(rng.randrange(0, 1500)))
        elif k == "trunc":
            b = b[:rng.randrange(0, len(b))]
        elif k == "version":
            b[0] = rng.choice([0, 2, 255, rng.randrange(2, 256)])
        elif k == "flags":
            b[1] = rng.randrange(16, 256)  # unknown flag bits
        elif k == "dtype":
            b[2] = rng.randrange(1, 256)
        elif k == "count":
            b[24:26] = rng.choice([0xFFFF, rng.randrange(400, 65536)]).to_bytes(2, "big")
        elif k == "job":
            b[4:8] = rng.choice([0, JOB + 1, 0xFFFFFFFF, rng.randrange(1 << 32)]).to_bytes(4, "big")
        elif k == "pid":
            b[16:20] = rng.choice(unowned + [len(node._layout.params), 0xFFFFFFFF,
                                             rng.randrange(1 << 32)]).to_bytes(4, "big")
        elif k == "offset":
            b[20:24] = rng.choice([0xFFFFFFFF, 1 << 31, rng.randrange(1 << 32)]).to_bytes(4, "big")
        elif k == "flip":
            for _ in range(rng.randint(1, 4)):
                j = rng.randrange(min(len(b), wire.HEADER_LEN))
                b[j] ^= 1 << rng.randrange(8)
        elif k == "notfinal":
            b[1] = rng.choice([0, wire.FLAG_ACK, wire.FLAG_CTRL, wire.FLAG_FINAL | wire.FLAG_ACK,
                               wire.FLAG_FINAL | wire.FLAG_CTRL, wire.FLAG_RETX])
        elif k == "empty":
            b = b[:rng.choice([0, 1, 31])]
        b = bytes(b)
        if not would_accept(b, node):
            out.append(b)
    return out


def _send_paced(sock, addr, datagrams, node, base: int, timeout: float = 40.0):
    """Send in bursts; wait (bounded) until the node has received each burst (no socket-buffer loss)."""
    sent = 0
    for k in range(0, len(datagrams), 500):
        for d in datagrams[k:k + 500]:
            sock.sendto(d, addr)
            sent += 1
        assert node.wait_for(lambda n: n.counters.packets - base >= sent, timeout), \
            f"node received {node.counters.packets - base} of {sent} datagrams within {timeout}s"


def _complete_iteration(node, run, it: int, sock) -> None:
    g = run.grads[it - 1]
    for d in gradient_packets(JOB, it, {p: g[p] for p in node.owned}):
        sock.sendto(d, node.data_address)
    node.manifest(run.manifests[it - 1])
    assert node.wait_for(lambda n: n.latest is not None and n.latest.iteration >= it, 20), \
        f"iteration {it} was not published: {node.status()}"
    params, opt = run.after[it - 1]
    st = node.fetch()
    assert st.iteration == it
    for p in node.owned:
        assert bits_equal(st.tensors[p], params[p]), f"param {p} differs at iteration {it}"
        for k, v in opt[p].items():
            assert bits_equal(st.opt_state[p][k], v), f"opt state {p}.{k} differs at iteration {it}"


@pytest.fixture
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    yield s
    s.close()


def test_shadow_rejects_10k_malformed_datagrams(shadow_node, small_run, udp):
    node = shadow_node
    _complete_iteration(node, small_run, 1, udp)
    published = state_bits(node.fetch())
    prev = node.fetch(0).iteration
    g2 = small_run.grads[1]
    valid2 = gradient_packets(JOB, 2, {p: g2[p] for p in node.owned}, elems=7)
    corpus = malformed_corpus(valid2, node, N)
    assert len(corpus) >= 10_000
    c0 = (node.counters.packets, node.counters.rejected, node.counters.duplicates, node.counters.losses)
    _send_paced(udp, node.data_address, corpus, node, c0[0])
    c = node.counters
    assert c.rejected - c0[1] == len(corpus), \
        (f"{c.rejected - c0[1]} of {len(corpus)} malformed datagrams counted as rejected "
         f"(duplicates +{c.duplicates - c0[2]}); last_error={c.last_error!r}")
    assert c.losses == c0[3], f"malformed input declared a loss: {c.last_error}"
    st = node.status()
    assert not st.needs_resync, f"malformed input forced a resync: {st.last_error}"
    assert state_bits(node.fetch()) == published, "published checkpoint changed under malformed input"
    assert node.fetch(prev).iteration == prev
    assert node._reasm.pending() == 0 or all(s.filled == 0 for s in node._reasm.slots.values()), \
        "malformed datagrams filled part of an iteration buffer"
    # a valid iteration still completes, bit for bit
    _complete_iteration(node, small_run, 2, udp)


def test_each_rejection_names_the_field(shadow_node, udp):
    node = shadow_node
    g = next(iter(gradient_packets(JOB, 1, {p: __import__("torch").ones(3) for p in node.owned[:1]})))
    unowned = next(p.param_id for p in node._layout.params if p.param_id not in node.owned)
    cases = {
        "version": b"", "flags": bytes([1, 0xF1]) + g[2:], "dtype": g[:2] + b"\x07" + g[3:],
        "count": g[:24] + b"\xff\xff" + g[26:], "job_id": g[:4] + (JOB + 1).to_bytes(4, "big") + g[8:],
        "param_id": g[:16] + unowned.to_bytes(4, "big") + g[20:],
        "offset": g[:20] + (1 << 30).to_bytes(4, "big") + g[24:],
    }
    cases["flags "] = g[:1] + bytes([wire.FLAG_FINAL | wire.FLAG_ACK]) + g[2:]
    trunc = g[:20]
    cases["version  "] = trunc
    cases["version   "] = bytes([9]) + g[1:]
    for field, d in cases.items():
        field = field.strip()
        base = node.counters.rejected
        udp.sendto(d, node.data_address)
        assert node.wait_for(lambda n: n.counters.rejected > base, 5), f"{field}: datagram not rejected"
        err = node.counters.last_error
        assert f"'{field}'" in err, f"rejection of a bad {field} does not name it: {err!r}"
    assert node.status().latest_iteration == 0 and not node.status().needs_resync


def _mgmt_exchange(addr, payload: bytes, timeout: float = 10.0) -> bytes:
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(payload)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        data = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                k = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not k:
                break
            data += k
        return data


def test_mgmt_port_survives_garbage(shadow_node):
    """Random bytes, bad magic, oversized lengths, non-JSON and hostile JSON on the management port:
    each is answered with an error naming the problem (or the connection is closed); nothing changes."""
    from shadow.client import ShadowClient
    from shadow.protocol import FRAME, MAGIC
    node = shadow_node
    before = state_bits(node.fetch())
    rng = random.Random(9)
    payloads = [rng.randbytes(rng.randrange(1, 300)) for _ in range(20)]
    payloads += [FRAME.pack(b"XXXX", 2, 0) + b"{}",
                 FRAME.pack(MAGIC, 5, 0) + b"{nope",
                 FRAME.pack(MAGIC, 2, 0) + b"[]",
                 FRAME.pack(MAGIC, 27, 0) + b'{"op":"fetch","body":{"x":1}}'[:27],
                 _frame(b'{"op":"bootstrap","body":{"$c":"os.system","cmd":"touch /tmp/pwn"}}'),
                 _frame(b'{"op":"manifest","body":{"$c":"Manifest","job_id":5}}'),
                 _frame(b'{"op":"fetch","body":{"$t":["float32",[1000000000000],0,4]}}')]
    for p in payloads:
        _mgmt_exchange(node.mgmt_address, p)
    with ShadowClient(*node.mgmt_address, timeout=10) as c:
        st = c.status()
    assert st.latest_iteration == 0 and not st.needs_resync
    assert state_bits(node.fetch()) == before


def _frame(header: bytes, blob: bytes = b"") -> bytes:
    from shadow.protocol import FRAME, MAGIC
    return FRAME.pack(MAGIC, len(header), len(blob)) + header + blob


def test_mgmt_huge_length_is_refused_before_allocating(shadow_node):
    """A 16-byte frame header claiming a 1 TiB blob must be refused with a message naming
    'blob_len' -- not answered by trying to allocate it (a memory DoS on the shadow)."""
    from shadow.protocol import FRAME, MAGIC
    reply = _mgmt_exchange(shadow_node.mgmt_address, FRAME.pack(MAGIC, 2, 1 << 40) + b"{}", timeout=10)
    assert b"blob_len" in reply, f"no error naming blob_len; reply {reply[:200]!r}"


HOSTILE_FRAMES = {
    "bad magic": lambda: __import__("shadow.protocol", fromlist=["FRAME"]).FRAME.pack(b"XXXX", 2, 0) + b"{}",
    "not JSON": lambda: _frame(b"{nope"),
    "JSON list": lambda: _frame(b"[]"),
    "unknown op": lambda: _frame(b'{"op":"format_disk","body":null}'),
    "unknown class": lambda: _frame(b'{"op":"bootstrap","body":{"$c":"os.system","cmd":"touch /tmp/x"}}'),
    "incomplete Manifest": lambda: _frame(b'{"op":"manifest","body":{"$c":"Manifest","job_id":5}}'),
    "tensor shape is an int": lambda: _frame(b'{"op":"status","body":{"$t":["float32",5,0,4]}}', bytes(64)),
    "tensor offset is a string": lambda: _frame(b'{"op":"status","body":{"$t":["float32",[1],"0",4]}}', bytes(64)),
    "map pair key unhashable": lambda: _frame(b'{"op":"status","body":{"$m":[[{"$m":[]},1]]}}'),
    "fetch iteration is a list": lambda: _frame(b'{"op":"fetch","body":{"$m":[["iteration",[1]]]}}'),
}


@pytest.mark.parametrize("what", list(HOSTILE_FRAMES))
def test_mgmt_hostile_frame_gets_error_reply(shadow_node, what):
    """Each hostile management frame is answered with an ``error`` reply (the client sees a ShadowError
    with a message), not a silently dropped connection; the node keeps serving."""
    from shadow.protocol import recv_message
    node = shadow_node
    with socket.create_connection(node.mgmt_address, timeout=10) as s:
        s.sendall(HOSTILE_FRAMES[what]())
        try:
            op, body = recv_message(s)
        except (ConnectionError, OSError) as e:
            op, body = None, f"connection dropped without a reply: {e}"
    assert op == "error", f"{what}: no error reply ({op!r}, {body!r}); log shows the handler thread died"
    assert isinstance(body, dict) and body.get("message"), body
    assert node.status().latest_iteration == 0


def test_mgmt_deep_nesting_in_child(tmp_path):
    """A 100 000-deep JSON body on the management port gets an error reply and the node keeps serving.
    Run in a child interpreter (a RecursionError in-process upsets CPython 3.11.7's AST recursion guard,
    which crashes pytest's traceback rendering later)."""
    import subprocess
    import sys
    code = f"""
import socket
from shadow.node import ShadowConfig, ShadowNode
from shadow.protocol import FRAME, MAGIC, recv_message
n = ShadowNode(ShadowConfig(job_id=1, shard=0, data=("127.0.0.1", 0), mgmt=("127.0.0.1", 0),
                            ckpt_dir={str(tmp_path)!r})).start()
try:
    h = b'{{"op":"status","body":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    with socket.create_connection(n.mgmt_address, timeout=10) as s:
        s.sendall(FRAME.pack(MAGIC, len(h), 0) + h)
        try:
            op, body = recv_message(s)
        except Exception as e:
            op, body = "NONE", repr(e)
    with socket.create_connection(n.mgmt_address, timeout=10) as s:
        s.sendall(FRAME.pack(MAGIC, 15, 0) + b'{{"op":"status"}}')
        op2, _ = recv_message(s)
    print("REPLY", op, op2)
finally:
    n.stop()
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=90)
    assert "REPLY error ok" in r.stdout, f"{r.stdout[-300:]} {r.stderr[-800:]}"
