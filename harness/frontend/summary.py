"""The summary table every front-end verb closes with: one row per family, one column per count, then the total."""
from collections import Counter


def family_table(rows, columns, width=12, total="TOTAL"):
    """rows: {family: Counter of column -> count}. Returns the table's text (a line per family, the total last)."""
    lines = [f"  {'family':32}" + "".join(f" {c[:width]:>{width}}" for c in columns)]
    tot = Counter()
    for fam in sorted(rows):
        tot.update(rows[fam])
        lines.append(f"  {fam:32}" + "".join(f" {rows[fam][c]:>{width}}" for c in columns))
    lines.append(f"  {total:32}" + "".join(f" {tot[c]:>{width}}" for c in columns))
    return "\n".join(lines) + "\n", tot
