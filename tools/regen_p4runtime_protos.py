"""Regenerate the installed ``p4runtime`` Python bindings for the installed protobuf.

The ``p4runtime`` wheel on PyPI ships ``*_pb2.py`` files made by an old protoc;
protobuf >= 4 refuses to load them ("Descriptors cannot be created directly")
unless the slow pure-Python backend is forced process-wide.  The wheel does,
however, embed each file's serialized ``FileDescriptorProto``.  This script reads
those descriptors (in a child process that may use the pure-Python backend),
hands them to ``grpc_tools.protoc --descriptor_set_in`` and writes fresh
bindings over the old ones.  It is idempotent and is run by ``make setup``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

PROTOS = ["p4/v1/p4runtime.proto", "p4/v1/p4data.proto",
          "p4/config/v1/p4info.proto", "p4/config/v1/p4types.proto"]

_DUMP = r"""
import sys
from google.protobuf import descriptor_pb2
import p4.v1.p4runtime_pb2, p4.v1.p4data_pb2, p4.config.v1.p4info_pb2, p4.config.v1.p4types_pb2
mods = [p4.v1.p4runtime_pb2, p4.v1.p4data_pb2, p4.config.v1.p4info_pb2, p4.config.v1.p4types_pb2]
fds, seen = descriptor_pb2.FileDescriptorSet(), set()
def add(fd):
    if fd.name in seen:
        return
    for dep in fd.dependencies:
        add(dep)
    seen.add(fd.name)
    proto = descriptor_pb2.FileDescriptorProto()
    fd.CopyToProto(proto)
    fds.file.append(proto)
for m in mods:
    add(m.DESCRIPTOR)
open(sys.argv[1], "wb").write(fds.SerializeToString())
"""


def loads_natively() -> bool:
    env = {k: v for k, v in os.environ.items() if k != "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"}
    r = subprocess.run([sys.executable, "-c", "import p4.v1.p4runtime_pb2_grpc, p4.config.v1.p4info_pb2"],
                       env=env, capture_output=True)
    return r.returncode == 0


def main() -> int:
    if loads_natively():
        print("p4runtime bindings load with this protobuf: nothing to do")
        return 0
    import p4  # noqa: F401  (locate the installed package without importing the bindings)
    site = Path(p4.__path__[0]).parent
    with tempfile.TemporaryDirectory() as tmp:
        fds = Path(tmp) / "p4runtime.fds"
        env = dict(os.environ, PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION="python")
        subprocess.run([sys.executable, "-c", _DUMP, str(fds)], env=env, check=True)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"--descriptor_set_in={fds}",
                        f"--python_out={site}", f"--grpc_python_out={site}", *PROTOS], check=True)
    if not loads_natively():
        print("regenerated p4runtime bindings still do not load", file=sys.stderr)
        return 1
    print(f"regenerated p4runtime bindings in {site}/p4 for the installed protobuf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
