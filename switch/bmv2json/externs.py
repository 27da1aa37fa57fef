"""The BMv2 JSON's P4Runtime ids and its stateful objects (split from program.py).

:class:`Ids` matches the JSON's objects to the P4Info that travels with it by name, as PI does for
BMv2, and gives the objects p4c keeps out of the P4Info (the hidden ``tbl_*`` tables and their
actions) ids from a private range (prefix ``HIDDEN_PREFIX``, 0x7f) that no P4Info id uses.
:class:`Externs` turns the JSON's counter, register and meter arrays, calculations (hashes and
checksums, with the algorithms simple_switch knows) and learn lists into the IR's resources and
digests; a learn list written in another order than its P4Info struct is reread as BMv2 delivers it
(switch/digest_bits.py).
"""
from __future__ import annotations

from ..digest_bits import reread_bytes
from .model import Bmv2JsonError, Model, const, hexint, pyname

HIDDEN_PREFIX = 0x7F

# the hash algorithms simple_switch knows (bm_sim/calculations.cpp) that v1model's HashAlgorithm names
BMV2_ALGORITHMS = {"crc16", "crc32", "crc16_custom", "crc32_custom", "csum16", "identity", "xor16"}


class Ids:
    """P4Info name -> (id, alias, object) per kind; private ids for hidden objects."""

    def __init__(self, p4info):
        self.by_kind: dict[str, dict] = {}
        for kind in ("tables", "actions", "counters", "direct_counters", "meters", "direct_meters",
                     "registers", "digests", "action_profiles", "value_sets"):
            self.by_kind[kind] = {o.preamble.name: o for o in getattr(p4info, kind)} if p4info else {}
        self.next_hidden = 1
        self.p4info = p4info

    def get(self, kind: str, name: str):
        return self.by_kind[kind].get(name)

    def id(self, kind: str, name: str) -> tuple[int, str]:
        o = self.get(kind, name)
        if o is not None:
            return o.preamble.id, o.preamble.alias or name.split(".")[-1]
        self.next_hidden += 1
        return (HIDDEN_PREFIX << 24) | self.next_hidden, name.split(".")[-1]


class Externs:
    """Counters, registers, meters, calculations and learn lists of the JSON."""

    def __init__(self, model: Model, ids: Ids):
        self.m, self.ids, self.j = model, ids, model.j
        self.ir = {"counters": [], "registers": [], "meters": [], "direct_counters": [], "direct_meters": []}
        self.py_of: dict[tuple[str, str], str] = {}
        self.reg: dict[str, dict] = {}
        unit_name = {1: "bytes", 2: "packets", 3: "packets_and_bytes"}
        for c in self.j.get("counter_arrays", []):
            kind = "direct_counters" if c.get("is_direct") else "counters"
            o = ids.get(kind, c["name"])
            cid, alias = ids.id(kind, c["name"])
            unit = unit_name.get(o.spec.unit, "packets_and_bytes") if o is not None else "packets_and_bytes"
            py = pyname(c["name"], "X_")
            self.py_of[("counter_arrays", c["name"])] = py
            if kind == "counters":
                self.ir[kind].append({"name": c["name"], "py": py, "size": int(c["size"]), "unit": unit,
                                      "id": cid, "alias": alias, "annos": []})
            else:
                self.ir[kind].append({"name": c["name"], "py": py, "unit": unit, "table": c["binding"],
                                      "id": cid, "alias": alias, "annos": [], "table_id": None})
        for r in self.j.get("register_arrays", []):
            rid, alias = ids.id("registers", r["name"])
            py = pyname(r["name"], "X_")
            spec = {"name": r["name"], "py": py, "size": int(r["size"]), "width": int(r["bitwidth"]),
                    "id": rid, "alias": alias, "annos": []}
            self.reg[r["name"]] = spec
            self.ir["registers"].append(spec)
        for mt in self.j.get("meter_arrays", []):
            kind = "direct_meters" if mt.get("is_direct") else "meters"
            mid, alias = ids.id(kind, mt["name"])
            py = pyname(mt["name"], "X_")
            self.py_of[("meter_arrays", mt["name"])] = py
            unit = "bytes" if mt.get("type") == "bytes" else "packets"
            if kind == "meters":
                self.ir[kind].append({"name": mt["name"], "py": py, "size": int(mt["size"]), "unit": unit,
                                      "id": mid, "alias": alias, "annos": []})
            else:
                self.ir[kind].append({"name": mt["name"], "py": py, "unit": unit, "table": mt["binding"],
                                      "id": mid, "alias": alias, "annos": [], "table_id": None,
                                      "result_target": mt.get("result_target")})
        self.calcs = {c["name"]: c for c in self.j.get("calculations", [])}
        for c in self.calcs.values():   # simple_switch 1.15.5 refuses the JSON at once (p4c compiles
            # HashAlgorithm.random into one): "Unknown hash algorithm: random"
            if c.get("algo") not in BMV2_ALGORITHMS:
                raise Bmv2JsonError(f"calculation '{c['name']}': Unknown hash algorithm: {c.get('algo')}")
        self.learn = {ll["id"]: ll for ll in self.j.get("learn_lists", [])}
        self.digests: dict[str, dict] = {}

    def py(self, kind: str, name: str, at: str) -> str:
        py = self.py_of.get((kind, name))
        if py is None:
            raise Bmv2JsonError(f"{at}: unknown {kind[:-1].replace('_', ' ')} '{name}'")
        return py

    def register(self, name: str, at: str) -> dict:
        if name not in self.reg:
            raise Bmv2JsonError(f"{at}: unknown register '{name}'")
        return self.reg[name]

    def field_list(self, elements, at: str) -> list:
        """[(IR expr, width)] of a calculation's / learn list's inputs."""
        out = []
        for el in elements:
            t = el.get("type")
            if t == "field":
                e = self.m.field(*el["value"])
                inst = self.m.instances.get(el["value"][0])
                if inst and not inst.get("metadata"):   # BMv2 reads no bytes of an invalid header's
                    e = {**e, "whole": True}            # field (p4c writes a bare header's fields so)
                out.append([e, None if e["t"][0] == "varbit" else e["t"][1]])
            elif t == "hexstr":
                w = int(el.get("bitwidth", 0))
                if w <= 0:
                    raise Bmv2JsonError(f"{at}: constant {el['value']} in a field list has no bitwidth")
                out.append([const(hexint(el["value"]) & ((1 << w) - 1), ["bit", w]), w])
            elif t == "header":
                inst = self.m.instances.get(el["value"])
                # a metadata instance too: p4c copies a struct inside a data list into one
                # (`{ a, s }`, s a struct local: tmp_0), whose fields BMv2 reads in order
                meta = bool(inst and inst.get("metadata"))
                ht = inst["header_type"] if meta else self.m.header(el["value"])["t"][1]
                for fname, w, _s in self.m.htypes[ht]:
                    e = self.m.field(el["value"], fname)
                    # a header: BMv2 hashes none of its bytes while it is invalid ("whole":
                    # the runtime's hash leaves such fields out then, gen_statements.csum_skip_invalid)
                    out.append([e if meta else {**e, "whole": True}, w])
            elif t == "payload":
                out.append("payload")
            else:
                raise Bmv2JsonError(f"{at}: field list element of type {t!r} is not supported")
        return out

    def calculation(self, name: str, at: str):
        c = self.calcs.get(name)
        if c is None:
            raise Bmv2JsonError(f"{at}: unknown calculation '{name}'")
        data = self.field_list(c["input"], f"{at} calculation '{name}'")
        if "payload" in data:
            raise Bmv2JsonError(f"{at}: calculation '{name}' over the payload is only supported in checksums")
        return c["algo"], data

    def learn_list(self, lid: int, at: str):
        ll = self.learn.get(lid)
        if ll is None:
            raise Bmv2JsonError(f"{at}: unknown learn list {lid}")
        data = self.field_list(ll["elements"], f"{at} learn list '{ll['name']}'")
        widths = self._digest_struct_widths(ll["name"])
        if widths is not None and None not in [w for _, w in data] and widths != [w for _, w in data]:
            # (fields written in another order than the P4Info's struct: switch/digest_bits.py)
            data = list(zip(reread_bytes(data, widths), widths))
        name = pyname(ll["name"]) if ll["name"] not in self.ids.by_kind["digests"] else ll["name"]
        if name not in self.digests:
            did, alias = self.ids.id("digests", ll["name"])
            self.digests[name] = {"name": name, "id": did, "alias": alias,
                                  "fields": [[f"f{i}", ["bit", w] if w is not None else e["t"]]   # (a varbit: its type)
                                             for i, (e, w) in enumerate(data)]}
        return name, [e for e, _w in data]


    def _digest_struct_widths(self, name: str) -> list | None:
        """The bit widths of the P4Info struct of digest ``name`` (bit<N> members only), or None."""
        d, p4info = self.ids.get("digests", name), self.ids.p4info
        if d is None or not d.type_spec.HasField("struct"):
            return None
        st = p4info.type_info.structs.get(d.type_spec.struct.name)
        if st is None or not all(m.type_spec.HasField("bitstring") and m.type_spec.bitstring.HasField("bit")
                                 for m in st.members):
            return None
        return [m.type_spec.bitstring.bit.bitwidth for m in st.members]
