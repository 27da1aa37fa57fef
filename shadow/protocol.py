"""The shadow protocol: the dataclasses at the trainer/shadow seam and their TCP framing.

The trainer side (``shadow/client.py``) and the shadow node (``shadow/node.py``) talk over one
TCP connection on the shadow's management address.  Every message -- request or reply -- is
one *frame*::

    offset size  field
    ------ ----  ---------------------------------------------------------------
       0     4   magic  b"CMSP"
       4     4   header length H (big endian u32)
       8     8   blob length B   (big endian u64)
      16     H   UTF-8 JSON header: {"op": ..., "body": <encoded value>}
    16+H     B   blob: raw tensor bytes, concatenated, each 64-byte aligned

Tensors never go through pickle.  :func:`encode_value` walks a value (our dataclasses, dicts,
lists, scalars) and replaces every tensor with ``{"$t": [dtype, shape, offset, nbytes]}``
pointing into the blob; dicts become ``{"$m": [[key, value], ...]}`` so integer keys (param
ids) survive JSON; dataclasses become ``{"$c": class name, ...fields}`` and only the classes
registered in this module can be rebuilt.  Floats round-trip exactly (``repr`` is shortest
round-trip and non-finite values are written as NaN/Infinity), which matters: the learning
rate of every step must reach the shadow bit for bit.

Requests (``op``): ``bootstrap`` (body :class:`Bootstrap`), ``manifest`` (:class:`Manifest`),
``status``, ``fetch`` (``{"iteration": int|None}``), ``persist``.  Replies: ``ok`` (body is the
result value) or ``error`` (``{"kind": ..., "message": ...}``, raised as :class:`ShadowError`
by the client).

**Compact manifests.**  The per-iteration manifest (and its ack) also has a fixed binary form, so
neither side pays for JSON every iteration.  Same 16-byte frame head, other magics::

    b"CMSM"  u32 body length  u64 iteration       request: a Manifest without buffers
             body: u32 job_id, u8 flags (1 skip, 2 clip), f64 clip_coef, u16 n_lrs, u32 n_no_grad,
                   f64 lrs[n_lrs], u32 no_grad[n_no_grad]
    b"CMSA"  u32 body length  u64 iteration       reply: a ManifestAck
             body: u32 job_id, u32 shard, u8 flags (1 needs_resync), i64 latest_iteration (-1: none),
                   u64 losses, u64 misrouted, u16 reason bytes, u16 n_params, reason (UTF-8), u32 params[]

:func:`recv_message` reads either form: a compact request comes back as op ``cmanifest`` (answered
with a compact ack, :func:`pack_ack`), a compact ack as ``("ok", ManifestAck)``.  Floats are
IEEE 754 doubles (a Python float is one: bit for bit).  A manifest that carries buffers (the buffer
shard of a model with buffers) travels as JSON.

**Cumulative acks** (negotiated per connection).  A client that sends ``hello``
(``{"ack_every": N}``, N > 1) right after connecting and gets ``ok`` (``{"ack_every": n}``, the
shadow's accepted value) is acked cumulatively on that connection: one ack for up to ``n`` compact
manifests instead of one each -- at once, though, whenever it says something the trainer must act on.
An older shadow answers ``hello`` with an ``error`` (unknown request) and keeps acking every
manifest; a client that never says ``hello`` is acked every manifest (the old behaviour both ways)::

    b"CMSC"  u32 body length  u64 iteration       a cumulative ack: the compact ack of the last
             body: u32 covers, then the CMSA body   manifest it covers, for ``covers`` manifests
                                                    (ack flags bit 2: it answers a sync)
    b"CMSY"  u32 0            u64 0               request: send the held ack now (a sync)

A sync is answered with exactly one CMSC whose flag bit 2 is set (``covers`` may be 0), after any
ack held, so a reader that needs every outstanding ack (a flush) sends one and reads up to its
answer.  ``("cack", CumAck)`` and ``("sync", None)`` are what :func:`recv_message` /
:func:`parse_frame` return for them.
"""
from __future__ import annotations

import dataclasses
import json
import math
import socket
import struct
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch

MAGIC = b"CMSP"
FRAME = struct.Struct("!4sIQ")
#: A header larger than this is refused before it is read (a garbage length must not OOM us).
MAX_HEADER = 64 << 20
#: Likewise for the blob: 256 GiB (a whole shard of a large model fits well below this).  Blobs
#: are read in growing pieces, so a frame that only *claims* a huge blob costs no memory.
MAX_BLOB = 1 << 38
_RECV_PIECE = 64 << 20
ALIGN = 64

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "uint8": torch.uint8,
    "bool": torch.bool,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


class ProtocolError(ValueError):
    """A frame or message is malformed; the message names the culprit."""


class ShadowError(RuntimeError):
    """The shadow refused a request; ``kind`` is the server-side error class name."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


# ---------------------------------------------------------------------------------------------
# The dataclasses at the seam
# ---------------------------------------------------------------------------------------------
@dataclass
class ParamSpec:
    """One parameter of the model: its index in ``model.parameters()`` is the chunk address."""

    param_id: int
    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    group: int = 0  #: index of its optimizer param group

    def __post_init__(self):
        self.shape = tuple(int(s) for s in self.shape)
        if self.dtype not in DTYPES:
            raise ProtocolError(f"ParamSpec {self.name!r}: field 'dtype': unknown dtype {self.dtype!r}")

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass
class OptimizerSpec:
    """The trainer's optimizer: kind, variant, and each param group's hyperparameters.

    ``param_groups`` holds one dict per group in ``optimizer.param_groups`` order, without
    ``params`` (e.g. ``lr``, ``betas``, ``eps``, ``weight_decay``, ``amsgrad``, ``maximize``;
    ``momentum``, ``dampening``, ``nesterov`` for SGD).  ``kind``: ``adamw``, ``adam`` or ``sgd``
    (:mod:`shadow.optimizers`).  ``device``: the device type the trainer's parameters (and so its
    optimizer step) live on -- ``"cpu"``, ``"cuda"``, ...; a shadow replays a CUDA step with the CUDA
    kernels' rounding (:mod:`shadow.device_optim`).
    """

    kind: str = "adamw"
    foreach: bool | None = None
    fused: bool = False
    param_groups: list[dict] = field(default_factory=list)
    device: str = "cpu"

    @classmethod
    def from_optimizer(cls, opt: torch.optim.Optimizer) -> "OptimizerSpec":
        """Describe a live AdamW / Adam / SGD (``shadow.optimizers.SUPPORTED``; anything else is refused)."""
        from .optimizers import UnsupportedOptimizer, optimizer_kind
        try:
            kind = optimizer_kind(opt)
        except UnsupportedOptimizer as e:
            raise ProtocolError(f"OptimizerSpec: field 'kind': {e}") from None
        groups = []
        for i, g in enumerate(opt.param_groups):
            for k in ("lr", "eps", "weight_decay", "momentum"):
                if isinstance(g.get(k), torch.Tensor):
                    raise ProtocolError(f"OptimizerSpec: param_groups[{i}] field '{k}' is a tensor; the shadow "
                                        f"replays Python-float hyperparameters only (tensor LR takes other kernels)")
            groups.append({k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()
                           if k != "params" and isinstance(v, (int, float, bool, str, tuple, list, type(None)))})
        first = opt.param_groups[0]
        devices = {p.device.type for g in opt.param_groups for p in g["params"]}
        if len(devices) > 1:
            raise ProtocolError(f"OptimizerSpec: field 'device': parameters on {sorted(devices)}; the shadows "
                                f"replay an optimizer whose parameters share one device type")
        return cls(kind=kind, foreach=first.get("foreach"), fused=bool(first.get("fused") or False),
                   param_groups=groups, device=devices.pop() if devices else "cpu")


@dataclass
class ShardMap:
    """Which shard owns each parameter, and where each shard's shadow listens (``host:port``)."""

    job_id: int
    num_shards: int
    owner: dict[int, int] = field(default_factory=dict)
    shadows: list[str] = field(default_factory=list)

    def owned(self, shard: int) -> list[int]:
        return sorted(pid for pid, s in self.owner.items() if s == shard)


@dataclass
class Bootstrap:
    """Initial (or resync) state of one shard.

    ``iteration`` is the number of optimizer steps already applied to the given state, so the
    next gradient to arrive is for ``iteration + 1``.  ``params`` lists ALL parameters of the
    model (the address space); ``tensors``/``opt_state`` hold only the owned ones.
    """

    job_id: int
    shard: int
    iteration: int
    params: list[ParamSpec]
    shard_map: ShardMap
    optimizer: OptimizerSpec
    tensors: dict[int, torch.Tensor] = field(default_factory=dict)
    opt_state: dict[int, dict[str, torch.Tensor]] = field(default_factory=dict)
    #: the model's buffers (``named_buffers()`` FQN -> tensor, e.g. BatchNorm running stats) as of
    #: ``iteration``; only the *buffer shard* (shard 0) gets them, the others an empty map
    buffers: dict[str, torch.Tensor] = field(default_factory=dict)
    #: frozen parameters (``requires_grad=False``: no gradient ever crosses the switch), FQN -> tensor;
    #: constant, so carried once per bootstrap, to the buffer shard only
    frozen: dict[str, torch.Tensor] = field(default_factory=dict)
    #: ``beta ** step`` as the trainer's GPU computes it (``shadow.device_optim``: fused Adam/AdamW on CUDA
    #: uses the GPU's powf for its bias corrections, which is not correctly rounded): ``repr(beta)`` ->
    #: float32 tensor whose entry ``i`` is ``beta ** (device_powers_from + i)``; empty otherwise
    device_powers: dict[str, torch.Tensor] = field(default_factory=dict)
    device_powers_from: int = 1
    #: False (default): a (re)start -- everything the shadow buffered is discarded, since gradients
    #: of a previous run of the job must never mix with this one.  True: a resync of the same,
    #: still running training after a loss -- gradients of iterations > ``iteration`` that already
    #: arrived are kept (they belong to this run), so the resync does not cost another iteration.
    resync: bool = False


@dataclass
class Manifest:
    """What the trainer did in step ``iteration`` besides the gradient itself.

    ``lrs``: the learning rate of each param group for this step.  ``clip_coef``: the clamped
    coefficient ``clip_grad_norm_`` multiplied the gradients by (a float32 value), or None when
    not clipping.  ``skip``: no optimizer step (AMP overflow), but the iteration counts.
    ``buffers``: rank 0's model buffers after this iteration's forward pass(es) (the buffer
    shard's copy only; ``None`` for the other shards).  ``no_grad``: param ids whose ``.grad`` was
    ``None`` at the step (unused in every rank's forward, ``find_unused_parameters``): the optimizer
    skips them, so the shadow must too, although the ring carried zeros for them.
    """

    job_id: int
    iteration: int
    lrs: list[float]
    clip_coef: float | None = None
    skip: bool = False
    buffers: dict[str, torch.Tensor] | None = None
    no_grad: list[int] = field(default_factory=list)


@dataclass
class ManifestAck:
    """The shadow's answer to a manifest.  ``needs_resync``: send a :class:`Bootstrap`."""

    job_id: int
    shard: int
    iteration: int
    needs_resync: bool
    latest_iteration: int | None = None
    reason: str = ""
    losses: int = 0  #: iterations this shadow gave up on so far (the trainer logs when it grows)
    #: copies of parameters this shard does not own (the switch's shard map differs from the plan)
    misrouted: int = 0
    misrouted_params: list = field(default_factory=list)  #: a few of those param ids


@dataclass
class ShadowStatus:
    job_id: int
    shard: int
    latest_iteration: int | None  #: newest published (consistent) iteration
    previous_iteration: int | None  #: the one kept before it
    persisted_iteration: int | None  #: newest iteration durably on disk
    pending: int  #: iterations buffered but not yet published
    bytes_received: int  #: payload bytes accepted into buffers
    packets: int  #: datagrams received (all)
    duplicates: int  #: packets whose elements were all already present (incl. stale iterations)
    losses: int  #: iterations given up on (gap, timeout, overflow)
    rejected: int  #: malformed, foreign job, not-owned param, out of range
    needs_resync: bool
    last_error: str = ""
    lag: int = 0  #: newest iteration seen minus latest published
    held_iterations: list = field(default_factory=list)  #: published iterations in memory, oldest first
    persisted_iterations: list = field(default_factory=list)  #: files on disk, oldest first (as of its last save)
    #: copies of parameters this shard does not own (a shard map that differs from the bootstrap's)
    misrouted: int = 0
    misrouted_params: list = field(default_factory=list)  #: a few of those param ids, sorted
    #: owned params whose shard-map probe (a FINAL chunk of iteration 0) arrived since the last bootstrap
    probed_params: list = field(default_factory=list)


@dataclass
class ShardState:
    """A published checkpoint of one shard (what ``fetch`` returns and files hold)."""

    job_id: int
    shard: int
    iteration: int
    tensors: dict[int, torch.Tensor]
    opt_state: dict[int, dict[str, torch.Tensor]]
    optimizer: OptimizerSpec
    params: list[ParamSpec] = field(default_factory=list)  #: ALL params (names for export)
    num_shards: int = 1
    buffers: dict[str, torch.Tensor] = field(default_factory=dict)  #: model buffers (buffer shard only)
    frozen: dict[str, torch.Tensor] = field(default_factory=dict)  #: frozen params (buffer shard only)


def check_shard_state(state) -> "ShardState":
    """Type-check a decoded :class:`ShardState` (from a file or the wire); raises ProtocolError.

    Decoding builds the dataclass from JSON without judging its field values; a checkpoint
    whose checksum is valid can still hold, say, a string where the iteration belongs.
    """
    if not isinstance(state, ShardState):
        raise ProtocolError(f"holds a {type(state).__name__}, not a ShardState")

    def count(name, v):
        if type(v) is not int or v < 0:
            raise ProtocolError(f"ShardState field '{name}': {v!r} is not a non-negative integer")

    for name in ("job_id", "shard", "iteration", "num_shards"):
        count(name, getattr(state, name))
    if not isinstance(state.tensors, dict):
        raise ProtocolError("ShardState field 'tensors': not a map")
    for pid, t in state.tensors.items():
        count("tensors key", pid)
        if not isinstance(t, torch.Tensor):
            raise ProtocolError(f"ShardState field 'tensors[{pid}]': {type(t).__name__} is not a tensor")
    if not isinstance(state.opt_state, dict):
        raise ProtocolError("ShardState field 'opt_state': not a map")
    for pid, st in state.opt_state.items():
        count("opt_state key", pid)
        if not isinstance(st, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                               for k, v in st.items()):
            raise ProtocolError(f"ShardState field 'opt_state[{pid}]': not a map of names to tensors")
    for name in ("buffers", "frozen"):
        m = getattr(state, name)
        if not isinstance(m, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in m.items()):
            raise ProtocolError(f"ShardState field '{name}': not a map of names to tensors")
    if not isinstance(state.optimizer, OptimizerSpec):
        raise ProtocolError("ShardState field 'optimizer': not an OptimizerSpec")
    if not isinstance(state.params, list) or not all(isinstance(p, ParamSpec) for p in state.params):
        raise ProtocolError("ShardState field 'params': not a list of ParamSpec")
    return state


_CLASSES = {c.__name__: c for c in (ParamSpec, OptimizerSpec, ShardMap, Bootstrap, Manifest,
                                      ManifestAck, ShadowStatus, ShardState)}


# ---------------------------------------------------------------------------------------------
# Value encoding (JSON + blob, no pickle)
# ---------------------------------------------------------------------------------------------
#: dtypes NumPy holds natively: their bytes are viewed through ``Tensor.numpy()`` in one step.
_NUMPY_DTYPES = frozenset(DTYPES.values()) - {torch.bfloat16}


def tensor_bytes(t: torch.Tensor) -> memoryview:
    """A zero-copy byte view of a contiguous CPU tensor (any dtype)."""
    if t.dtype in _NUMPY_DTYPES and t.is_cpu and not t.requires_grad and t.is_contiguous():
        # the common case (a shard's params and optimizer state), about a fifth of the general
        # path's cost: one NumPy view, no reshape/view/detach tensors made on the way
        return memoryview(t.numpy()).cast("B") if t.numel() else memoryview(b"")
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    if t.numel() == 0:
        return memoryview(b"")
    return memoryview(t.reshape(-1).view(torch.uint8).numpy())


def tensor_from_bytes(buf, dtype: str, shape, offset: int = 0, what: str = "tensor") -> torch.Tensor:
    """Rebuild a tensor from raw bytes (viewing ``buf`` when it is an aligned bytearray)."""
    if dtype not in DTYPES:
        raise ProtocolError(f"{what}: field 'dtype': unknown dtype {dtype!r}")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ProtocolError(f"{what}: field 'shape': negative dimension in {shape}")
    dt = DTYPES[dtype]
    n = math.prod(shape)
    nbytes = n * torch.empty((), dtype=dt).element_size()
    if offset < 0 or offset + nbytes > len(buf):
        raise ProtocolError(f"{what}: field 'nbytes': {nbytes} bytes at offset {offset} exceed the {len(buf)}-byte blob")
    if n == 0:
        return torch.empty(shape, dtype=dt)
    if not isinstance(buf, bytearray) or offset % ALIGN:
        buf, offset = bytearray(memoryview(buf)[offset:offset + nbytes]), 0
    # Zero copy: the tensor views (and keeps alive) the received blob.
    return torch.frombuffer(buf, dtype=dt, count=n, offset=offset).reshape(shape)


class _BlobWriter:
    def __init__(self):
        self.parts: list[memoryview] = []
        self.size = 0

    def add(self, t: torch.Tensor) -> list:
        mv = tensor_bytes(t)
        pad = (-self.size) % ALIGN
        if pad:
            self.parts.append(memoryview(bytes(pad)))
            self.size += pad
        off = self.size
        self.parts.append(mv)
        self.size += len(mv)
        return [DTYPE_NAMES.get(t.dtype) or _bad_dtype(t.dtype), list(t.shape), off, len(mv)]


def _bad_dtype(dt):
    raise ProtocolError(f"tensor dtype {dt} cannot be serialised")


_PLAIN = frozenset((int, float, str, bool, type(None)))
_FIELDS = {c: tuple(f.name for f in dataclasses.fields(c)) for c in _CLASSES.values()}


def encode_value(v: Any, blob: _BlobWriter) -> Any:
    t = type(v)
    if t in _PLAIN:  # most fields (a status is all scalars and short lists): no isinstance chain
        return v
    names = _FIELDS.get(t)
    if names is not None:  # one of the protocol's dataclasses (exactly: a subclass takes the path below)
        out = {"$c": t.__name__}
        for name in names:
            x = getattr(v, name)
            out[name] = x if type(x) in _PLAIN else encode_value(x, blob)
        return out
    if t is list and all(type(x) in _PLAIN for x in v):
        return v
    if isinstance(v, torch.Tensor):
        return {"$t": blob.add(v)}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        name = type(v).__name__
        if name not in _CLASSES:
            raise ProtocolError(f"dataclass {name} is not part of the shadow protocol")
        out = {"$c": name}
        for f in dataclasses.fields(v):
            out[f.name] = encode_value(getattr(v, f.name), blob)
        return out
    if isinstance(v, dict):
        return {"$m": [[encode_value(k, blob), encode_value(x, blob)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return [encode_value(x, blob) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise ProtocolError(f"value of type {type(v).__name__} cannot be sent over the shadow protocol")


def decode_value(v: Any, blob) -> Any:
    if isinstance(v, list):
        return [decode_value(x, blob) for x in v]
    if isinstance(v, dict):
        if "$t" in v:
            try:
                dtype, shape, off, _n = v["$t"]
            except (TypeError, ValueError):
                raise ProtocolError(f"tensor reference {v['$t']!r} is malformed") from None
            return tensor_from_bytes(blob, dtype, shape, off)
        if "$m" in v:
            out = {}
            for pair in v["$m"]:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ProtocolError(f"map entry {pair!r} is not a [key, value] pair")
                k = decode_value(pair[0], blob)
                out[tuple(k) if isinstance(k, list) else k] = decode_value(pair[1], blob)
            return out
        if "$c" in v:
            name = v["$c"]
            cls = _CLASSES.get(name)
            if cls is None:
                raise ProtocolError(f"field '$c': unknown class {name!r}")
            names = {f.name for f in dataclasses.fields(cls)}
            kwargs = {k: decode_value(x, blob) for k, x in v.items() if k != "$c" and k in names}
            try:
                return cls(**kwargs)
            except TypeError as e:
                raise ProtocolError(f"{name}: {e}") from None
        raise ProtocolError(f"object without a type tag: keys {sorted(v)[:5]}")
    return v


# ---------------------------------------------------------------------------------------------
# Framing
# ---------------------------------------------------------------------------------------------
def pack_message(op: str, body: Any = None) -> list:
    """Frame ``(op, body)`` as a list of buffers for ``socket.sendmsg`` / ``b"".join``."""
    blob = _BlobWriter()
    header = json.dumps({"op": op, "body": encode_value(body, blob)}, separators=(",", ":"),
                        allow_nan=True).encode()
    return [FRAME.pack(MAGIC, len(header), blob.size), header, *blob.parts]


def unpack_message(frame_header: bytes, header: bytes, blob) -> tuple[str, Any]:
    try:
        obj = json.loads(header)
        if not isinstance(obj, dict) or not isinstance(obj.get("op"), str):
            raise ProtocolError("frame header: field 'op' missing")
        return obj["op"], decode_value(obj.get("body"), blob)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProtocolError(f"frame header is not JSON: {e}") from None
    except RecursionError:
        raise ProtocolError("frame header: nested too deeply") from None
    except ProtocolError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RuntimeError) as e:
        # a hostile header of valid JSON whose values have the wrong types or sizes
        raise ProtocolError(f"frame header: malformed value: {type(e).__name__}: {e}") from None


def _recv_exact(sock: socket.socket, n: int) -> bytearray:
    """Read exactly ``n`` bytes.  Memory grows with what arrives, never with what was announced."""
    buf = bytearray(min(n, _RECV_PIECE))
    got = 0
    while got < n:
        if got == len(buf):  # only reached for n > _RECV_PIECE: grow by doubling, capped at n
            buf.extend(bytes(min(len(buf), n - len(buf))))
        with memoryview(buf) as mv:
            k = sock.recv_into(mv[got:], len(buf) - got)
        if k == 0:
            raise ConnectionError(f"peer closed the connection after {got} of {n} bytes")
        got += k
    return buf


def send_message(sock: socket.socket, op: str, body: Any = None) -> None:
    parts = pack_message(op, body)
    if sum(map(len, parts)) <= 64 << 10:
        sock.sendall(b"".join(parts))  # a small frame (an ack, a status): one send
        return
    for p in parts:
        sock.sendall(p)


def recv_message(sock: socket.socket) -> tuple[str, Any]:
    """Read one frame; raises :class:`ProtocolError` (bad frame) or ``ConnectionError`` (EOF)."""
    fh = _recv_exact(sock, FRAME.size)
    magic, hlen, blen = FRAME.unpack(fh)
    if magic in COMPACT_MAGICS:  # compact manifest / ack: hlen is the body length, blen the iteration
        if hlen > _MAX_COMPACT:
            raise ProtocolError(f"compact frame field 'body_len': {hlen} exceeds {_MAX_COMPACT}")
        return unpack_compact(bytes(magic), blen, _recv_exact(sock, hlen) if hlen else b"")
    if magic != MAGIC:
        raise ProtocolError(f"frame field 'magic': {bytes(magic)!r} is not {MAGIC!r}")
    if hlen > MAX_HEADER:
        raise ProtocolError(f"frame field 'header_len': {hlen} exceeds {MAX_HEADER}")
    if blen > MAX_BLOB:
        raise ProtocolError(f"frame field 'blob_len': {blen} exceeds {MAX_BLOB}")
    header = _recv_exact(sock, hlen)
    blob = _recv_exact(sock, blen) if blen else b""
    return unpack_message(fh, header, blob)


# ---------------------------------------------------------------------------------------------
# Compact manifest / ack frames (fixed binary layout, see the module docstring)
# ---------------------------------------------------------------------------------------------
MAN_MAGIC, ACK_MAGIC, CUM_MAGIC, SYNC_MAGIC = b"CMSM", b"CMSA", b"CMSC", b"CMSY"
COMPACT_MAGICS = (MAN_MAGIC, ACK_MAGIC, CUM_MAGIC, SYNC_MAGIC)
_MAN_BODY = struct.Struct("!IBdHI")
_ACK_BODY = struct.Struct("!IIBqQQHH")
_CUM_HEAD = struct.Struct("!I")
_ACK_RESYNC, _ACK_SYNC = 1, 2  # ack flags
_ACK_FLAGS_AT = struct.calcsize("!II")  # where the flags byte sits in an ack body (after job and shard)
#: the most manifests one cumulative ack may cover (a shadow caps a client's ``ack_every`` to it)
MAX_ACK_EVERY = 1024
#: the sync request (see the module docstring)
SYNC_FRAME = FRAME.pack(SYNC_MAGIC, 0, 0)


class CumAck(NamedTuple):
    """A decoded cumulative ack: the ack of the last of ``covers`` manifests; ``sync``: it answers a sync."""

    covers: int
    sync: bool
    ack: "ManifestAck"


_MAX_COMPACT = 1 << 20
_MAN_STRUCTS: dict[tuple[int, int], struct.Struct] = {}


def pack_manifest(m: Manifest) -> bytes:
    """The compact frame of ``m`` (one ``struct.pack`` with a format cached per (groups, no_grad)
    count: O(1) per iteration).  ``m.buffers`` must be None (buffers travel as JSON)."""
    if m.buffers is not None:
        raise ProtocolError(f"Manifest {m.iteration}: a manifest with buffers has no compact form")
    n, k = len(m.lrs), len(m.no_grad)
    st = _MAN_STRUCTS.get((n, k))
    if st is None:
        st = _MAN_STRUCTS[(n, k)] = struct.Struct(f"!4sIQIBdHI{n}d{k}I")
    flags = (1 if m.skip else 0) | (2 if m.clip_coef is not None else 0)
    try:
        return st.pack(MAN_MAGIC, st.size - FRAME.size, m.iteration, m.job_id, flags,
                       0.0 if m.clip_coef is None else m.clip_coef, n, k, *m.lrs, *m.no_grad)
    except struct.error as e:
        raise ProtocolError(f"Manifest {m.iteration}: a field is out of range for the compact form: {e}") from None


def _unpack_manifest(iteration: int, body) -> Manifest:
    if len(body) < _MAN_BODY.size:
        raise ProtocolError(f"compact manifest: body of {len(body)} bytes is shorter than {_MAN_BODY.size}")
    job, flags, clip, n, k = _MAN_BODY.unpack_from(body)
    if len(body) != _MAN_BODY.size + 8 * n + 4 * k:
        raise ProtocolError(f"compact manifest: field 'n_lrs'/'n_no_grad' ({n}, {k}) do not match the "
                            f"body length {len(body)}")
    lrs = list(struct.unpack_from(f"!{n}d", body, _MAN_BODY.size))
    no_grad = list(struct.unpack_from(f"!{k}I", body, _MAN_BODY.size + 8 * n))
    return Manifest(job, iteration, lrs, clip if flags & 2 else None, bool(flags & 1), None, no_grad)


def _ack_body(a: ManifestAck, flags: int = 0) -> bytes:
    reason = (a.reason or "").encode()[:4096]
    params = [int(p) for p in (a.misrouted_params or [])][:1024]
    return _ACK_BODY.pack(a.job_id, a.shard, flags | (_ACK_RESYNC if a.needs_resync else 0),
                          -1 if a.latest_iteration is None else a.latest_iteration, a.losses, a.misrouted,
                          len(reason), len(params)) + reason + struct.pack(f"!{len(params)}I", *params)


def pack_ack(a: ManifestAck) -> bytes:
    """The compact reply to a compact manifest."""
    body = _ack_body(a)
    return FRAME.pack(ACK_MAGIC, len(body), a.iteration) + body


def pack_cum_ack(a: ManifestAck, covers: int, sync: bool = False) -> bytes:
    """A cumulative ack: ``a`` (the ack of the last manifest covered) for ``covers`` manifests;
    ``sync``: the answer to a sync request (``covers`` may then be 0)."""
    if not 0 <= covers <= MAX_ACK_EVERY or (covers == 0 and not sync):
        raise ProtocolError(f"cumulative ack: field 'covers': {covers} is outside 1..{MAX_ACK_EVERY}")
    body = _CUM_HEAD.pack(covers) + _ack_body(a, _ACK_SYNC if sync else 0)
    return FRAME.pack(CUM_MAGIC, len(body), a.iteration) + body


def _unpack_ack(iteration: int, body) -> ManifestAck:
    if len(body) < _ACK_BODY.size:
        raise ProtocolError(f"compact ack: body of {len(body)} bytes is shorter than {_ACK_BODY.size}")
    job, shard, flags, latest, losses, mis, rlen, k = _ACK_BODY.unpack_from(body)
    if len(body) != _ACK_BODY.size + rlen + 4 * k:
        raise ProtocolError(f"compact ack: field 'reason_len'/'n_params' ({rlen}, {k}) do not match the "
                            f"body length {len(body)}")
    reason = bytes(body[_ACK_BODY.size:_ACK_BODY.size + rlen]).decode(errors="replace")
    params = list(struct.unpack_from(f"!{k}I", body, _ACK_BODY.size + rlen))
    return ManifestAck(job, shard, iteration, bool(flags & 1), None if latest < 0 else latest, reason,
                       losses=losses, misrouted=mis, misrouted_params=params)


def unpack_compact(magic: bytes, iteration: int, body) -> tuple[str, Any]:
    """Decode a compact frame's body: ``("cmanifest", Manifest)``, ``("ok", ManifestAck)``,
    ``("cack", CumAck)`` or ``("sync", None)``."""
    if magic == MAN_MAGIC:
        return "cmanifest", _unpack_manifest(iteration, body)
    if magic == ACK_MAGIC:
        return "ok", _unpack_ack(iteration, body)
    if magic == CUM_MAGIC:
        if len(body) < _CUM_HEAD.size:
            raise ProtocolError(f"cumulative ack: body of {len(body)} bytes is shorter than {_CUM_HEAD.size}")
        (covers,) = _CUM_HEAD.unpack_from(body)
        at = _CUM_HEAD.size + _ACK_FLAGS_AT
        flags = body[at] if len(body) > at else 0
        sync = bool(flags & _ACK_SYNC)
        if covers > MAX_ACK_EVERY or (covers == 0 and not sync):
            raise ProtocolError(f"cumulative ack: field 'covers': {covers} is outside 1..{MAX_ACK_EVERY}")
        return "cack", CumAck(covers, sync, _unpack_ack(iteration, memoryview(body)[_CUM_HEAD.size:]))
    if len(body):
        raise ProtocolError(f"sync request: field 'body_len': {len(body)}, expected 0")
    return "sync", None


def parse_frame(buf) -> tuple[int, str, Any] | None:
    """One whole frame (JSON or compact) from the front of ``buf``: ``(bytes used, op, body)``, or None
    while it is incomplete.  For readers that take several frames with one ``recv``."""
    if len(buf) < FRAME.size:
        return None
    magic, hlen, blen = FRAME.unpack_from(buf)
    if magic in COMPACT_MAGICS:
        if hlen > _MAX_COMPACT:
            raise ProtocolError(f"compact frame field 'body_len': {hlen} exceeds {_MAX_COMPACT}")
        end = FRAME.size + hlen
        if len(buf) < end:
            return None
        op, body = unpack_compact(bytes(magic), blen, memoryview(buf)[FRAME.size:end])
        return end, op, body
    if magic != MAGIC:
        raise ProtocolError(f"frame field 'magic': {bytes(magic)!r} is not {MAGIC!r}")
    if hlen > MAX_HEADER or blen > MAX_BLOB:
        raise ProtocolError(f"frame field 'header_len'/'blob_len': {hlen}/{blen} too large")
    end = FRAME.size + hlen + blen
    if len(buf) < end:
        return None
    op, body = unpack_message(bytes(buf[:FRAME.size]), bytes(buf[FRAME.size:FRAME.size + hlen]),
                              bytearray(buf[FRAME.size + hlen:end]) if blen else b"")
    return end, op, body


def clip_coefficient(max_norm: float, total_norm: torch.Tensor) -> float:
    """The clamped coefficient ``clip_grad_norm_`` multiplies gradients by, computed with the very
    same tensor ops (so the float32 value is bit-identical), for ``Manifest.clip_coef``::

        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        clip_coef = clip_coefficient(max_norm, total)
    """
    return float(torch.clamp(max_norm / (total_norm + 1e-6), max=1.0))
