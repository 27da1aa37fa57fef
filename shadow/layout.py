"""Where each owned gradient element lives inside a shard's flat per-iteration buffer.

A :class:`ShardLayout` is computed once per bootstrap from the model's :class:`ParamSpec` list and
the shard map.  Owned parameters are laid out back to back in (optimizer group, ``param_id``)
order, each starting on a 64-byte boundary (so ``torch.frombuffer`` views are aligned), and each
gets an *element base* in one global element index used by the coverage bitmap.  Grouping by
optimizer group puts each group's gradients in one span of the buffer, which the replica steps as
one tensor (:mod:`shadow.flat`); ``owned`` stays in ``param_id`` order.  The hot path looks a packet's
``param_id`` up in plain Python lists indexed by param id (no dict, no objects), which is why the
layout keeps ``elem_base``/``byte_base``/``numel``/``wire_dtype`` as flat lists with ``-1`` for
params this shard does not own.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from checkmate import wire

from .protocol import DTYPES, ParamSpec, ProtocolError

#: dtype name -> Checkmate wire dtype code; only these can arrive as gradients.
WIRE_DTYPE = {"float32": wire.DTYPE_FP32, "float16": wire.DTYPE_FP16, "bfloat16": wire.DTYPE_BF16}
ALIGN = 64


@dataclass
class ShardLayout:
    shard: int
    params: list[ParamSpec]  #: ALL params of the model, index = param_id
    owned: list[int]  #: owned param ids, ascending
    elem_base: list[int]  #: per param id: first element in the coverage index, -1 if not owned
    byte_base: list[int]  #: per param id: first byte in the flat buffer, -1 if not owned
    numel: list[int]
    wire_dtype: list[int]
    elem_size: list[int]
    total_elems: int
    total_bytes: int

    @classmethod
    def build(cls, params: list[ParamSpec], owner: dict[int, int], shard: int) -> "ShardLayout":
        n = len(params)
        for i, p in enumerate(params):
            if p.param_id != i:
                raise ProtocolError(f"Bootstrap.params[{i}]: field 'param_id' is {p.param_id}, expected {i} "
                                    f"(params must be listed in model.parameters() order)")
        for pid in owner:
            if not 0 <= int(pid) < n:
                raise ProtocolError(f"ShardMap.owner: field 'param_id' {pid} is not a param of the model (0..{n - 1})")
        owned = sorted(int(pid) for pid, s in owner.items() if s == shard)
        elem_base, byte_base = [-1] * n, [-1] * n
        numel = [p.numel for p in params]
        wdt, esz = [-1] * n, [0] * n
        e = b = 0
        for pid in sorted(owned, key=lambda q: (params[q].group, q)):  # each group's params back to back
            p = params[pid]
            if p.dtype not in WIRE_DTYPE:
                raise ProtocolError(f"ParamSpec {p.name!r}: field 'dtype': {p.dtype} cannot travel as a Checkmate gradient")
            wdt[pid] = WIRE_DTYPE[p.dtype]
            esz[pid] = torch.empty((), dtype=DTYPES[p.dtype]).element_size()
            elem_base[pid], byte_base[pid] = e, b
            e += numel[pid]
            b += -(-numel[pid] * esz[pid] // ALIGN) * ALIGN
        return cls(shard, list(params), owned, elem_base, byte_base, numel, wdt, esz, e, b)

    def same_as(self, other: "ShardLayout | None") -> bool:
        return (other is not None and self.owned == other.owned
                and [(p.shape, p.dtype, p.group) for p in self.params]
                == [(p.shape, p.dtype, p.group) for p in other.params])
