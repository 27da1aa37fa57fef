"""checkmate.p4 on a real checkmate-switch process (loopback UDP-tunnel ports), programmed
by the controller over P4Runtime: copies leave on the shadows' ports, rewritten, exactly once."""
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether



def test_copies_through_the_switch_process(star_process, mkframe):
    topo, sw = star_process
    sent = []
    for shard, param_id in ((0, 1), (1, 7)):
        f = mkframe(topo, "h1", "h2", param_id=param_id, count=64, iteration=2)
        sent.append(f)
        sw.send(1, f)
        orig = sw.recv(2, timeout=5)
        shadow = topo.shadow_for_shard(shard)
        port = topo.attachment(shadow.name).port
        copy = sw.recv(port, timeout=5)
        assert orig is not None and copy is not None, "original and copy must both arrive"
        assert orig[42:] == f[42:] and Ether(orig)[IP].dst == "10.77.0.2"
        c = Ether(copy)
        assert c.dst == shadow.mac and c[IP].dst == shadow.ip and c[UDP].dport == shadow.udp_port
        assert c[UDP].chksum == 0 and copy[42:] == f[42:]
    # untagged: forwarded, not copied
    sw.send(1, mkframe(topo, "h1", "h3", flags=0))
    assert sw.recv(3, timeout=5) is not None
    for p in (4, 5):
        assert sw.drain(p, timeout=0.3) == [], f"unexpected copy on port {p}"
    # the copy counters, read over P4Runtime by checkmate-ctl
    import contextlib
    import io
    import json

    from controller import cli
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--switch", topo.switches["s1"].grpc_addr, "--json", "counters", "shard_replicas"]) == 0
    cells = {c["index"]: (c["packets"], c["bytes"]) for c in json.loads(out.getvalue())[topo.switches["s1"].grpc_addr]}
    assert cells == {1: (1, len(sent[0])), 2: (1, len(sent[1]))}
