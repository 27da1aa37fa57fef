"""Random v1model programs about packet replication and state across passes and frames, run on
real BMv2 and on ours (issue #15).

``generate(seed)`` builds one :class:`~diff_harness.Case` from a seed, deterministically.  Where
:mod:`fuzz_tables` puts one clone / resubmit / recirculate / multicast at a time into table
programs, this generator chains them in one program, so the order of the passes and the metadata
carried between them decide the output:

* ingress: several guarded statements per pass -- ``egress_spec`` (a port, a header field, 511,
  a port no switch has), ``mark_to_drop``, ``mcast_grp`` (groups with several ports, the same
  port twice with two rids, a group without members, an unconfigured one) before or after
  ``egress_spec``, ``clone`` / ``clone_preserving_field_list`` (I2E; two calls in one pass, a
  session with truncation, an unconfigured session), ``resubmit_preserving_field_list``,
  ``truncate``, counters, metadata written from headers and standard_metadata;
* egress: ``clone`` / ``clone_preserving_field_list`` (E2E), ``recirculate_preserving_field_list``
  (also of clones and replicas), ``truncate``, ``egress_spec`` written (ignored, or 511: drop),
  ``mark_to_drop`` by instance_type / egress_port / egress_rid; every copy reports its
  instance_type, egress_port, egress_rid, packet_length, mcast_grp and metadata into the frame;
* ``@field_list`` indices 0..3 with overlapping fields (a pass counter ``rc`` in all of them,
  which bounds resubmit chains); recirculation and E2E clones are bounded by counters in the
  Ethernet header, which every copy carries;
* multicast groups rewritten over P4Runtime between two frames (``Case.mcast_changes``);
* registers as state across frames (a per-flow read-modify-write with the index taken from a
  header, in range or not), whose value picks what the frame does; the frames then go one by one
  (``Case.one_by_one``) and are compared frame by frame;
* a checksum update over the header in ``computeChecksum`` (so on every copy);
* the clone / resubmit / recirculate / digest calls also inside actions, called directly or as
  the default action of a keyless table; ``exit``; headers made valid and invalid (the
  packet_length of later passes); a struct nested in the metadata with its own field lists;
  ``mcast_grp`` / ``egress_port`` / ``egress_rid`` written in egress (ignored).

What could make BMv2's output depend on its threads is left out: registers are written only by a
received or resubmitted packet's ingress passes (which run one after the other), never in egress
(an original and its copies pass egress in an order BMv2's threads pick); outputs of one frame are
compared as BMv2's sorted list (the harness's comparison).  No timestamps or queue depths are read.

Each seed's program is judged by :mod:`fuzz_run`; the CLI writes each finding to ``--out/<seed>/``::

    python -m tests.differential.fuzz_pre --seeds 0-300 --out /work/corpus/fuzz/fuzzs
"""
from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from diff_harness import Case  # noqa: E402
from diffcases.base import PAYLOAD, eth, hdr, program  # noqa: E402

#: metadata fields other than the pass counter (name, width); their field-list membership is random
META_FIELDS = [("f0", 8), ("f1", 16), ("f2", 8), ("f3", 32), ("lost", 8)]
#: fields of the struct nested in the metadata (``meta.pr``), assigned like the others
NESTED = [("pr.x", 8), ("pr.y", 8)]
TYPES = "struct pair_t {{ {x}bit<8> x; {y}bit<8> y; }}\nstruct dg_t {{ bit<8> rc; bit<8> it; bit<8> a; }}\n"
#: ports written to egress_spec: real ones, the CPU-less 0, drop, one neither switch has
PORTS = [1, 2, 3, 4, 5, 6, 0, 511, 20]
SOURCES = {8: ["hdr.h.a", "hdr.h.b", "(bit<8>)sm.ingress_port", "(bit<8>)sm.instance_type", "8w0x5a", "meta.rc",
               "(bit<8>)sm.packet_length"],
           16: ["hdr.h.c", "(bit<16>)hdr.h.a", "16w0xbeef", "(bit<16>)sm.egress_spec", "sm.mcast_grp"],
           32: ["hdr.h.d", "sm.packet_length", "32w0x01020304", "(bit<32>)hdr.h.c"]}
# the prologue of both controls: reads of an invalid header's fields give what BMv2's reused PHV
# holds (timing-dependent, docs/CONFORMANCE.md), so a known value is written first
PROLOGUE = ("        if (!hdr.h.isValid()) { hdr.h.setValid(); hdr.h.a = 0; hdr.h.b = 0; hdr.h.c = 0; hdr.h.d = 0; "
            "hdr.h.setInvalid(); }\n")


class Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.mcast: dict = {}
        self.clones: dict = {}
        self.regs = self.r.random() < 0.6
        self.decls = {"I": [], "E": []}

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def call(self, ctl: str, body: str) -> str:
        """``body`` (no ``if``) as it is, or in an action called directly or as the default action
        of a keyless table."""
        k = self.r.random()
        if k < 0.6:
            return body
        self.n_act = getattr(self, "n_act", 0) + 1
        a = f"a{self.n_act}"
        self.decls[ctl].append(f"    action {a}() {{ {body} }}")
        if k < 0.8:
            return f"{a}();"
        self.decls[ctl].append(f"    table t{self.n_act} {{ actions = {{ {a}; }} default_action = {a}(); }}")
        return f"t{self.n_act}.apply();"

    # ------------------------------------------------------------------ declarations
    def ann(self) -> str:
        idx = sorted(self.r.sample(range(4), self.r.randint(0, 3)))
        return f"@field_list({', '.join(map(str, idx))}) " if idx else ""

    def meta(self) -> str:
        """The metadata fields; the nested struct's fields and the struct field itself get
        @field_list annotations too (p4c: the struct field's own annotation decides for all of it)."""
        lines = ["    @field_list(0, 1, 2, 3) bit<8> rc;"]
        for name, w in META_FIELDS:
            lines.append(f"    {self.ann()}bit<{w}> {name};")
        lines.append(f"    {self.ann() if self.chance(0.3) else ''}pair_t pr;")
        self.types = TYPES.format(x=self.ann(), y=self.ann())
        return "\n".join(lines) + "\n"

    def group(self) -> int:
        r = self.r
        g = r.choice([1, 1, 2, 2, 3, 9, 0])
        if g in (1, 2) and g not in self.mcast:
            ports = r.sample(range(1, 7), r.randint(1, 3))
            reps = [(p, r.randint(0, 4)) for p in ports]
            if len(reps) < 3 and self.chance(0.5):   # the same port twice, another rid
                p, rid = reps[0]
                reps.append((p, rid + 1 + r.randint(0, 3)))
            self.mcast[g] = reps
        elif g == 3:
            self.mcast[3] = []     # a group without members
        return g

    def session(self) -> int:
        r = self.r
        s = r.choice([5, 5, 6, 7])
        if s in (5, 6) and s not in self.clones:
            reps = [(r.randint(1, 6), r.randint(0, 3)) for _ in range(r.randint(1, 2))]
            # (simple_switch_grpc 1.15.5 refuses every session with packet_length_bytes != 0)
            self.clones[s] = (sorted(set(reps)), 0)
        return s

    # ------------------------------------------------------------------ statements
    def cond(self, ctl: str) -> str:
        r = self.r
        opts = [f"hdr.h.a[{r.randint(0, 7)}:{r.randint(0, 7)}] == 0".replace("[7:0]", "[7:7]"),
                f"hdr.h.b < 8w{r.choice([2, 0x20, 0x80])}", f"meta.rc == {r.randint(0, 2)}",
                f"sm.instance_type == {r.choice([0, 1, 2, 4, 5, 6])}", f"sm.instance_type != {r.choice([0, 4])}"]
        if ctl == "I":
            opts.append(f"sm.ingress_port == {r.randint(1, 4)}")
            if self.regs:
                opts += ["meta.f3[0:0] == 1", f"meta.f3[1:0] == {r.randint(0, 3)}"]
        else:
            opts += [f"sm.egress_port == {r.randint(1, 6)}", f"sm.egress_rid == {r.randint(0, 4)}"]
        c = r.choice(opts)
        if c.startswith("hdr.h.a["):
            hi, lo = sorted((r.randint(0, 7), r.randint(0, 7)), reverse=True)
            c = f"hdr.h.a[{hi}:{lo}] == {r.randint(0, 1)}"
        return c

    def assign(self, ctl: str = "I") -> str:
        r = self.r
        name, w = r.choice(META_FIELDS + NESTED)
        # (egress_spec read in egress: BMv2's value is not the model's, docs/CONFORMANCE.md)
        src = r.choice([s for s in SOURCES[w] if ctl == "I" or "egress_spec" not in s])
        return f"meta.{name} = {src};"

    def ingress_stmt(self) -> str:
        r = self.r
        k = r.choice(["port", "port", "drop", "mcast", "mcast", "clone", "clone", "resubmit", "truncate",
                      "assign", "assign", "count", "report", "valid", "digest", "exit"])
        if k == "exit" and self.chance(0.5):
            k = "assign"
        if k == "valid":
            return self.validity()
        if k == "digest":
            return self.call("I", "digest<dg_t>(1, { meta.rc, (bit<8>)sm.instance_type, hdr.h.a });")
        if k == "exit":
            return "exit;"
        if k == "port":
            p = r.choice(PORTS + ["(bit<9>)hdr.h.a[2:0]", "(bit<9>)hdr.h.b"])
            return f"sm.egress_spec = {p};"
        if k == "drop":
            return "mark_to_drop(sm);"
        if k == "mcast":
            if self.chance(0.2):   # a group number from the packet (0..3: none, two groups, maybe a third)
                self.group()
                return "sm.mcast_grp = (bit<16>)hdr.h.b[1:0];"
            return f"sm.mcast_grp = {self.group()};"
        if k == "clone":
            # clones only from a received or resubmitted packet: every chain stays finite
            s = self.session()
            if self.chance(0.25):   # a session id from the packet: 5 and 6 configured, 0..4 and 7 not
                s = "(bit<32>)hdr.h.a[2:0]"
            call = (f"clone_preserving_field_list(CloneType.I2E, {s}, {r.randint(0, 3)});" if self.chance(0.6)
                    else f"clone(CloneType.I2E, {s});")
            return f"if (sm.instance_type == 0 || sm.instance_type == 6) {{ {self.call('I', self.assign() + ' ' + call)} }}"
        if k == "resubmit":
            return (f"if ((sm.instance_type == 0 || sm.instance_type == 6) && meta.rc < {r.randint(1, 2)}) "
                    f"{{ {self.call('I', f'meta.rc = meta.rc + 1; {self.assign()} resubmit_preserving_field_list({r.randint(0, 3)});')} }}")
        if k == "truncate":
            return f"truncate({r.choice([14, 18, 22, 30, 100])});"
        if k == "count":
            self.need_counter("I")
            return f"ci.count((bit<32>){r.choice(['hdr.h.a[2:0]', 'sm.ingress_port', 'meta.rc', 'hdr.h.b'])});"
        if k == "report":
            return r.choice(["hdr.h.d = sm.packet_length;", "hdr.h.c = (bit<16>)sm.instance_type;",
                             "hdr.h.b = meta.rc;", "hdr.h.c = sm.mcast_grp;", "hdr.h.d[8:0] = sm.egress_spec;"])
        return self.assign()

    def egress_stmt(self) -> str:
        r = self.r
        k = r.choice(["clone", "clone", "recirc", "recirc", "truncate", "spec", "drop", "assign", "count", "valid",
                      "ignored"])
        if k == "valid":
            return self.validity()
        if k == "ignored":   # written in egress: nothing follows from them
            return r.choice(["sm.mcast_grp = 1;", f"sm.egress_port = {r.randint(1, 6)};", "sm.egress_rid = 9;"])
        if k == "clone":
            s = self.session()
            call = (f"clone_preserving_field_list(CloneType.E2E, {s}, {r.randint(0, 3)});" if self.chance(0.6)
                    else f"clone(CloneType.E2E, {s});")
            # eth.dst[31:24] marks a packet that was cloned in egress (E2E clones copy the headers):
            # one E2E clone per lineage
            return (f"if (hdr.eth.dst[31:24] == 0) {{ hdr.eth.dst[31:24] = 1; {self.call('E', self.assign('E') + ' ' + call)} }}")
        if k == "recirc":
            # eth.dst[23:16] counts recirculations (headers travel with the recirculated packet);
            # rc too, where the field list the call names keeps it
            body = f"meta.rc = meta.rc + 1; {self.assign('E')} recirculate_preserving_field_list({r.randint(0, 3)});"
            return (f"if (hdr.eth.dst[23:16] < {r.randint(1, 2)}) {{ hdr.eth.dst[23:16] = hdr.eth.dst[23:16] + 1; "
                    f"{self.call('E', body)} }}")
        if k == "truncate":
            return f"truncate({r.choice([14, 18, 22, 30, 100])});"
        if k == "spec":
            return f"sm.egress_spec = {r.choice([1, 3, 511, 20])};"
        if k == "drop":
            return "mark_to_drop(sm);"
        if k == "count":
            self.need_counter("E")
            return f"ce.count((bit<32>){r.choice(['sm.egress_port', 'sm.egress_rid', '(bit<9>)sm.instance_type'])});"
        return self.assign("E")

    def validity(self) -> str:
        """Headers made valid / invalid: packet_length of later passes and copies changes."""
        return self.r.choice(["hdr.h2.setValid(); hdr.h2.a = meta.rc; hdr.h2.b = (bit<8>)sm.instance_type;",
                              "hdr.h2.setInvalid();", "hdr.h.setInvalid();", "hdr.h.setValid();"])

    def need_counter(self, ctl: str) -> None:
        n = "ci" if ctl == "I" else "ce"
        if not any(d.endswith(f" {n};") for d in self.decls[ctl]):
            t = self.r.choice(["packets", "bytes", "packets_and_bytes"])
            self.decls[ctl].append(f"    counter(8, CounterType.{t}) {n};")

    def block(self, stmts: list[str], ctl: str) -> str:
        out = []
        for s in stmts:
            # (an unconditional exit: p4c leaves a digest after it out of its JSON but not of its P4Info)
            if self.chance(0.5) or s == "exit;":
                s = f"if ({self.cond(ctl)}) {{ {s} }}" if self.chance(0.7) else \
                    f"if ({self.cond(ctl)}) {{ {s} }} else {{ {self.ingress_stmt() if ctl == 'I' else self.egress_stmt()} }}"
            out.append(f"        {s}\n")
        return "".join(out)

    # ------------------------------------------------------------------ state across frames
    def state(self) -> str:
        """A per-flow counter (register) read, incremented and written back by the received and
        resubmitted passes; its value lands in meta.f3 (which decides some statements) and h.d."""
        r = self.r
        size = r.choice([4, 8])
        self.decls["I"].append(f"    register<bit<32>>({size}) rs;")
        idx = r.choice(["(bit<32>)hdr.h.a[1:0]", "(bit<32>)hdr.h.a[3:0]", "(bit<32>)hdr.h.b", "(bit<32>)sm.ingress_port"])
        step = r.choice(["32w1", "(bit<32>)hdr.h.b", "32w3"])
        return (f"        if (sm.instance_type == 0 || sm.instance_type == 6) {{ bit<32> v = 32w7; rs.read(v, {idx}); "
                f"v = v + {step}; rs.write({idx}, v); meta.f3 = v; hdr.h.d = v; }}\n")

    # ------------------------------------------------------------------ program
    def build(self) -> Case:
        r = self.r
        meta = self.meta()
        ing = self.state() if self.regs else ""
        ing += self.block([self.ingress_stmt() for _ in range(r.randint(3, 7))], "I")
        if self.chance(0.3):   # mcast then unicast port (mcast wins) or the other way round
            pair = [f"sm.mcast_grp = {self.group()};", f"sm.egress_spec = {r.choice([2, 4, 511])};"]
            if self.chance(0.5):
                pair.reverse()
            ing += "        " + " ".join(pair) + "\n"
        ing += "        hdr.eth.dst[7:0] = (bit<8>)sm.instance_type; hdr.eth.dst[15:8] = meta.rc;\n"
        eg = self.block([self.egress_stmt() for _ in range(r.randint(2, 5))], "E")
        if any(len(v) > 1 for v in self.mcast.values()):
            # replicas that recirculate and replicate again: a few hundred copies of four frames
            # make simple_switch_grpc lose some of its output (on the busiest port): one round
            eg = eg.replace("hdr.eth.dst[23:16] < 2)", "hdr.eth.dst[23:16] < 1)")
        eg += ("        hdr.eth.src[7:0] = (bit<8>)sm.instance_type; hdr.eth.src[15:8] = sm.egress_rid[7:0];\n"
               "        hdr.eth.src[23:16] = sm.egress_port[7:0]; hdr.eth.src[39:24] = sm.packet_length[15:0];\n"
               "        hdr.eth.src[47:40] = meta.rc; hdr.eth.dst[47:32] = meta.f3[15:0];\n")
        if self.chance(0.5):
            eg += ("        hdr.h.a = meta.f0; hdr.h.b = meta.f2 ^ meta.lost; hdr.h.c = meta.f1 ^ sm.mcast_grp;\n"
                   "        hdr.h.d[15:0] = meta.pr.x ++ meta.pr.y;\n")
        compute = "apply { }"
        if self.chance(0.3):
            compute = ("apply { update_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.b, hdr.h.d }, hdr.h.c, "
                       "HashAlgorithm.csum16); }")
        src = program(PROLOGUE + ing, egress=PROLOGUE + eg, ingress_decls="\n".join(self.decls["I"]) + "\n",
                      egress_decls="\n".join(self.decls["E"]) + "\n", meta=meta, compute=compute, headers=self.types,
                      forward=self.chance(0.7))
        frames = self.frames()
        changes: dict = {}
        groups = [g for g in sorted(self.mcast) if g in (1, 2)]
        if self.regs and groups and self.chance(0.5):   # a group rewritten between two frames
            g = r.choice(groups)
            reps = [(p, r.randint(0, 4)) for p in r.sample(range(1, 7), r.randint(0, 3))]
            changes[r.randint(1, len(frames) - 1)] = {g: reps}
        return Case(name=f"fuzzs_{self.seed}", category="fuzz-pre", source=src, frames=frames,
                    mcast=self.mcast, clones=self.clones, one_by_one=self.regs, mcast_changes=changes)

    def frames(self):
        r = self.r
        out = []
        flows = [r.randint(0, 255) for _ in range(3)]
        for _ in range(r.randint(4, 8)):
            port = r.randint(1, 4)
            if self.chance(0.08):
                out.append((port, eth(0x0800) + PAYLOAD))
                continue
            a = r.choice(flows) if self.chance(0.8) else r.getrandbits(8)
            if a == 0xee:
                a = 0xef
            out.append((port, eth(0x1234) + hdr(a, r.choice([0, 1, 2, 0x20, 0x81, r.getrandbits(8)]),
                                                r.getrandbits(16), r.getrandbits(32)) + PAYLOAD))
        return out


def generate(seed: int) -> Case:
    return Gen(seed).build()


if __name__ == "__main__":
    from fuzz_run import main
    sys.exit(main(generate, __doc__, "/tmp/fuzz-pre"))
