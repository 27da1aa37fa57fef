"""``checkmate-ctl --switch ADDR program TOPOLOGY`` against a real switch: an address that is none of the
topology's switches is refused before anything is loaded or sent -- the live switch stays unprogrammed."""
from __future__ import annotations

from controller import cli


def test_unmatched_address_leaves_the_live_switch_untouched(star_fabric, tmp_path, capsys):
    topo, path, procs = star_fabric
    live = topo.switches["s1"].grpc_addr
    rc = cli.main(["--switch", "127.0.0.1:1", "--build", str(tmp_path / "no-build"), "program", str(path)])
    err = capsys.readouterr().err
    assert rc == 1 and "--switch 127.0.0.1:1 matches no switch of topology" in err and f"s1 at {live}" in err
    assert "no-build" not in err  # refused before the pipeline files were even looked for
    rc = cli.main(["--switch", live, "entries"])
    assert rc == 1 and "has no P4 program yet" in capsys.readouterr().err  # nothing was written
