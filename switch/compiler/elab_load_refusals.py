"""Programs p4c compiles whose BMv2 JSON simple_switch refuses to load.

p4c 1.2.4.8 compiles each construct below without a word, and simple_switch(_grpc) 1.15.5 refuses
the JSON it writes (an error message, or an assertion / uncaught exception that kills it while
it loads).  checkmate-p4c compiles these programs too -- the held-back measure counts what p4c
accepts -- and notes a :meth:`load_refusal`: the build's ``load_error`` makes checkmate-switch
refuse it as BMv2 refuses p4c's JSON, naming the construct at ``file:line:col``.  A refusal is
kept like a back-end error (elab_externs.target_error): only where the code survives p4c's front
end (not in an unused action, an unreachable parser state, a function nobody calls).

Each was probed on simple_switch_grpc with p4c's JSON (helpers errs15, errs16; the programs are
tests/p4c/test_load_refused.py's, which start simple_switch on p4c's JSON for each):

* ``bool`` as the result of ``hash``, ``random`` or ``execute_meter``, or as ``hash``'s maximum:
  p4c passes a ``d2b``/``b2d`` expression as the primitive's field argument, and simple_switch
  dies on an assertion (actions.cpp: "Invalid expression type");
* ``bool`` as ``hash``'s base: "Parameter type 'bool' not supported";
* a ``bool`` anywhere in ``hash``'s data (a header's bool field, ``isValid()``, a comparison, a
  struct with a bool member): "Unsupported input type 'expression' for calculation";
* a ``direct_meter<bool>`` read: the meter's ``result_target`` is an expression, and
  simple_switch dies on a ``Json::LogicError`` ("requires arrayValue");
* a table key on a field (or ``isValid()``) of a header stack element with a run-time index
  (``hdr.s[hdr.h.a].a``): p4c keeps the expression as the key's target, same death -- a
  slice of it is computed into a temporary first and loads;
* a list inside the data list of ``hash`` or a checksum (``{ a, { b } }``), and a
  ``verify_checksum`` whose checksum argument is no field (a constant, a local, a slice): the same
  ``Json::LogicError``;
* ``packet.lookahead<bool>()``: "Invalid 'type' in expression: 'lookahead'";
* ``hash`` in the deparser (p4c puts it in the deparser's primitives): "Invalid reference to object
  of type 'calculation' with name 'calc'" -- simple_switch loads the deparsers before the
  calculations (a digest, ``log_msg`` or ``truncate`` there loads: helper mutz33);
* a header union in the user metadata struct (or a struct in it): "Invalid reference to object
  of type 'header type' with name 'u_t'" (a stack of unions loads).

The ones of earlier rounds (an unknown hash algorithm, a user match_kind, duplicate switch
labels, negative action data) call :meth:`load_refusal` where they are elaborated."""
from __future__ import annotations

from .elab_common import BOOL, E
from .table_keys import bmv2_key_shape, runtime_index_key

BMV2_ASSERT = "simple_switch dies loading p4c's JSON: Assertion `0 && \"Invalid expression type\"' failed"
LOOKAHEAD_BOOL = "Invalid 'type' in expression: 'lookahead' (simple_switch refuses p4c's JSON)"
DEPARSER_HASH = ("a hash in the deparser: Invalid reference to object of type 'calculation' (simple_switch loads "
                 "the deparsers before the calculations and refuses p4c's JSON)")
BMV2_JSON_ARRAY = ("simple_switch dies loading p4c's JSON: Json::LogicError: in Json::Value::operator[](ArrayIndex)"
                   "const: requires arrayValue")


class LoadRefusalRules:
    """Mixin of the Elaborator: BMv2's load refusals of p4c-compiled programs (module docstring)."""

    def load_refusal(self, loc, message: str) -> None:
        """A construct p4c compiles whose BMv2 JSON simple_switch refuses to load: checkmate-p4c
        compiles it too, as p4c does, and the build's ``load_error`` makes checkmate-switch refuse
        it as BMv2 refuses p4c's JSON.  Kept like a :meth:`target_error` (only where the code
        survives p4c's front end)."""
        err = E(loc, message)
        err.after_type_checking = True
        err.load_refusal = True
        if self.ctx is None or not self.defer_error(err):   # (ctx None: a declaration's, e.g. V1Switch's types)
            self.raise_deferred(err)

    def raise_deferred(self, err) -> None:
        """Raise a (deferred) back-end error; a :meth:`load_refusal` is noted for the build instead."""
        if getattr(err, "load_refusal", False):
            self.__dict__.setdefault("load_refusals", []).append(err)
            return
        raise err

    def refuse_bool_operand(self, t, loc, what: str, words: str = BMV2_ASSERT) -> None:
        """``what`` (e.g. "hash result") of type ``bool``: BMv2 refuses p4c's JSON."""
        if t == BOOL:
            self.load_refusal(loc, f"{what} of type bool: {words}")

    def refuse_bool_data(self, data: list, loc, what: str = "hash data") -> None:
        """``data`` (flat_list's [(ir, width)]) holds a ``bool`` (flatten_value marks its cast,
        a header's bool field is one of ``bool_header_fields``): BMv2 refuses p4c's JSON."""
        if any(d.get("from_bool") or self.is_bool_header_field(d) for d, _ in data):
            self.load_refusal(loc, f"{what} with a bool: Unsupported input type 'expression' for calculation "
                                   "(simple_switch refuses p4c's JSON)")

    def refuse_nested_list(self, data, what: str) -> None:
        """A list expression inside the data list of ``hash`` or a checksum (``{ a, { b } }``):
        p4c flattens nothing there, and simple_switch dies loading its JSON."""
        inner = next((it for it in data.items if it.kind == "list"), None) if data.kind == "list" else None
        if inner is not None:
            self.load_refusal(inner.loc, f"{what}: a list inside the data list: {BMV2_JSON_ARRAY}")

    def refuse_checksum_target(self, ck: dict, loc, what: str) -> None:
        """``verify_checksum``'s checksum argument that is no field (a constant, a local
        variable, a slice, a cast or another computation): simple_switch dies loading p4c's JSON."""
        while ck.get("op") == "slice" and ck.get("lo") == 0 and ck.get("t") == (ck["a"].get("t") or [None]):
            ck = ck["a"]   # (a full-width slice: p4c's strength reduction leaves the field)
        if ck.get("op") != "field":
            self.load_refusal(loc, f"{what}: the checksum argument is not a field: {BMV2_JSON_ARRAY}")

    def table_load_refusal(self, q: str, loc, message: str) -> None:
        """A :meth:`load_refusal` in table ``q``'s declaration: kept for the table, noted only if
        something applies it (p4c removes a table nothing applies; ElabOutput.finish)."""
        err = E(loc, message)
        err.after_type_checking = True
        err.load_refusal = True
        self.__dict__.setdefault("table_load_refusals", {}).setdefault(q, err)

    def bmv2_key(self, ir, loc, q: str) -> tuple[dict, bool]:
        """:func:`~.table_keys.bmv2_key_shape` of a key of table ``q``, refused where p4c keeps it as
        a field or validity of a stack element with a run-time index
        (:func:`~.table_keys.runtime_index_key`): BMv2 dies loading p4c's JSON."""
        if runtime_index_key(ir):
            self.table_load_refusal(q, loc, f"a table key on a header stack element with a run-time index: "
                                            f"{BMV2_JSON_ARRAY}")
        return bmv2_key_shape(ir)

    def refuse_union_in_metadata(self, mt) -> None:
        """A header union in the user metadata struct ``mt`` (or in a struct inside it)."""
        seen = set()

        def walk(name):
            if name in seen:
                return
            seen.add(name)
            for f, ft in self.structs[name]["fields"]:
                if ft[0] == "struct" and self.structs.get(ft[1], {}).get("union"):
                    loc = self.__dict__.get("struct_field_locs", {}).get((name, f))
                    self.load_refusal(loc, f"header union {ft[1]} in the user metadata ({name}.{f}): Invalid "
                                           f"reference to object of type 'header type' with name '{ft[1]}' "
                                           "(simple_switch refuses p4c's JSON)")
                elif ft[0] == "struct":
                    walk(ft[1])

        walk(mt[1])
