"""Static checks of p4src/checkmate.p4 that need no compiler: it mirrors checkmate.wire."""
import re

from checkmate import wire
from checkmate.paths import P4SRC

SRC = (P4SRC / "checkmate.p4").read_text()


def _header_fields(name):
    m = re.search(r"header\s+%s\s*\{(.*?)\}" % name, SRC, re.S)
    assert m, f"header {name} not found"
    return [(f, int(b)) for b, f in re.findall(r"bit<(\d+)>\s+(\w+)\s*;", m.group(1))]


def test_checkmate_header_mirrors_wire_fields():
    assert tuple(_header_fields("checkmate_t")) == wire.FIELDS
    assert sum(b for _, b in wire.FIELDS) == wire.HEADER_LEN * 8


def test_constants_match_wire():
    def const(name):
        return int(re.search(r"const\s+bit<\d+>\s+%s\s*=\s*(\w+)\s*;" % name, SRC).group(1), 0)
    assert const("CHECKMATE_UDP_PORT") == wire.CHECKMATE_UDP_PORT
    assert const("WIRE_VERSION") == wire.WIRE_VERSION
    assert const("FLAG_FINAL") == wire.FLAG_FINAL
    assert const("FLAG_ACK") == wire.FLAG_ACK
    assert const("FLAG_CTRL") == wire.FLAG_CTRL


def test_only_standard_v1model_includes():
    assert re.findall(r"#include\s+<([^>]+)>", SRC) == ["core.p4", "v1model.p4"]
    assert '#include "' not in SRC
