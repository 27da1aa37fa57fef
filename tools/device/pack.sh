#!/bin/bash
# Pack what a lent GPU machine lacks for the testbed into .devcarry/ (ignored; name it in the device
# tool's `carry`).  That machine has torch, numpy, grpcio and protobuf but no Mininet and no network
# tools: this copies the pure-Python packages mininet, scapy, p4runtime (p4) and googleapis-common-protos
# from this checkout's venv, and mnexec, ip, tc, ethtool, ifconfig, route, arp, ping, sysctl with the
# shared libraries they need that its image may lack.  The generated P4Runtime gRPC stubs refuse an
# older grpcio than the one that generated them: their version pin is lowered to GRPC_VERSION (the
# device's grpcio; 1.84.0 on the H200 image of 2026-12).  About 16 MB.  Usage: tools/device/pack.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
GRPC_VERSION=${GRPC_VERSION:-1.84.0}
SP=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
rm -rf .devcarry && mkdir -p .devcarry/py/google .devcarry/bin .devcarry/lib
cp -r "$SP/mininet" "$SP/p4" "$SP/scapy" .devcarry/py/
for d in api rpc type longrunning logging; do [ -d "$SP/google/$d" ] && cp -r "$SP/google/$d" .devcarry/py/google/; done
find .devcarry -name __pycache__ -prune -exec rm -rf {} +
sed -i "s/GRPC_GENERATED_VERSION = '[0-9.]*'/GRPC_GENERATED_VERSION = '$GRPC_VERSION'/" \
    $(grep -rl "GRPC_GENERATED_VERSION = " .devcarry/py)
for b in mnexec ip tc ethtool ifconfig route arp ping sysctl; do cp "$(command -v $b)" .devcarry/bin/; done
for l in libmnl.so.0 libbpf.so.1 libelf.so.1 libbsd.so.0 libcap.so.2 libmd.so.0 libz.so.1 libxtables.so.12 \
         libidn2.so.0 libunistring.so.2; do cp -L "/lib/x86_64-linux-gnu/$l" .devcarry/lib/; done
du -sh .devcarry
