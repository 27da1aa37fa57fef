#!/usr/bin/env python3
"""A trivial learning L2 forwarder over AF_PACKET sockets -- test plumbing only, not a Checkmate switch.

It takes the simple_switch command-line shape (``-i PORT@IFACE ...``) so the testbed's
``ProcessSwitch`` can start it like ``checkmate-switch``; it forwards every frame to the port its
destination MAC was learned on, or floods it.  When all ports are open it writes ``--ready-file``.
"""
import argparse
import os
import select
import signal
import socket
import sys

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("-i", "--interface", action="append", default=[])
    p.add_argument("--ready-file")
    a, _ = p.parse_known_args(argv)
    ports = {}
    for spec in a.interface:
        num, _, name = spec.partition("@")
        # protocol given at bind only: opened for ETH_P_ALL it would hear every interface until bound
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        s.bind((name, ETH_P_ALL))  # Python puts it in network order
        s.setblocking(False)
        ports[int(num)] = s
    by_fd = {s.fileno(): (n, s) for n, s in ports.items()}
    learned = {}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if a.ready_file:
        with open(a.ready_file + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(a.ready_file + ".tmp", a.ready_file)
    print(f"l2fwd: ports {sorted(ports)}", flush=True)
    poller = select.poll()
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    while True:
        for fd, _ in poller.poll(1000):
            n, s = by_fd[fd]
            while True:
                try:
                    frame, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                learned[frame[6:12]] = n
                out = learned.get(frame[0:6])
                targets = [out] if out is not None and out != n else [m for m in ports if m != n]
                for m in targets:
                    try:
                        ports[m].send(frame)
                    except OSError:
                        pass


if __name__ == "__main__":
    main()
