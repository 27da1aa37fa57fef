"""The example's models and their data: ``mlp`` (default), ``cnn``, ``gpt``.

Each model comes as a :class:`Task`: the ``torch.nn.Module``, how to draw the batch of a given
``(iteration, rank)`` and the loss.  Every batch is a pure function of ``(seed, iteration, rank)``
and no model uses dropout, so a run resumed from a checkpoint sees exactly the data and does
exactly the arithmetic of an uninterrupted one.  All data is already on every machine (nothing is
downloaded):

* ``mlp`` -- 64 -> hidden -> hidden/2 -> 10 on scikit-learn's bundled digits (8x8 images).
  17 k parameters with the default ``--hidden 128``.
* ``cnn`` -- a small ResNet on the same digits as 1x8x8 images: a conv stem, ``--layers`` residual
  blocks (the last one strided, with a 1x1 projection shortcut), every convolution followed by
  **BatchNorm** -- so the model has buffers (``running_mean``, ``running_var``,
  ``num_batches_tracked``) that change in the forward pass and must be checkpointed too.
  ~20 k parameters with ``--hidden 16 --layers 2``.
* ``gpt`` -- a decoder-only transformer over bytes (vocabulary 256): token + position embeddings,
  pre-LayerNorm blocks (causal self-attention, GELU MLP), a final LayerNorm and an output layer
  whose weight **is** the token embedding (tied: one parameter used twice per step).  Trained on a
  text corpus every machine has: the Python standard library's ``argparse.py`` (``--corpus`` picks
  another file).  ~0.8 M parameters with the defaults ``--hidden 128 --layers 4 --heads 4
  --context 64``.
"""
from __future__ import annotations

import math
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

MODELS = ("mlp", "cnn", "gpt")
#: per-model defaults of the shape flags (``--hidden``, ``--layers``)
DEFAULTS = {"mlp": {"hidden": 128, "layers": 2}, "cnn": {"hidden": 16, "layers": 2},
            "gpt": {"hidden": 128, "layers": 4}}


@dataclass
class Task:
    """A model with its data: ``batch(iteration, rank, world, size) -> (x, y)``, ``loss(out, y)``."""

    name: str
    model: nn.Module
    batch: Callable[[int, int, int, int], tuple[torch.Tensor, torch.Tensor]]
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    @property
    def parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())


# -- data ------------------------------------------------------------------------------------------
def load_digits() -> tuple[torch.Tensor, torch.Tensor]:
    """``sklearn.datasets.load_digits()``: 1797 8x8 images, 64 features in 0..16, 10 classes.

    The CSV scikit-learn ships is read directly when present: importing scikit-learn costs each
    rank more CPU time than a short training run.  Same numbers either way.
    """
    import importlib.util
    import numpy as np
    spec = importlib.util.find_spec("sklearn")
    csv = Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz" if spec and spec.origin else None
    if csv is not None and csv.exists():
        data = np.loadtxt(csv, delimiter=",")
        feats, target = data[:, :-1], data[:, -1].astype(np.int64)
    else:
        from sklearn.datasets import load_digits as sk_load
        d = sk_load()
        feats, target = d.data, d.target
    return torch.tensor(feats, dtype=torch.float32) / 16.0, torch.tensor(target, dtype=torch.int64)


def batch_indices(n: int, seed: int, iteration: int, rank: int, world: int, batch: int) -> torch.Tensor:
    """This rank's samples for ``iteration``: one permutation per iteration, sliced by rank."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + iteration)
    perm = torch.randperm(n, generator=g)
    need = world * batch
    if need > n:
        perm = perm.repeat(-(-need // n))
    return perm[rank * batch:(rank + 1) * batch]


def default_corpus() -> Path:
    """A text file on every machine with this Python: the standard library's ``argparse.py``."""
    return Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"


def load_corpus(path: str | Path | None = None) -> torch.Tensor:
    """The corpus as a 1-D int64 tensor of bytes (the GPT's tokens)."""
    p = Path(path) if path else default_corpus()
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise SystemExit(f"--corpus {p}: cannot read it ({e.strerror})") from None
    if len(raw) < 1024:
        raise SystemExit(f"--corpus {p}: only {len(raw)} bytes; need at least 1024")
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).to(torch.int64)


def text_windows(tokens: torch.Tensor, context: int, seed: int, iteration: int, rank: int, world: int,
                 batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch`` windows of ``context`` tokens and their next-token targets, per ``(seed, iteration, rank)``."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + iteration)
    starts = torch.randint(0, len(tokens) - context - 1, (world * batch,), generator=g)[rank * batch:(rank + 1) * batch]
    idx = starts[:, None] + torch.arange(context + 1)
    w = tokens[idx]
    return w[:, :-1], w[:, 1:]


# -- models ----------------------------------------------------------------------------------------
def mlp(hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden), nn.GELU(), nn.Linear(hidden, hidden // 2), nn.GELU(),
                         nn.Linear(hidden // 2, 10))


class ResBlock(nn.Module):
    """conv-BN-ReLU-conv-BN plus the shortcut (a 1x1 conv + BN when the shape changes), then ReLU."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.short is None else self.short(x)))


class ResNet(nn.Module):
    def __init__(self, channels: int = 16, blocks: int = 2, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels), nn.ReLU())
        layers, c = [], channels
        for i in range(blocks):
            last = i == blocks - 1 and blocks > 1
            layers.append(ResBlock(c, 2 * c if last else c, 2 if last else 1))
            c = 2 * c if last else c
        self.blocks = nn.Sequential(*layers)
        self.head = nn.Linear(c, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x.view(-1, 1, 8, 8)))
        return self.head(x.mean(dim=(2, 3)))


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        if dim % heads:
            raise SystemExit(f"--hidden {dim} is not a multiple of --heads {heads}")
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(dim), CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """Decoder-only transformer; ``head.weight`` is ``tok.weight`` (tied)."""

    def __init__(self, vocab: int = 256, dim: int = 128, layers: int = 4, heads: int = 4, context: int = 64):
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(context, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied: model.parameters() lists it once
        for name, p in self.named_parameters():  # GPT-2 style init, scaled residual projections
            if p.dim() >= 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight", "mlp.2.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        return self.head(self.ln_f(self.blocks(x)))


def _classify(out, y):
    return F.cross_entropy(out, y)


def _next_token(out, y):
    return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def build_task(name: str, *, seed: int = 0, hidden: int | None = None, layers: int | None = None,
               heads: int = 4, context: int = 64, corpus: str | None = None, data=None) -> Task:
    """The model ``name`` (initialised from ``seed``) with its data.  ``data``: already loaded data
    (digits ``(x, y)`` or corpus tokens) to share between builds."""
    if name not in MODELS:
        raise SystemExit(f"--model {name!r}: choose one of {', '.join(MODELS)}")
    hidden = hidden or DEFAULTS[name]["hidden"]
    layers = layers or DEFAULTS[name]["layers"]
    torch.manual_seed(seed)
    if name == "gpt":
        model = GPT(256, hidden, layers, heads, context)
        tokens = data if data is not None else load_corpus(corpus)
        return Task(name, model, lambda it, r, w, b: text_windows(tokens, context, seed, it, r, w, b), _next_token)
    model = mlp(hidden) if name == "mlp" else ResNet(hidden, layers)
    x_all, y_all = data if data is not None else load_digits()

    def batch(it, r, w, b):
        idx = batch_indices(len(x_all), seed, it, r, w, b)
        return x_all[idx], y_all[idx]
    return Task(name, model, batch, _classify)
