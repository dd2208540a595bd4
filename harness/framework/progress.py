"""Progress on stderr while the tier runs, and the summary table that closes it."""
import sys
import time
from collections import Counter, defaultdict



class Progress:
    """done/total, rate and time left on stderr: a line redrawn on a terminal, one every 10 s in a log. One class
    for the tiers that show it (compile, lower, frontend): `label` names the tier, `unit` what it counts."""

    def __init__(self, total, stream=sys.stderr, every_s=2.0, label="compile", unit="cases", quiet=False):
        self.total, self.done, self.stream, self.every = total, 0, stream, every_s
        self.label, self.unit, self.quiet = label, unit, quiet
        self.t0 = time.monotonic()
        self.last = 0.0
        self.tty = stream.isatty()
        if not self.tty:
            self.every = max(self.every, 10.0)   # a log file gets a line every 10 s, a terminal one line redrawn

    def advance(self, n, bad=0):
        self.done += n
        now = time.monotonic()
        if self.quiet:
            return
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            el = now - self.t0
            rate = self.done / el if el > 0 else 0.0
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            line = (f"{self.label}: {self.done}/{self.total} {self.unit} "
                    f"({100.0 * self.done / max(self.total, 1):.0f}%), {rate:.0f} {self.unit}/s, {el:.0f}s elapsed, "
                    f"ETA {eta:.0f}s")
            if self.tty:
                self.stream.write("\r" + line + ("\n" if self.done == self.total else ""))
            else:
                self.stream.write(line + "\n")
            self.stream.flush()


COLUMNS = ("cases", "pass", "fail", "compile_error", "spec_divergence", "not_supported", "crash", "timeout",
           "harness_error")   # harness_error: the part of fail where ptxas rejected a frame line (details.harness_error)


def summary(cases, stream=sys.stderr):
    """Per family, then per target: counts per class; a final total row."""
    def table(title, key):
        rows = defaultdict(Counter)
        for c in cases:
            rows[key(c)][c["class"]] += 1
            rows[key(c)]["cases"] += 1
            if c.get("details", {}).get("harness_error"):
                rows[key(c)]["harness_error"] += 1
        width = max([len(title)] + [len(k) for k in rows]) + 2
        head = f"{title:<{width}}" + "".join(f"{col:>{_w(col)}}" for col in COLUMNS)
        stream.write(head + "\n" + "-" * len(head) + "\n")
        total = Counter()
        for k in sorted(rows, key=_natural):
            total.update(rows[k])
            stream.write(f"{k:<{width}}" + "".join(f"{rows[k][col]:>{_w(col)}}" for col in COLUMNS) + "\n")
        stream.write("-" * len(head) + "\n")
        stream.write(f"{'total':<{width}}" + "".join(f"{total[col]:>{_w(col)}}" for col in COLUMNS) + "\n\n")
        return total
    stream.write("\n")
    total = table("family", lambda c: c["family"])
    table("target", lambda c: c["target"])
    table("ptx", lambda c: c["ptx"])
    return total


def _w(col):
    return max(len(col), 6) + 2


def _natural(s):
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def family_table(rows, columns, width=12, total="TOTAL"):
    """The summary table of counts per family (the front-end tier's verbs close with it): rows: {family: Counter of
    column -> count}. Returns the table's text (a line per family, the total last) and the total Counter."""
    lines = [f"  {'family':32}" + "".join(f" {c[:width]:>{width}}" for c in columns)]
    tot = Counter()
    for fam in sorted(rows):
        tot.update(rows[fam])
        lines.append(f"  {fam:32}" + "".join(f" {rows[fam][c]:>{width}}" for c in columns))
    lines.append(f"  {total:32}" + "".join(f" {tot[c]:>{width}}" for c in columns))
    return "\n".join(lines) + "\n", tot
