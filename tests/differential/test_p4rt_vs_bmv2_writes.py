"""Hand-written P4Runtime sequences of writes and reads (byte strings, priorities, ranges, ids and
scopes, direct resources, keyed reads, commits of saved programs) -- the second half of
test_p4rt_vs_bmv2.py: each runs on both switches and every answer must be equal, or one of the BMv2
gaps ``fuzz_p4rt.accepted`` lists."""
from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2 as pb

import fuzz_p4rt as F
from diff_targets import bmv2_available
from p4rt_vs import S, U, _digest_cfg, action, entry, run, selector_table, traffic, u, w

SKIP = bmv2_available()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=f"P4Runtime differential needs real BMv2: {SKIP}")


def test_empty_byte_strings_are_zero(targets):
    """An empty (unset) byte string is the value 0 to PI/BMv2 (fuzz_p4rt seeds 3020, 3023, 3049):
    an exact or optional match value, a range's low end, an action parameter.  INSERT, the entry
    read back with the canonical zero, MODIFY and DELETE through the empty form; an entry that
    spells the zero out is then a duplicate.  A range whose empty high end is below its low end,
    and an empty ternary mask (0: a don't care that must be omitted), stay refused."""
    def ops(info):
        out = []
        for t in info.tables:
            kinds = {mf.match_type for mf in t.match_fields}
            if not kinds & {2, 5, 6} or not t.action_refs:
                continue
            act = next(a for a in info.actions if a.preamble.id == t.action_refs[0].id)

            def te(zero, lo=b"", hi=b"\x05", with_action=True):
                e = pb.TableEntry(table_id=t.preamble.id)
                for mf in t.match_fields:
                    fm = e.match.add(field_id=mf.id)
                    if mf.match_type == 2:
                        fm.exact.value = zero
                    elif mf.match_type == 6:
                        fm.optional.value = zero
                    elif mf.match_type == 5:
                        fm.range.low, fm.range.high = lo, hi
                    elif mf.match_type == 3:
                        fm.lpm.value, fm.lpm.prefix_len = zero, 1
                    else:
                        fm.ternary.value, fm.ternary.mask = zero, b"\x01"
                e.priority = 1 if kinds & {4, 5, 6} else 0
                if with_action:
                    e.action.action.action_id = act.preamble.id
                    for p in act.params:
                        e.action.action.params.add(param_id=p.id, value=b"")
                return e
            read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
            out += [w(u(U.INSERT, table_entry=te(b""))), read, w(u(U.INSERT, table_entry=te(b"\x00", lo=b"\x00"))),
                    w(u(U.MODIFY, table_entry=te(b""))), w(u(U.DELETE, table_entry=te(b"", with_action=False))),
                    read, w(u(U.DELETE, table_entry=te(b"", with_action=False)))]
            if 5 in kinds:
                out += [w(u(U.INSERT, table_entry=te(b"\x01", lo=b"\x02", hi=b""))), read]
            if 4 in kinds:
                e = te(b"\x01")
                next(fm for fm in e.match if fm.HasField("ternary")).ternary.mask = b""
                out += [w(u(U.INSERT, table_entry=e)), read]
        assert len(out) >= 14, "the programs of seeds 3020 and 3049 have exact, optional and range keys"
        return out
    for seed in (3020, 3049):
        assert not run(targets, seed, ops)


def test_a_program_load_empties_learn_lists(targets):
    """fuzz_p4rt seed 3011: a program load (the same program again) makes BMv2's learn lists anew.
    Digests pending before it -- collected by the defaults, or by a subscribed list without a
    timeout -- never come out after the next DigestEntry, and a later digest starts a list of its
    own under the new config; a digest sent but not acked before it is not suppressed after it.
    Lists sent at once (1 ms timeout, size 1): no timing near a deadline."""
    def ops(info):
        did = info.digests[0].preamble.id

        def cfg(kind, t=0, n=0, ack=5 * 10**9):
            e = pb.DigestEntry(digest_id=did)
            if kind != U.DELETE:
                e.config.max_timeout_ns, e.config.max_list_size, e.config.ack_timeout_ns = t, n, ack
            return w(u(kind, digest_entry=e))
        dig, nack = ("digests", True), ("digests", False)
        load = ("setcfg", S.VERIFY_AND_COMMIT, "same")
        return [load, traffic(1, 2), load, cfg(U.INSERT, 10**6), dig, dig, traffic(3), dig, cfg(U.DELETE),
                load, cfg(U.INSERT, 0, 10), traffic(11, 12), load, cfg(U.INSERT, 10**6), dig, dig, traffic(13), dig,
                cfg(U.DELETE),
                load, cfg(U.INSERT, 0, 1), traffic(5), nack, traffic(5), nack, load, cfg(U.INSERT, 0, 1), traffic(5),
                nack, cfg(U.DELETE)]
    assert not run(targets, 0, ops)


def test_const_table_priority_and_program_entries(targets):
    """fuzz_p4rt seed 3128: on a const table BMv2 refuses a priority that no key needs
    (INVALID_ARGUMENT) before it looks at constness, for INSERT, MODIFY and DELETE; and a MODIFY or
    DELETE of a key the program's `const entries` installed is NOT_FOUND (PI knows only the
    entries written through it), as is one of a key not installed."""
    def ops(info):
        out = []
        for t in info.tables:
            if not t.is_const_table or any(mf.match_type in (4, 5, 6) for mf in t.match_fields):
                continue
            act = next(a for a in info.actions if a.preamble.id == t.action_refs[0].id)
            for prio in (5, 0):
                for kind in (U.INSERT, U.MODIFY, U.DELETE):
                    e = pb.TableEntry(table_id=t.preamble.id, priority=prio)
                    for mf in t.match_fields:
                        fm = e.match.add(field_id=mf.id)
                        if mf.match_type == 2:   # 26 (bit<32>): a key of t0's const entries
                            fm.exact.value = b"\x0a" if mf.bitwidth == 8 else b"\x00\x00\x00\x1a"
                        else:
                            fm.lpm.value, fm.lpm.prefix_len = b"\xff\xff\xf8\x00", 21
                    if kind != U.DELETE:
                        e.action.action.action_id = act.preamble.id
                        for p in act.params:
                            e.action.action.params.add(param_id=p.id, value=b"\x01")
                    out.append(w(u(kind, table_entry=e)))
        assert len(out) == 12, "seed 3128's program has two const tables without priority keys"
        return out
    assert not run(targets, 3128, ops)


def test_a_range_with_neither_end_is_refused(targets):
    """fuzz_p4rt seed 3121: `range { }` (both ends empty) is INVALID_ARGUMENT on BMv2, in an INSERT
    and a DELETE, while a range with only one end empty takes the other as 0."""
    def ops(info):
        t = next(t for t in info.tables if any(mf.match_type == 5 for mf in t.match_fields))
        act = next(a for a in info.actions if a.preamble.id == t.action_refs[0].id)
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
        out = []
        for lo, hi in ((b"", b""), (b"\x00", b""), (b"", b"\x00"), (b"", b"\x07")):
            e = pb.TableEntry(table_id=t.preamble.id, priority=4)
            for mf in t.match_fields:
                fm = e.match.add(field_id=mf.id)
                if mf.match_type == 5:
                    fm.range.low, fm.range.high = lo, hi
                else:
                    fm.lpm.value, fm.lpm.prefix_len = b"\x50" + b"\x00" * ((mf.bitwidth + 7) // 8 - 1), 4
            key = pb.TableEntry()
            key.CopyFrom(e)
            e.action.action.action_id = act.preamble.id
            for p in act.params:
                e.action.action.params.add(param_id=p.id, value=b"\x01")
            out += [w(u(U.INSERT, table_entry=e)), read, w(u(U.DELETE, table_entry=key))]
        return out
    assert not run(targets, 3121, ops)


def test_a_priority_on_a_table_without_priority_keys_is_refused_before_the_lookup(targets):
    """fuzz_p4rt seed 3193: a MODIFY or DELETE carrying a priority, on a table none of whose keys
    needs one, is INVALID_ARGUMENT on BMv2 whether or not the key is installed (checkmate-switch
    looked the (key, priority) up first: NOT_FOUND), and changes nothing."""
    def ops(info):
        t = next(t for t in info.tables if t.implementation_id
                 and not any(mf.match_type in (4, 5, 6) for mf in t.match_fields))
        mem = pb.ActionProfileMember(action_profile_id=t.implementation_id, member_id=1)
        mem.action.CopyFrom(action(info, "fwd", b"\x02"))
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
        out = [w(u(U.INSERT, action_profile_member=mem)), w(u(U.INSERT, table_entry=entry(t, b"\x10", member=1)))]
        for v in (b"\x10", b"\x20"):   # installed, not installed
            for kind, m in ((U.MODIFY, 1), (U.MODIFY, 999), (U.DELETE, 1)):
                out += [w(u(kind, table_entry=entry(t, v, member=m, priority=5))), read]
        out += [w(u(U.DELETE, table_entry=entry(t, b"\x10", member=1))), read]
        return out
    assert not run(targets, 3193, ops)


def test_insert_of_an_existing_key_with_a_missing_group(targets):
    """fuzz_p4rt seed 3249: an INSERT of a key that is installed, naming a group that does not
    exist, is INVALID_ARGUMENT on BMv2 (the group first); with an empty group that exists it is
    ALREADY_EXISTS (the key first)."""
    def ops(info):
        t, pid, mem = selector_table(info)
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
        return [w(u(U.INSERT, action_profile_member=mem)), w(u(U.INSERT, table_entry=entry(t, b"\x10", member=1))),
                w(u(U.INSERT, table_entry=entry(t, b"\x10", group=999))),
                w(u(U.INSERT, action_profile_group=pb.ActionProfileGroup(action_profile_id=pid, group_id=5))),
                w(u(U.INSERT, table_entry=entry(t, b"\x10", group=5))),
                w(u(U.INSERT, table_entry=entry(t, b"\x20", group=999))), read]
    assert not run(targets, 7, ops)


def test_writes_to_a_table_p4c_removed(targets):
    """helper mutz24: a table p4c's P4Info lists but its midend removed from the BMv2 JSON (applied
    only in a branch its constant propagation folds, or after a return an enum-cast condition makes
    unconditional): BMv2 refuses an INSERT (UNKNOWN, "Error when adding match entry to target") and
    finds no entry to MODIFY or DELETE (NOT_FOUND; checkmate-switch answered INVALID_ARGUMENT)."""
    from diffcases.base import program
    src = program("""
        bit<8> k = 3;
        if (k == 4) { t_dead.apply(); }
        if ((En_t)4w5 != En_t.C) { t_live.apply(); return; }
        t_after.apply();
""", ingress_decls="""\
    action s(bit<8> v) { hdr.h.b = v; }
    table t_dead { key = { hdr.h.a: exact; } actions = { s; NoAction; } }
    table t_live { key = { hdr.h.a: exact; } actions = { s; NoAction; } }
    table t_after { key = { hdr.h.a: exact; } actions = { s; NoAction; } }
""", top="enum bit<4> En_t { A = 1, B = 5, C = 9 }\n")

    def ops(info):
        out = []
        for name in ("t_dead", "t_after", "t_live"):
            t = next(x for x in info.tables if x.preamble.name.endswith(name))
            read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
            e = entry(t, b"\x02", act=action(info, "I.s", b"\x05"))
            out += [w(u(U.INSERT, table_entry=e)), read, w(u(U.MODIFY, table_entry=e)), w(u(U.DELETE, table_entry=e)), read]
            d = pb.TableEntry(table_id=t.preamble.id, is_default_action=True)
            d.action.action.CopyFrom(action(info, "I.s", b"\x06"))
            out += [w(u(U.MODIFY, table_entry=d)),
                    ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id, is_default_action=True))])]
        return out
    assert not run(targets, 11, ops, source=src)


def test_ids_scopes_and_repeated_parameters_as_bmv2(targets):
    """helper mutz24's probes: a table's key elements and an action's parameters with @id come back
    in the P4Info's order, not by id (BMv2; checkmate-switch sorted them); a parameter id given
    twice is no error -- PI counts the parameters, the last value wins, the one left out is 0
    (checkmate-switch: INVALID_ARGUMENT); a @tableonly action as the default, a @defaultonly one in
    an entry: PERMISSION_DENIED (checkmate-switch: INVALID_ARGUMENT)."""
    from diffcases.base import program
    src = program("""
        t.apply();
""", ingress_decls="""\
    action s(@id(5) bit<8> v, @id(2) bit<16> x) { hdr.h.b = v; hdr.h.c = x; }
    @id(0x02000077) table t { key = { hdr.h.a: exact @id(7); hdr.h.b: ternary @id(3) @name("bb"); } actions = { @tableonly s; @defaultonly NoAction; } }
""")

    def ops(info):
        t = info.tables[0]
        a = next(x for x in info.actions if x.preamble.name.endswith("s"))
        read = ("read", [pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id))])
        out = []
        for pids in ((5, 2), (2, 5), (1, 2), (5, 5)):
            e = pb.TableEntry(table_id=t.preamble.id, priority=3)
            e.match.add(field_id=7).exact.value = b"\x02"
            tm = e.match.add(field_id=3).ternary
            tm.value, tm.mask = b"\x01", b"\x0f"
            e.action.action.action_id = a.preamble.id
            e.action.action.params.add(param_id=pids[0], value=b"\x05")
            e.action.action.params.add(param_id=pids[1], value=b"\x00\x06")
            out += [w(u(U.INSERT, table_entry=e)), read, w(u(U.DELETE, table_entry=e))]
        d = pb.TableEntry(table_id=t.preamble.id, is_default_action=True)
        d.action.action.action_id = a.preamble.id
        d.action.action.params.add(param_id=5, value=b"\x05")
        d.action.action.params.add(param_id=2, value=b"\x00\x06")
        out += [w(u(U.MODIFY, table_entry=d))]
        e = pb.TableEntry(table_id=t.preamble.id, priority=3)
        e.match.add(field_id=1).exact.value = b"\x02"
        e.action.action.action_id = a.preamble.id
        out += [w(u(U.INSERT, table_entry=e))]
        na = next(x for x in info.actions if x.preamble.name.endswith("NoAction"))
        e = pb.TableEntry(table_id=t.preamble.id, priority=3)
        e.match.add(field_id=7).exact.value = b"\x09"
        e.action.action.action_id = na.preamble.id
        out += [w(u(U.INSERT, table_entry=e)), read]
        return out
    assert not run(targets, 12, ops, source=src)


def test_a_whole_range_is_refused_only_written_over_whole_bytes(targets):
    """fuzz_p4rt seed 4176: PI refuses a range over a whole field (a don't care) only when its ends
    are the field's whole bytes of zeros and ones (`00 00`..`ff ff` for a bit<16>, `00`..`ff` for a
    bit<8>), in a DELETE and a keyed Read; written shorter or longer (`00`..`ff ff`, ``..`ff`) it is
    taken as if the field were omitted (checkmate-switch compared the values)."""
    def ops(info):
        out = []
        for width in (16, 8):
            t = next(t for t in info.tables if any(mf.match_type == 5 and mf.bitwidth == width for mf in t.match_fields))
            n = width // 8
            for lo, hi in ((b"\x00" * n, b"\xff" * n), (b"", b"\xff" * n), (b"\x00" * (n + 1), b"\xff" * n),
                           (b"\x00" * n, b"\x00" + b"\xff" * n)):
                e = entry(t, b"\x05", priority=1)
                for fm in e.match:
                    if next(m for m in t.match_fields if m.id == fm.field_id).match_type == 5:
                        fm.range.low, fm.range.high = lo, hi
                out += [w(u(U.DELETE, table_entry=e)), ("read", [pb.Entity(table_entry=e)])]
        return out
    assert not run(targets, 4176, ops, source=F.generate(4176).replace("hdr.h.d: exact;", "hdr.h.d: exact;\n            hdr.h.a: range;"))


@pytest.mark.parametrize("kind, seed", [("counter", 4195), ("meter", 4000)])
def test_direct_resource_entries_are_named_by_their_key(targets, kind, seed):
    """fuzz_p4rt seed 4195: a DirectCounterEntry's table entry names the entry by its key -- BMv2
    ignores an action (even an unknown one) and an idle timeout in a MODIFY and a keyed Read, a
    keyed Read answers with the request's table entry as sent (bytes, action, idle timeout) and
    refuses a key no entry has (INVALID_ARGUMENT; checkmate-switch answered OK with nothing).  The
    same for a DirectMeterEntry (probed on seed 4000's program, which has a direct meter)."""
    field, cls = f"direct_{kind}_entry", (pb.DirectCounterEntry if kind == "counter" else pb.DirectMeterEntry)

    def ops(info):
        t = info.tables[0] if kind == "counter" else next(
            t for t in info.tables if t.direct_resource_ids and any(
                m.preamble.id in t.direct_resource_ids for m in info.direct_meters))
        act = next(a for a in info.actions if a.preamble.id == t.action_refs[0].id)
        e = entry(t, b"\x05", priority=1, act=action(info, act.preamble.name, *[b"\x01"] * len(act.params)))
        out = [w(u(U.INSERT, table_entry=e))]
        for v, idle, bogus in ((b"\x05", 1000, False), (b"\x05", 0, True), (b"\x06", 0, False), (b"\x00\x05", 1000, True)):
            k = entry(t, v, priority=1)
            k.idle_timeout_ns = idle
            if bogus:
                k.action.action.action_id = 12345
            d = cls(table_entry=k)
            if kind == "counter":
                d.data.packet_count = 3
            else:
                d.config.cir, d.config.cburst, d.config.pir, d.config.pburst = 10, 2, 20, 4
            out += [w(u(U.MODIFY, **{field: d})), ("read", [pb.Entity(**{field: cls(table_entry=k)})])]
        every = cls(table_entry=pb.TableEntry(table_id=t.preamble.id))
        return out + [("read", [pb.Entity(**{field: every})])]
    assert not run(targets, seed, ops)


def test_a_keyed_read_finds_a_const_lpm_entry_by_the_bits_bmv2_compares(targets):
    """fuzz_p4rt seed 4277: BMv2 counts an lpm prefix from the top of the field's byte container, so
    of a bit<9> field's program entry `96 &&& 480` (/4) it compares no bit and of `38 &&& 510` (/8)
    the top 1: a keyed Read of `0/4`, `0/8` finds them (read back as written); `0x60/4` is no key
    at all (INVALID_ARGUMENT on both). checkmate-switch compared the whole values: nothing found."""
    def ops(info):
        out = []
        for t in info.tables:
            for v, plen in ((b"\x00", 4), (b"\x60", 4), (b"\x00", 8), (b"\x00", 1), (b"\x00", 9)):
                e = pb.TableEntry(table_id=t.preamble.id)
                e.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=v, prefix_len=plen))
                out.append(("read", [pb.Entity(table_entry=e)]))
        return out
    assert not run(targets, 4277, ops)


def test_a_commit_of_a_saved_program_empties_learn_lists(targets):
    """fuzz_p4rt seed 4394: digests the data plane sends after a VERIFY_AND_SAVE (the old program still
    runs) are gone once the saved program is COMMITted -- never sent after the next DigestEntry --
    as after a VERIFY_AND_COMMIT (checkmate-switch's COMMIT kept its learn lists). A DigestEntry
    written between the save and the commit: what it collects is emptied too."""
    def ops(info):
        did = info.digests[0].preamble.id
        cfg = _digest_cfg(did)
        dig = ("digests", True)
        save, commit = ("setcfg", S.VERIFY_AND_SAVE, "same"), ("setcfg", S.COMMIT, "same")
        return [save, traffic(1, 2), commit, cfg(U.INSERT, 10**6, 1), dig, traffic(3), dig, cfg(U.DELETE),
                save, cfg(U.INSERT, 0, 10), traffic(4, 5), commit, cfg(U.MODIFY, 10**6, 1), dig, traffic(6), dig,
                cfg(U.DELETE)]
    assert not run(targets, 0, ops)


def test_a_commit_of_a_saved_program_restarts_learn_lists_with_defaults(targets):
    """fuzz_p4rt seed 4463: after a COMMIT of a saved program, a DigestEntry written since the save
    keeps its digest subscribed, but the new learn list collects by BMv2's defaults (16 entries, 1 s)
    until the next DigestEntry write -- with max_list_size 1 a digest is not sent at once (a MODIFY
    then sends what is pending); checkmate-switch kept the written config (sent at once)."""
    def ops(info):
        did = info.digests[0].preamble.id
        cfg = _digest_cfg(did)
        dig = ("digests", True)
        save, commit = ("setcfg", S.VERIFY_AND_SAVE, "same"), ("setcfg", S.COMMIT, "same")
        return [save, cfg(U.INSERT, 0, 1), traffic(1), dig, commit, traffic(2), dig, cfg(U.MODIFY, 0, 1), dig,
                traffic(3), dig, cfg(U.DELETE)]
    assert not run(targets, 0, ops)


def test_a_direct_meter_cell_outlives_its_entry(targets):
    """fuzz_p4rt seed 4690: BMv2's direct meter is an array indexed by the entry handle, which a
    delete does not reset nor an insert without a meter config: the next entry given the handle
    (the lowest free) reads back, and runs, the deleted entry's config (checkmate-switch: none)."""
    def ops(info):
        t = next(t for t in info.tables if t.preamble.id == info.direct_meters[0].direct_table_id)
        act = action(info, "metered_" + t.preamble.name.split(".")[-1], b"\x01")
        dm = pb.DirectMeterEntry(table_entry=entry(t, b"\x01"))
        dm.config.cir, dm.config.cburst, dm.config.pir, dm.config.pburst = 1000, 100, 2000, 200
        every = [pb.Entity(direct_meter_entry=pb.DirectMeterEntry(table_entry=pb.TableEntry(table_id=t.preamble.id)))]
        with_cfg = pb.TableEntry(table_id=t.preamble.id, meter_config=pb.MeterConfig())
        return [w(*[u(U.INSERT, table_entry=entry(t, bytes([v]), act=act)) for v in (1, 2)]),
                w(u(U.MODIFY, direct_meter_entry=dm)), w(u(U.DELETE, table_entry=entry(t, b"\x01"))),
                w(u(U.INSERT, table_entry=entry(t, b"\x03", act=act))), ("read", every),
                ("read", [pb.Entity(table_entry=with_cfg)]),
                w(u(U.DELETE, table_entry=entry(t, b"\x03")), u(U.INSERT, table_entry=entry(t, b"\x04", act=act)),
                  u(U.INSERT, table_entry=entry(t, b"\x05", act=act))), ("read", every)]
    assert not run(targets, 0, ops)
