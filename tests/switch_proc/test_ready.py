import subprocess
import sys

import pytest

from switch.ready import SwitchNotReady, format_ready, wait_ready


def _proc(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_ready_line_after_other_output():
    line = format_ready({"grpc": "127.0.0.1:1", "ports": {}})
    p = _proc(f"print('starting'); print({line!r}, flush=True)")
    try:
        assert wait_ready(p, 20) == {"grpc": "127.0.0.1:1", "ports": {}}
    finally:
        p.wait(10)


def test_exit_before_ready_names_the_exit_code():
    p = _proc("import sys; print('no luck'); sys.exit(3)")
    with pytest.raises(SwitchNotReady, match="code 3"):
        wait_ready(p, 20)


def test_silence_times_out():
    p = _proc("import time; time.sleep(30)")
    try:
        with pytest.raises(SwitchNotReady, match="within 0.5s"):
            wait_ready(p, 0.5)
    finally:
        p.kill()
        p.wait(10)
