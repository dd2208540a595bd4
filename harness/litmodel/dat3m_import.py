"""How dat3m/ptx75.litmus was made: `python3 -m litmodel.dat3m_import REPO [OUT]` reads a git checkout (or mirror)
of github.com/hernanponcedeleon/Dat3M, takes from its PTX 7.5 expected results
(dartagnan/src/test/resources/PTXv7_5-expected.csv) every test outside the CADP and proxy folders, and writes each
that the litmodel format can say (thread table, initial values, instructions, condition) as a test of our format
with its source, the commit read and the expected value; the others are listed with the reason. Only the facts
(the test's program, its condition, its expected value) are carried over."""
import re
import subprocess
import sys

from .syntax import LitmusSyntaxError, parse_text

CSV = "dartagnan/src/test/resources/PTXv7_5-expected.csv"
HEAD = ("# Dat3M's PTX 7.5 litmus tests (generic proxy), in the litmodel format; each test names its file\n"
        "# (github.com/hernanponcedeleon/Dat3M, commit above) and its expected result\n"
        "# (dartagnan/src/test/resources/PTXv7_5-expected.csv: 1 = the condition holds, herd's reading).\n\n")


def _git(repo, *args):
    return subprocess.check_output(["git", "-C", repo, *args], text=True)


def convert(repo):
    """(the tests in our format, [(path, why not)])."""
    commit = _git(repo, "rev-parse", "HEAD").strip()
    expected = dict(l.strip().split(",") for l in _git(repo, "show", f"HEAD:{CSV}").splitlines() if l.strip())
    out, skipped = [], []
    for path, value in expected.items():
        if "CADP" in path or "/proxy/" in path:
            continue
        text = _git(repo, "show", f"HEAD:{path}")
        lines = text.split("\n")
        name = path.rsplit("/", 1)[-1][:-len(".litmus")]
        head_at = next(k for k, l in enumerate(lines) if re.search(r"P0\s*@", l))
        heads = [h.strip().rstrip(";").strip() for h in lines[head_at].split("|")]
        rows, k = [], head_at + 1
        while k < len(lines) and not re.match(r"\s*(~\s*)?(exists|forall)", lines[k]):
            if "|" in lines[k] or lines[k].strip().endswith(";"):
                rows.append([c.strip().rstrip(";").strip() for c in lines[k].split("|")])
            k += 1
        cond = " ".join(l.strip() for l in lines[k:]).strip()
        kind = cond.split("(")[0].replace(" ", "") if cond else None
        body = cond[cond.index("("):] if "(" in cond else ""
        body = re.sub(r"\b(P?)(\d+)\s*:\s*(\w+)", lambda m: f"P{m.group(2)}:{m.group(3)}", body)
        init = {}
        for item in re.split(r"[;\n]", text[text.index("{") + 1:text.index("}")]):
            item = item.strip().replace(" ", "")
            if item and "=" in item and ":" not in item.split("=")[0]:
                loc, v = item.split("=")
                init[loc] = v
        test = [f"test {name}", f"source Dat3M {path} @{commit[:12]}", f"expect dat3m {value} {CSV}"]
        why = None
        for h in heads:
            m = re.match(r"(P\d+)\s*@\s*cta\s*(\d+)\s*,\s*gpu\s*(\d+)", h)
            if not m:
                why = f"thread header '{h}'"
                break
            test.append(f"thread {m.group(1)} cta={m.group(2)} gpu={m.group(3)}")
        if any(v != "0" for v in init.values()):
            test.append("init " + " ".join(f"{a}={b}" for a, b in init.items()))
        for row in rows:
            for j, cell in enumerate(row):
                if not cell or j >= len(heads):
                    continue
                m = re.match(r"ld\s+(\w+)\s*,\s*(-?\d+)$", cell)     # a constant into a register
                if m:
                    cell = f"mov {m.group(1)}, {m.group(2)}"
                test.append(f"{heads[j].split('@')[0].strip()}: {cell}")
        if kind:
            test.append(f"{kind} {body}")
        if why is None:
            try:
                parse_text("\n".join(test), path)
            except LitmusSyntaxError as e:
                why = e.what
        if why:
            skipped.append((path, why))
        else:
            out.append("\n".join(test))
    return out, skipped


def main(argv):
    if not argv or len(argv) > 2:
        sys.stderr.write("usage: python3 -m litmodel.dat3m_import DAT3M_CHECKOUT [OUT.litmus]\n")
        return 2
    tests, skipped = convert(argv[0])
    text = HEAD + "\n\n".join(tests) + "\n"
    if len(argv) == 2:
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    for path, why in skipped:
        sys.stderr.write(f"not shared: {path}: {why}\n")
    sys.stderr.write(f"{len(tests)} tests written, {len(skipped)} not shared\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
