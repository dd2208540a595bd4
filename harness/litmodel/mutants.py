"""Graded mutants of the generated tests (the issue's "power"): each operator changes one instruction of a test the
way a compiler, a driver or a GPU bug would (drop a fence, narrow a scope, wait N -> N+1, acquire -> relaxed, drop a
barrier, shrink expect_tx, clear a multicast CTA bit, reverse two accesses, a .read wait for a full one). The model
judges each mutant: its killing outcomes are those it allows (or leaves undefined) that the original test forbids;
a run that observes one kills the mutant. A mutant with none is equivalent by the model (it cannot be killed)."""
import re

from .model import FORBIDDEN, HANG, Model
from .syntax import parse_text

NARROWER = {"sys": "gpu", "gpu": "cluster", "cluster": "cta"}


def _instr_lines(lines):
    return [i for i, l in enumerate(lines) if re.match(r"\s*T\d+:", l)]


def _op(line):
    return line.split(":", 1)[1].split()[0]


def operators(lines):
    """(operator, description, new lines) for every single-instruction mutation of the test's lines."""
    ins = _instr_lines(lines)
    for i in ins:
        op = _op(lines[i])
        body = lines[i]
        if op.startswith("fence."):
            yield "drop_fence", f"drop '{body.strip()}'", lines[:i] + lines[i + 1:]
        for wide, narrow in NARROWER.items():
            if f".{wide}" in op and not op.startswith(("fence.proxy", "barrier.cluster")):
                yield "narrow_scope", f"{op}: .{wide} -> .{narrow}", \
                    lines[:i] + [body.replace(op, op.replace(f".{wide}", f".{narrow}"), 1)] + lines[i + 1:]
        m = re.search(r"wait_group(\.read)? (\d+)", body)
        if m:
            n = int(m.group(2))
            yield "wait_n_plus_1", f"{op} {n} -> {n + 1}", \
                lines[:i] + [body.replace(f"{op} {n}", f"{op} {n + 1}")] + lines[i + 1:]
            if op == "cp.async.bulk.wait_group":
                yield "wait_read_for_full", f"{op} -> {op}.read", \
                    lines[:i] + [body.replace(op, op + ".read", 1)] + lines[i + 1:]
        if ".acquire" in op or (op.startswith("mbarrier.try_wait") and ".relaxed" not in op):
            new = op.replace(".acquire", ".relaxed") if ".acquire" in op else op + ".relaxed"
            yield "acquire_to_relaxed", f"{op} -> {new}", lines[:i] + [body.replace(op, new, 1)] + lines[i + 1:]
        if ".release" in op and op.startswith(("st.", "mbarrier.arrive")):
            new = op.replace(".release", ".relaxed")
            yield "release_to_relaxed", f"{op} -> {new}", lines[:i] + [body.replace(op, new, 1)] + lines[i + 1:]
        m = re.search(r"expect_tx(\S*) (\S+) (\d+)", body)
        if m and int(m.group(3)) >= 16:
            k = int(m.group(3))
            yield "shrink_expect_tx", f"expect_tx {k} -> {k - 16}", \
                lines[:i] + [body[:m.start(3)] + str(k - 16) + body[m.end(3):]] + lines[i + 1:]
        m = re.search(r"cp\.async\.bulk\.multicast (\S+) (\S+) mbar=(\S+)", body)
        if m and "," in m.group(1):
            d, mb = m.group(1).split(","), m.group(3).split(",")
            new = body.replace(m.group(1), ",".join(d[:-1]), 1).replace(f"mbar={m.group(3)}", f"mbar={','.join(mb[:-1])}")
            yield "clear_cta_mask_bit", f"multicast to {','.join(d)} -> {','.join(d[:-1])}", \
                lines[:i] + [new] + lines[i + 1:]
    bars = [i for i in ins if _op(lines[i]) in ("bar.sync", "barrier.cluster")]
    if bars:
        yield "drop_barrier", f"drop every '{_op(lines[bars[0]])}'", [l for j, l in enumerate(lines) if j not in bars]
    # reverse two adjacent instructions of one thread
    for a, b in zip(ins, ins[1:]):
        ta, tb = lines[a].split(":")[0].strip(), lines[b].split(":")[0].strip()
        if ta == tb and b == a + 1:
            yield "reverse_accesses", f"swap '{lines[a].strip()}' and '{lines[b].strip()}'", \
                lines[:a] + [lines[b], lines[a]] + lines[b + 1:]


def mutants_of(test, model):
    base = model.run(test).verdicts
    forbidden = {o for o, v in base.items() if v == FORBIDDEN}
    lines = test.text.rstrip("\n").split("\n")
    seen = set()
    for k, (op, what, new) in enumerate(operators(lines)):
        text = "\n".join(new) + "\n"
        if text in seen:
            continue
        seen.add(text)
        text = text.replace(f"test {test.name}", f"test {test.name}+{op}.{k}", 1)
        try:
            [mt] = parse_text(text, f"{test.path}~{op}")
        except Exception as e:          # a mutation the format refuses (e.g. a condition on a dropped register)
            yield {"test": test.name, "operator": op, "what": what, "killing": [], "error": str(e)}
            continue
        res = model.run(mt)
        killing = sorted(" ".join(f"{a}={b}" for a, b in o) for o, v in res.verdicts.items()
                         if (o in forbidden and v != FORBIDDEN) or (o == HANG and o not in base))
        yield {"test": test.name, "mutant": mt.name, "operator": op, "what": what, "killing": killing,
               "text": text}


def all_mutants(tests, model=None):
    model = model or Model()
    out = []
    for t in tests:
        out.extend(mutants_of(t, model))
    return out



def write(path, rows):
    """The killable mutants, one JSON object a line, gzip (byte-deterministic)."""
    import gzip
    import io
    import json
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as f:
        f.write("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows if r["killing"]).encode())
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def read(path):
    import gzip
    import json
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(l) for l in f]
