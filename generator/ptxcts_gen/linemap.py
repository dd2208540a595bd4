"""The map from a module's lines back to its entries, one definition for every tier.

A module (ARCHITECTURE.md section 2) is a header (`.version`, `.target`, `.address_size`, the window) and entries;
each entry is preceded by its provenance comment (`// form: <form ID>`, `// PTX ISA min ...`). The map says, for
each entry:

* `first`: the first line of its provenance comment block (the `.entry` line when it has none); an entry owns
  every line from `first` to `last`, so a diagnostic on any of them concerns its case;
* `entry`: the `.entry` line; `close`: the line of its closing brace (`}` alone on a line);
* `last`: the line before the next entry's `first`, or the module's last line;
* `test_lines`: the lines marked `// ptxcts:test` (the instruction under test), `companion_lines` the lines marked
  `// ptxcts:companion` (frame lines sharing its requirements);
* `form`: the form ID of its provenance comment ("" without one).

`./ptxcts modules` writes the map into index.json (for the tiers that read modules from a folder: the run tier,
the self-test); the compile tier, which assembles its modules in process, calls entries() on their text.
Lines are numbered from 1, as ptxas numbers them.
"""
import re
from dataclasses import dataclass
from typing import List, Sequence, Tuple

TEST_MARK = "// ptxcts:test"
# A frame line the generator declares to share the requirements of the instruction under test (e.g. the
# cp.async.commit_group after a cp.async, createpolicy before an .L2::cache_hint form).
COMPANION_MARK = "// ptxcts:companion"
PROVENANCE = "// form: "
ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)")


@dataclass(frozen=True)
class EntryLines:
    kernel: str
    form: str
    first: int
    entry: int
    close: int                          # 0 when the entry has no closing brace line
    last: int
    test_lines: Tuple[int, ...]
    companion_lines: Tuple[int, ...]


class LineMapError(ValueError):
    pass


def _comment(line: str) -> bool:
    return line.lstrip().startswith("//")


def entries(lines: Sequence[str]) -> List[EntryLines]:
    """Every entry of the module whose lines are `lines`, in module order. An entry named twice is an error."""
    starts, seen = [], set()
    for i, line in enumerate(lines, 1):
        if _comment(line):
            continue
        m = ENTRY.search(line)
        if m:
            if m.group(1) in seen:
                raise LineMapError(f"entry {m.group(1)} appears twice")
            seen.add(m.group(1))
            first = i
            while first > 1 and _comment(lines[first - 2]):
                first -= 1
            starts.append((first, i, m.group(1)))
    out = []
    for k, (first, entry, kernel) in enumerate(starts):
        last = starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)
        body = range(entry, last + 1)
        close = next((n for n in body if lines[n - 1] == "}"), 0)
        form = next((lines[n - 1].strip()[len(PROVENANCE):] for n in range(first, entry)
                     if lines[n - 1].strip().startswith(PROVENANCE)), "")
        out.append(EntryLines(kernel, form, first, entry, close, last,
                              tuple(n for n in body if TEST_MARK in lines[n - 1]),
                              tuple(n for n in body if COMPANION_MARK in lines[n - 1])))
    return out


def header(lines: Sequence[str], first_entries: List[EntryLines]) -> dict:
    """The module header's lines: `target_line` (the `.target` line; a diagnostic there, e.g. 'PTX .version 8.5
    does not support .target sm_100', concerns every entry) and `header_last_line` (the line before the first
    entry's provenance comment)."""
    target = next((i for i, ln in enumerate(lines, 1) if ln.startswith(".target ")), 0)
    last = first_entries[0].first - 1 if first_entries else len(lines)
    return {"target_line": target, "header_last_line": last}


def index_entry(e: EntryLines) -> dict:
    """The line fields of an entry in index.json: `line_first` (its `.entry` line), `line_last` (its closing brace)
    and `test_lines` (absent when the entry has no marked line)."""
    out = {"line_first": e.entry, "line_last": e.close}
    if e.test_lines:
        out["test_lines"] = list(e.test_lines)
    return out
