"""topologies.lifecycle: SIGTERM stops the body through ``finally``; the teardown cannot be cut short."""
import subprocess
import sys
import textwrap

from checkmate import paths

CHILD = textwrap.dedent("""
    import os, signal, sys, time
    from topologies.lifecycle import Terminated, teardown_on_exit

    def teardown():
        os.kill(os.getpid(), signal.SIGTERM)   # ignored while tearing down
        os.kill(os.getpid(), signal.SIGINT)    # so is Ctrl-C
        time.sleep(0.2)
        print("teardown done", flush=True)

    try:
        with teardown_on_exit(teardown):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
            print("body finished", flush=True)
    except Terminated as e:
        print(f"terminated {e.code}", flush=True)
    print("handler restored", signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
          signal.getsignal(signal.SIGINT) is signal.default_int_handler, flush=True)
""")


def test_sigterm_raises_terminated_and_teardown_runs_to_the_end():
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=paths.ROOT, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["teardown done", "terminated 143", "handler restored True True"], out.stdout


def test_off_the_main_thread_body_and_teardown_still_run():
    import threading

    from topologies.lifecycle import teardown_on_exit
    seen = []

    def work():
        with teardown_on_exit(lambda: seen.append("teardown")):
            seen.append("body")

    t = threading.Thread(target=work)
    t.start()
    t.join(10)
    assert seen == ["body", "teardown"]


def test_cannot_start_names_what_is_missing(monkeypatch):
    """The one pre-flight check of `checkmate testbed`, `checkmate faults` and `checkmate bench`."""
    import topologies.lifecycle as lc
    monkeypatch.setattr(lc.os, "geteuid", lambda: 1000)
    assert lc.cannot_start("checkmate bench") == "checkmate bench: needs root (Mininet namespaces and veths); try sudo"
    monkeypatch.setattr(lc.os, "geteuid", lambda: 0)
    monkeypatch.setattr(lc.shutil, "which", lambda name: None)
    assert "checkmate faults: mnexec not found" in lc.cannot_start("checkmate faults")
    monkeypatch.setattr(lc.shutil, "which", lambda name: "/usr/bin/" + name)
    assert lc.cannot_start("checkmate testbed") is None
