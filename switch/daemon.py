"""The switch process: ports -> pipeline -> traffic manager, plus the CPU port.

One data-plane thread owns every port.  It waits on ``epoll`` for readable ports,
drains up to ``BATCH`` frames from each ready one (:meth:`Port.recv_batch`) and runs
the batch through the live :class:`switch.runtime.Pipeline`
(:meth:`~switch.runtime.Pipeline.process_into`: one lock hold per batch).  Two send orders,
the same frames in the same order per port:

* ``send_order="batch"`` (the default, ``--send-order batch``): every output is handed to
  the :class:`switch.tm.TrafficManager` after the batch.  Back-to-back sends wake a
  receiver once per batch rather than once per frame, which costs the switch less CPU;
  on a machine whose cores the trainers share, that is what they feel (docs/SWITCH.md).
* ``send_order="frame"``: outputs ``(egress_port, frame)`` for ports whose transmit never
  blocks (unshaped, not lossless) go to the TM the moment their egress pass ends: the
  forward of a Checkmate FINAL chunk leaves before its replica's egress pass runs and
  before the next frame of the batch is parsed, as a switch ASIC's copy would be off the
  forward's path.  Everything else -- lossless or shaped ports (the shadows' copies), the
  CPU port (``packet_in_handler``, the P4Runtime server), unknown ports -- follows in
  order after the batch, outside the pipeline lock (a lossless port's pause never holds it).

With ``--tx-ring`` outputs to AF_PACKET ports go into the ports' transmit rings
(:class:`switch.ports.TxRing`) and :meth:`Switch.flush_ports` sends each port's frames with one
system call after the batch (off by default: on veths it measured no saving, docs/SWITCH.md).

P4Runtime writes interleave with
packets at batch granularity (at most ``BATCH`` frames); swapping pipelines is one
reference assignment.

Python threads share one interpreter lock, so a second data-plane thread would
only add contention; shaped ports (rate/delay/lossless) get their own transmit
threads in the TM, which mostly sleep.

``--pcap DIR`` writes ``<label>_in.pcap`` / ``<label>_out.pcap`` per port (see
:mod:`switch.pcap`); ``trace`` receives the pipeline's per-packet log lines
(``--log-console``/``--log-file``) -- both off by default because they cost time
per packet.
"""
from __future__ import annotations

import logging
import os
import select
import threading
import time
from dataclasses import dataclass, field

from .pcap import PcapWriter
from .ports import Port
from .runtime import TargetOptions
from .tm import TrafficManager

log = logging.getLogger("checkmate.switch")

BATCH = 64
SEND_ORDERS = ("frame", "batch")


@dataclass
class DataplaneStats:
    rx: int = 0
    tx: int = 0
    dropped_no_pipeline: int = 0
    pipeline_errors: int = 0
    rx_errors: int = 0
    tx_errors: int = 0  # failed flushes of a transmit ring (each may withdraw several frames)
    packet_in: int = 0
    packet_out: int = 0
    #: receive batches by size: [1, 2-3, 4-7, 8-15, 16-31, 32-63, 64] frames (what a transmit ring's
    #: one flush per batch can save depends on it)
    rx_batches: list = field(default_factory=lambda: [0] * 7)


class Switch:
    """Ports, the live pipeline and the TM of one switch."""

    def __init__(self, ports: list[Port], tm: TrafficManager, *, cpu_port: int | None = None,
                 pcap_dir: str | None = None, trace=None, send_order: str = "batch",
                 target_options: TargetOptions | None = None):
        if send_order not in SEND_ORDERS:
            raise ValueError(f"send_order {send_order!r}: expected one of {', '.join(SEND_ORDERS)}")
        #: "frame": sends to never-blocking ports as each egress pass ends; "batch": all after the batch
        self.send_order = send_order
        self.ports = {p.number: p for p in ports}
        self.tm = tm
        self.cpu_port = cpu_port
        self.trace = trace
        #: --drop-port / --priority-queues, applied to every pipeline made live (install)
        self.target_options = target_options or TargetOptions()
        self.pipeline = None
        self._errors_logged = 0
        self.packet_in_handler = None
        self.stats = DataplaneStats()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pcap_in: dict[int, PcapWriter] = {}
        self._pcap_out: dict[int, PcapWriter] = {}
        if pcap_dir:
            os.makedirs(pcap_dir, exist_ok=True)
            for p in ports:
                self._pcap_in[p.number] = PcapWriter(os.path.join(pcap_dir, f"{p.spec.label}_in.pcap"))
                self._pcap_out[p.number] = PcapWriter(os.path.join(pcap_dir, f"{p.spec.label}_out.pcap"))
        #: ports with a transmit ring: the data plane's sends to them wait in the ring until
        #: :meth:`flush_ports` after the batch (one system call per port and batch)
        self._ring_ports = [p for p in ports if getattr(p, "send_deferred", None) is not None]
        for p in ports:
            send, send_wait = p.send, p.send_wait
            deferred = getattr(p, "send_deferred", None)
            out = self._pcap_out.get(p.number)
            if out is not None:
                send, send_wait = _tee(out, p.send), _tee_wait(out, p.send_wait)
                deferred = deferred and _tee(out, deferred)
            tm.add_port(p.number, send, transmit_wait=send_wait, transmit_deferred=deferred)

    # -- control --------------------------------------------------------------------
    def install(self, pipeline) -> None:
        """Make ``pipeline`` live (None: drop everything)."""
        if pipeline is not None:
            pipeline.trace = self.trace
            if self.target_options != TargetOptions():   # a new pipeline starts with the defaults
                pipeline.set_target_options(self.target_options)
        self.pipeline = pipeline
        self._errors_logged = 0   # each program gets its own first few error lines

    def _pipeline_error(self, in_port: int, nbytes: int, exc: Exception) -> None:
        """A frame the program raised on: counted, and logged for the first 10 per program."""
        self.stats.pipeline_errors += 1
        if self._errors_logged < 10:
            self._errors_logged += 1
            log.warning("pipeline error on port %d (%d bytes): %s", in_port, nbytes, exc)

    def packet_out(self, frame: bytes) -> None:
        """A PacketOut from the controller: the frame enters the pipeline on the CPU port."""
        if self.cpu_port is None:
            raise ValueError("PacketOut: the switch was started without --cpu-port")
        self.stats.packet_out += 1
        self._process(self.cpu_port, frame)
        self.flush_ports()

    def flush_ports(self) -> bool:
        """Send what the data plane left in the ports' transmit rings; True if a port's kernel
        side took only part of it (the loop then comes back sooner than its idle timeout)."""
        left = False
        for p in self._ring_ports:
            try:
                if p.flush():
                    left = True
            except OSError as exc:  # the link is down: the frames were withdrawn and counted
                self.stats.tx_errors += 1
                if self.stats.tx_errors <= 10:
                    log.warning("port %d (%s): transmit failed: %s", p.number, p.describe(), exc)
        return left

    # -- data plane -----------------------------------------------------------------
    def _process(self, in_port: int, frame: bytes) -> None:
        pl = self.pipeline
        if pl is None:
            self.stats.dropped_no_pipeline += 1
            return
        try:
            outs = pl.process(in_port, frame)
        except Exception as exc:  # a program bug must not kill the switch
            self._pipeline_error(in_port, len(frame), exc)
            return
        cpu = self.cpu_port
        transmit = self.tm.transmit
        for eport, data in outs:
            if eport == cpu:
                self.stats.packet_in += 1
                h = self.packet_in_handler
                if h is not None:
                    h(data)
            else:
                transmit(eport, data)
                self.stats.tx += 1

    def _process_batch(self, in_port: int, frames: list) -> None:
        """:meth:`_process` for a batch from one port, under one pipeline lock hold.

        ``send_order="batch"`` (the default): the pipeline appends its outputs to a plain list,
        handed over in order once the batch is done and the lock is free.  ``"frame"``: outputs
        to ports that can never block (unshaped, not lossless: the trainers' ports) are sent the
        moment the pipeline produces them (:class:`_Sink`), so a frame's forward leaves before
        its replica's egress pass runs; the others (a Checkmate shadow's lossless port, the CPU
        port, unknown ports) follow after the batch.  Either way a lossless port's pause never
        holds the pipeline lock, and what leaves each port, and its order, is what
        :meth:`Pipeline.process` returns."""
        pl = self.pipeline
        stats = self.stats
        if pl is None:
            stats.dropped_no_pipeline += len(frames)
            return
        cpu = self.cpu_port
        tm = self.tm
        egress = tm.ports  # port -> EgressPort: its enqueue directly, one call less per frame
        if self.send_order == "frame":
            sink = _Sink({n: ep for n, ep in egress.items() if ep._fast and n != cpu},
                         {p.number: p.flush for p in self._ring_ports})
            later = sink.later
        else:
            sink = later = []  # list.append: no Python call per output
        try:
            errors = pl.process_into(in_port, frames, sink)
        except Exception as exc:  # e.g. a port number the pipeline cannot take
            errors = [(i, exc) for i in range(len(frames))]
        for i, exc in errors:
            self._pipeline_error(in_port, len(frames[i]), exc)
        tx = sink.sent if sink is not later else 0
        for eport, data in later:
            if eport == cpu:
                stats.packet_in += 1
                h = self.packet_in_handler
                if h is not None:
                    h(data)
            else:
                ep = egress.get(eport)
                if ep is None:
                    tm.transmit(eport, data)  # counts the unknown port
                else:
                    ep.enqueue(data)
                tx += 1
        stats.tx += tx

    def run(self) -> None:
        """Data-plane loop; returns when :meth:`stop` is called."""
        ep = select.epoll()
        by_fd = {}
        for p in self.ports.values():
            ep.register(p.fileno(), select.EPOLLIN)
            by_fd[p.fileno()] = p
        pin, pouts = self._pcap_in, self._pcap_out
        process_batch = self._process_batch
        flush = self.flush_ports if self._ring_ports else None
        stats = self.stats
        batches = stats.rx_batches
        timeout = 0.2
        try:
            while not self._stop.is_set():
                events = ep.poll(timeout)
                timeout = 0.2
                for fd, _ in events:
                    port = by_fd[fd]
                    n = port.number
                    try:
                        frames = port.recv_batch(BATCH)
                    except OSError as exc:  # e.g. ENETDOWN while Mininet tears a link down
                        stats.rx_errors += 1
                        if stats.rx_errors <= 10:
                            log.warning("port %d (%s): receive failed: %s", n, port.describe(), exc)
                        time.sleep(0.01)  # do not spin on a port that keeps failing
                        continue
                    if not frames:
                        continue
                    stats.rx += len(frames)
                    batches[min(len(frames).bit_length(), 7) - 1] += 1
                    w = pin.get(n)
                    if w is not None:
                        for f in frames:
                            w.write(f)
                    process_batch(n, frames)
                    if flush is not None and flush():
                        timeout = 0.001  # a port's kernel side was busy: try the rest again soon
                if flush is not None and not events and flush():
                    timeout = 0.001  # still busy: keep trying while the ports are idle
                if pin:
                    for w in pin.values():
                        w.flush()
                    for w in pouts.values():
                        w.flush()
        finally:
            ep.close()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="dataplane", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        st = self.stats
        log.info("data plane: received %d frames in %d batches (by size 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64: %s), "
                 "sent %d", st.rx, sum(st.rx_batches), " ".join(map(str, st.rx_batches)), st.tx)
        self.tm.close()
        for w in list(self._pcap_in.values()) + list(self._pcap_out.values()):
            w.flush()
            w.close()
        for p in self.ports.values():
            p.close()


class _Sink:
    """The pipeline's outputs of one batch as they are produced (``append((port, frame))``):
    sent at once to the ports in ``now`` (their :meth:`EgressPort.enqueue` never blocks; a port
    with a transmit ring is flushed right away, ``flush``), kept in ``later``, in order, for
    everything else."""

    __slots__ = ("now", "flush", "later", "sent")

    def __init__(self, now: dict, flush: dict | None = None):
        self.now = now
        self.flush = flush or {}
        self.later: list = []
        self.sent = 0

    def append(self, item) -> None:
        ep = self.now.get(item[0])
        if ep is None:
            self.later.append(item)
        else:
            ep.enqueue(item[1])
            self.sent += 1
            f = self.flush.get(item[0])
            if f is not None:
                try:
                    f()
                except OSError:
                    pass  # withdrawn and counted by the ring (flush_errors); the batch goes on


def _tee(writer: PcapWriter, send):
    """``send`` that first records the frame in the port's ``_out.pcap``: as BMv2's
    ``bmi_interface_send`` dumps before ``pcap_sendpacket``, a frame the kernel then refuses
    (longer than the MTU allows, shorter than an Ethernet header) is in the capture too."""
    def send_and_capture(frame: bytes) -> None:
        writer.write(frame)
        send(frame)
    return send_and_capture


def _tee_wait(writer: PcapWriter, send_wait):
    def send_wait_and_capture(frame: bytes, timeout: float) -> None:
        writer.write(frame)
        send_wait(frame, timeout)
    return send_wait_and_capture
