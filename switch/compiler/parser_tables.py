"""Table declarations of the P4-16 parser (a mixin of :class:`switch.compiler.parser.Parser`):
``key``, ``actions``, ``default_action``, ``entries`` and the other properties, each kept as
parsed (the elaborator, elab_tables.py, checks them).  An action named in ``actions``,
``default_action`` or an entry must not be a name p4c's lexer reads as a type
(:mod:`switch.compiler.parser_scopes`)."""
from __future__ import annotations

from .ast import Node
from .errors import P4CompileError


class TableParser:
    def table_decl(self, annos) -> Node:
        self.expect("table")
        name = self.ident("a table name")
        self.expect("{")
        props = {}
        while not self.at("}"):
            pannos = self.annotations()  # only @name of an anonymous implementation is used
            pl = self.t.loc
            is_const = self.accept("const")
            ptok = self.ident("a table property")
            pname = ptok.text
            if pname in ("key", "actions") and (pannos or is_const):
                # p4c's grammar: `key = {..}` and `actions = {..}` take no annotations and no
                # `const` (those are of entries and the other properties; errs62 b_prop_*)
                raise P4CompileError(ptok.loc, f"syntax error, unexpected {pname.upper()} (no annotation or const "
                                               f"before a table's {pname})")
            if pname in props:
                raise P4CompileError(pl, f"table {name.text}: property {pname} given twice")
            if pname == "key":
                self.expect("=")
                self.expect("{")
                keys = []
                while not self.at("}"):
                    kl = self.t.loc
                    e = self.expr()
                    self.expect(":")
                    mk = self.ident("a match kind")
                    kannos = self.annotations()
                    self.expect(";")
                    keys.append(Node("key", kl, expr=e, match=mk.text, match_loc=mk.loc, annos=kannos))
                self.expect("}")
                props["key"] = keys
            elif pname == "actions":
                self.expect("=")
                self.expect("{")
                acts = []
                while not self.at("}"):
                    aannos = self.annotations()
                    al = self.t.loc
                    top = self.accept(".")   # (`.NoAction;`: p4c's actionRef takes a prefixedNonTypeName)
                    n = self.ident("an action name")
                    if n.kind == "kw" and n.text == "list":   # (p4c's actionRef: a nonTypeName, not LIST)
                        raise P4CompileError(n.loc, "syntax error, unexpected LIST: `list` cannot name an action here")
                    if self.lexes_as_type(n.text):   # p4c: "syntax error, unexpected TYPE_IDENTIFIER"
                        raise self.type_name_error(n, n.text, "an action in a table's actions")
                    aname = n.text
                    while self.accept("."):
                        aname += "." + self.ident().text
                    args = self.args() if self.at("(") else []
                    self.expect(";")
                    if any(x.name == aname for x in acts):   # (p4c builds the list while parsing: before names
                        # resolve, an unknown name further up comes after it; errs25 probe h_a_act_*_twice_*)
                        raise P4CompileError(al, f"{aname}: Duplicates declaration {aname} (listed twice in the "
                                                 "table's actions)")
                    acts.append(Node("action_ref", al, name=aname, args=args, annos=aannos, top=top))
                self.expect("}")
                props["actions"] = acts
            elif pname == "default_action":
                self.expect("=")
                e = self.expr()
                if e.kind == "call" and e.fn.kind == "name" and not e.fn.get("top") and self.lexes_as_type(e.fn.name):
                    # p4c's grammar takes `T(...)` as a constructor call: its type checker refuses it
                    raise P4CompileError(e.fn.loc, f"{e.fn.name} is a type, not an action: a table's default "
                                                   f"action cannot invoke a constructor on type {e.fn.name}")
                self.check_action_ref(e, "a table's default action")
                self.expect(";")
                props["default_action"] = Node("default_action", pl, expr=e, const=is_const)
            elif pname == "entries":
                self.expect("=")
                self.expect("{")
                entries = []
                while not self.at("}"):
                    el = self.t.loc
                    if self.at("@"):  # p4c's grammar has an entry's annotations after its action only
                        raise P4CompileError(el, "syntax error, unexpected @: an entry's annotations go after "
                                                 "its action (`key: action() @priority(N);`)")
                    eannos = []
                    prio = None
                    self.accept("const")   # a `const` entry in `entries` (P4-16 1.2.4): accepted, not enforced
                    if self.at("priority"):
                        self.next()
                        self.expect("=")
                        if not (self.t.kind == "num" or self.at("(")):   # (p4c's grammar: INTEGER or `( expr )`)
                            raise P4CompileError(self.t.loc, f"syntax error, unexpected {self.t.text!r}: an entry's "
                                                             "priority is an integer literal or a parenthesized expression")
                        prio = self.expr()
                        self.expect(":")
                    ks = self.keyset_tuple()
                    self.expect(":")
                    act = self.expr()
                    self.check_action_ref(act, "the action of a table entry")
                    eannos = eannos + self.annotations()  # p4c's place for @priority(N)
                    bad = next((a for a in eannos if a[0] == "priority" and '"' in (a.raw or "")), None)
                    if bad is not None:   # (p4c parses an entry's @priority body as an integer)
                        raise P4CompileError(bad[2], "syntax error, unexpected STRING_LITERAL, expecting INTEGER "
                                                     "(an entry's @priority)")
                    self.expect(";")
                    entries.append(Node("entry", el, keysets=ks, action=act, priority=prio, annos=eannos))
                self.expect("}")
                props["entries"] = Node("entries", pl, entries=entries, const=is_const)
            else:
                self.expect("=")
                e = self.expr()
                self.expect(";")
                props[pname] = Node("prop", pl, name=pname, value=e, const=is_const, annos=pannos)
        self.expect("}")
        return Node("table", name.loc, name=name.text, props=props, annos=annos)
