"""The folder whole-write writes and whole-run reads: its format name, how buffers are written (hex of their
elements, little-endian: to_bytes and elements, the one conversion between element values and bytes of the whole
kernels), and the rule every kernel in it must meet (can_fail)."""

import json
import os

FORMAT = "ptxcts-whole-kernels"

TRIVIAL = "check_failed: the model's bytes equal the buffers' initial bytes (a kernel that did nothing would pass)"


def can_fail(case, values):
    """Whether a kernel that wrote nothing would fail: some checked buffer's expected bytes differ from its initial
    ones."""
    return any(list(v) != list(case.buffers[b]["init"]) for b, v in values.items())


def to_bytes(values, width):
    """Element values of `width` bytes each, little-endian."""
    return b"".join(v.to_bytes(width, "little") for v in values)


def elements(raw, width):
    """The element values of `width` bytes each (little-endian) in raw."""
    return [int.from_bytes(raw[i:i + width], "little") for i in range(0, len(raw), width)]


def hex_of(values, elem):
    return to_bytes(values, elem).hex()


def save(out, doc):
    """Writes out/index.json; returns the not_written reasons counted by kind ("unexpressible 454, ...")."""
    with open(os.path.join(out, "index.json"), "w") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
    kinds = {}
    for why in doc["not_written"].values():
        kinds[why.split(":")[0]] = kinds.get(why.split(":")[0], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"
