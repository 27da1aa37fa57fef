"""Parsers and controls checked in declaration order, used or not, as p4c checks them.

checkmate-p4c elaborates a parser or control where it is instantiated: the V1Switch blocks in
V1Switch's order, a sub-control inside the body that declares its instance.  p4c's front end
instead type-checks every top-level declaration in program order, whether or not anything
instantiates it, and reports the first error it meets.  Two differences follow, both closed here:

* a parser or control that nothing instantiates was never looked at (p4c rejects an unknown
  field in it: "Field zz is not a member of header h_t");
* with errors in two blocks, checkmate-p4c named the one it elaborated first (a sub-control
  declared second but instantiated first, an action of ``ingress`` before the body of a
  sub-control declared above ``ingress``), p4c the one declared first.

:meth:`build_in_declaration_order` runs the normal elaboration, then elaborates on its own
(:meth:`block_error`) each top-level parser and control that p4c would have checked before the
error found -- or, when there was none, each that was never elaborated.  A block is elaborated
on its own in a fresh :class:`~switch.compiler.elaborate.Elaborator` (the same declarations,
nothing of the real one's tables, actions or P4Runtime ids touched), as a sub-block: errors of
p4c's BMv2 back end (``target_error``, kept for an applied sub-control only) stay unraised there,
as p4c runs them only on code it keeps, after type checking.  Such an error of the real
elaboration (``after_type_checking``) therefore gives way to a type error anywhere; any other
only to one at an earlier position.  A control-typed constructor parameter is bound to a
body-less instance of its control type (``stub_ctor_args``: its applies are checked against the
type, as p4c checks them); blocks with other constructor parameters or extern-typed apply
parameters need their instance to be elaborated and are not checked alone.  A generic block is
checked on its own too, even when instantiated, with each type parameter an opaque type
(``["tvar", T]``): only the errors p4c's type checker gives on a type variable's own use count
there (``_TVAR_ERRORS``: arithmetic on a ``T``, a ``T`` given a literal, a member of a ``T`` ...),
as checkmate-p4c's other checks were made for known types.
"""
from __future__ import annotations

import re

from .ast import Node
from .errors import P4CompileError

_EXTERN_PARAMS = ("register", "counter", "meter", "direct_counter", "direct_meter")


def _before(loc, err: P4CompileError) -> bool:
    """Whether position ``loc`` comes before ``err``'s (an error in another file -- v1model.p4's
    V1Switch, a position-less one -- comes after every block)."""
    if getattr(err, "after_type_checking", False) or err.loc.file != loc.file:
        return True
    return (loc.line, loc.col) < (err.loc.line, err.loc.col)


def _checkable(d: Node) -> bool:
    return d.kind in ("parser", "control") and \
        not any(p.direction is None and p.type.kind == "typename" and p.type.name in _EXTERN_PARAMS
                for p in d.params)


# the errors of a type variable's own use that p4c's type checker refuses in a generic block
# (probed: arithmetic, comparison with a literal, casts, members, methods, slices, keys, extract);
# others -- a T in a field list, a T action parameter -- p4c checks where the block is instantiated
_TVAR_ERRORS = (r"expected {T}, got", r"cannot cast {T} to", r"\b(on|of) (a value|values) of type {T}\b",
                r"a value of type {T} has no member", r"table key of type {T}\b", r"needs integer operands, not {T}\b",
                r"extract into a value of type {T}\b")


def _type_var_error(err: P4CompileError, tparams) -> bool:
    """An error of a generic block checked on its own that p4c's type checker gives too."""
    return any(re.search(pat.replace("{T}", re.escape(tp)), err.message) for tp in tparams for pat in _TVAR_ERRORS)


class DeclOrderRules:
    def build_in_declaration_order(self, main: Node) -> dict:
        roles = {}   # a V1Switch block's role, for the checks that depend on it
        for role, arg in zip(("parser", "verify_checksum", "ingress", "egress", "compute_checksum", "deparser"),
                             main.get("args") or ()):
            if arg.kind == "call" and arg.fn.kind == "name":
                roles.setdefault(arg.fn.name, role)
        try:
            ir = self.build(main)
        except P4CompileError as caught:
            err = self.action_error_first(main, caught)
            earlier = self.first_block_error(roles, err)
            if earlier is None and err is caught:
                raise
            raise (earlier or err) from None
        err = self.first_block_error(roles, None)
        if err:
            raise err
        return ir

    def action_error_first(self, main: Node, err: P4CompileError) -> P4CompileError:
        """``err``, a target error in a control's apply block (elab_externs.target_error), or the
        error of a surviving action p4c's JSON conversion meets before it: each control's actions
        come before its body, the controls in declaration order (helper corpus21).  The actions'
        errors are only known once elaboration ends, so a fresh elaboration runs with ``err``
        deferred to ElabOutput.finish, which orders it among them; anything else it raises leaves
        ``err`` as it is."""
        if not getattr(err, "in_body", False) or getattr(self, "defer_body_target", None) is not None:
            return err
        probe = type(self)(self.decls, self.program, self.source, warnings=[], macro_locs=self.macro_locs)
        probe.defer_body_target = err
        try:
            probe.build(probe.declare_all())
        except P4CompileError as first:
            if getattr(first, "converted_first", False) and (first.loc.file, first.loc.line, first.loc.col) != \
                    (err.loc.file, err.loc.line, err.loc.col):
                return first
        return err

    def first_block_error(self, roles: dict, found: P4CompileError | None) -> P4CompileError | None:
        """The error of the first block, in declaration order, that p4c checks before ``found``
        (None: of the first block never elaborated) and that has one."""
        seen = self.__dict__.get("elaborated_blocks", set())
        for d in self.decls:
            if not _checkable(d) or (found is None and id(d) in seen and not d.get("tparams")):
                continue
            if found is not None and not _before(d.loc, found):
                break
            err = self.block_error(d, roles.get(d.name, "ingress"))
            if err is not None and (found is None or _before(err.loc, found)):
                return err
        return None

    def block_error(self, d: Node, role: str) -> P4CompileError | None:
        """The error elaborating ``d`` on its own (as a sub-block of a fresh elaboration) raises."""
        probe = type(self)(self.decls, self.program, self.source, warnings=[], macro_locs=self.macro_locs)
        probe.declare_all()
        tparams = d.get("tparams") or ()
        # a generic block's type parameters are opaque types of their own: what p4c's type checker
        # refuses on any of them (arithmetic, a width) is refused here too
        probe.type_bindings = {tp: ["tvar", tp] for tp in tparams}
        consts = probe.stub_ctor_args(d) if d.kind == "control" else None if d.get("ctor_params") else []
        if consts is None and tparams:
            # (a generic block with constructor constants: stand-ins, only errors of its type
            # variables count below -- `parser GP<T>(..., out T h)(bit<8> k)`: extract(h), mutz23)
            consts = probe.stub_ctor_constants(d)
        if consts is None:
            return None
        probe._top_block = d
        probe.ctx = {"kind": d.kind, "role": role}
        try:
            if d.kind == "control":
                probe.elab_control(d, role, prefix=d.name + "$alone", consts=consts)
            else:
                probe.elab_parser(d, prefix=d.name + "$alone")
        except P4CompileError as err:
            if tparams and not _type_var_error(err, tparams):
                return None   # (only what the type variable itself makes wrong)
            # one of p4c's BMv2 back-end checks, raised at once where nothing defers it (a
            # parser): p4c runs it only on the blocks it keeps
            return None if getattr(err, "after_type_checking", False) else err
        return None
