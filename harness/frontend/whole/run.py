"""`./ptxcts frontend whole-run DIR --out OUT`: the whole kernels of a folder `whole-write` wrote, run on this
machine's GPU and judged: each kernel's checked buffers byte for byte against the model's (index.json `expect`).

Classes: pass; fail (a byte differs: the first element that differs and how many do, with the rule); crash (a
driver error: the kernel trapped or could not launch); timeout (it ran past --timeout: a wait that never
completes); compile_error (the front-end or its ptxas refused the kernel in whole-write); spec_divergence (a
refusal a reviewed finding of results/expectations/frontends.toml covers: the finding named, not a failure).
Without a GPU nothing is judged: every kernel `skipped`, exit 77 (docs/CLI.md). A kernel that traps poisons its
CUDA context, so the kernels run in a child process that answers one JSON line per kernel; when it dies or hangs
the kernel it was running is a crash or timeout and a new child takes the rest. Writes OUT/results.jsonl (one
line per form), OUT/summary.txt (the classes per template) and prints the summary table.
"""
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict

from framework.documents.schema import WHOLE_CLASSES, WHOLE_NOT_PASSING
from framework.progress import Progress

from .. import FrontendError, findings
from ..errors import MALFORMED
from .folder import FORMAT, elements

CHILD = "--whole-child"
# what a kernel's entry of index.json must have: its launch (run_one) and its record (answer)
CASE_KEYS = ("entry", "form", "asked", "template", "instruction", "args", "buffers", "meta", "expect", "rule")


def load(folder):
    """The folder's index.json (or index.json.gz, as a folder carried compressed), read by the project's JSON reader
    (framework.documents.jsonloc: a malformed file is an InputError naming it and the line, exit 3)."""
    from framework.documents import jsonloc
    path = os.path.join(folder, "index.json")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    if not os.path.isfile(path):
        raise FrontendError(f"{path}: no such file (write the folder with ./ptxcts frontend whole-write)", MALFORMED)
    doc = jsonloc.read(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("cases"), list):
        raise FrontendError(f"{path}: not a {FORMAT} index (written by ./ptxcts frontend whole-write)", MALFORMED)
    for n, case in enumerate(doc["cases"]):
        missing = [k for k in CASE_KEYS if not isinstance(case, dict) or k not in case]
        if missing:
            name = case.get("entry", "?") if isinstance(case, dict) else repr(case)[:40]
            raise FrontendError(f"{path}: cases[{n}] ({name}) lacks {', '.join(missing)}", MALFORMED)
    return doc


def _stage(what):
    sys.stderr.write(f"{time.monotonic():.3f} {what}\n")
    sys.stderr.flush()


def _tensor_map(drv, m, ptr, shape, block, swizzle):
    """The CUtensorMap of m (elem_type, elem_size; mode "im2col" with its corners lower and upper, else tiled) over
    the tensor at ptr: shape and block outermost first (an im2col block [pixels, channels])."""
    if m.get("mode") == "im2col":
        return drv.tensor_map_im2col(m["elem_type"], m["elem_size"], ptr, shape, block, swizzle, m["lower"],
                                     m["upper"])
    return drv.tensor_map(m["elem_type"], m["elem_size"], ptr, shape, block, swizzle)


def _has_map(case):
    return any(a["kind"] == "tensordesc" or a.get("tmap") for a in case["args"])


def run_one(drv, folder, case):
    """(class, message) of one kernel on the GPU."""
    import ctypes
    _stage(f"{case['entry']} {case['form']}: load")
    with open(os.path.join(folder, case.get("module") or case["entry"] + ".cubin"), "rb") as f:
        image = f.read()
    _mod, fn = drv.load(image, case["entry"])
    ptrs = {b: drv.alloc(bytes.fromhex(v["init"])) for b, v in case["buffers"].items()}
    meta, params, descs = case["meta"], [], iter(case["meta"].get("tensordesc", []))
    for arg in case["args"]:
        if arg["kind"] == "tensordesc":   # Triton's: the map by value, then the tensor's shape and strides
            d = next(descs)
            params.append(_tensor_map(drv, dict(d, **arg), ptrs[arg["buffer"]], arg["shape"], d["block_size"],
                                      d["swizzle"]))
            params += [ctypes.c_int32(s) for s in arg["shape"]]
            strides, s = [], 1
            for dim in reversed(arg["shape"]):
                strides.insert(0, s)
                s *= dim
            params += [ctypes.c_int64(s) for s in strides]
        elif arg["kind"] == "ptr":
            if arg.get("tmap"):   # the DSL's: a map over another buffer, encoded here into this one (global memory)
                m = arg["tmap"]
                tmap = _tensor_map(drv, m, ptrs[m["buffer"]], m["shape"], m["block"], 0)
                drv.write(ptrs[arg["buffer"]], ctypes.string_at(tmap.addr, 128))
            params.append(ctypes.c_uint64(ptrs[arg["buffer"]]))
        else:
            params.append(ctypes.c_int32(arg["value"]))
    if meta.get("abi", "triton") == "triton":   # Triton's two trailing pointers: global and profile scratch
        scratch = [drv.alloc(bytes(meta[k])) if meta[k] else 0 for k in ("global_scratch_size", "profile_scratch_size")]
        params += [ctypes.c_uint64(p) for p in scratch]
    _stage(f"{case['entry']}: launch {32 * meta['num_warps']} threads, {meta['shared']} bytes shared, "
           f"{len(params)} parameters")
    drv.launch(fn, params, 32 * meta["num_warps"], meta["shared"], meta["num_ctas"])
    _stage(f"{case['entry']}: done")
    for b, want_hex in sorted(case["expect"].items()):
        elem = case["buffers"][b]["elem"]
        want = bytes.fromhex(want_hex)
        got = drv.read(ptrs[b], len(want))
        if got != want:
            g, w = elements(got, elem), elements(want, elem)
            bad = [i for i in range(len(w)) if g[i] != w[i]]
            i = bad[0]
            return "fail", (f"{b}[{i}] is 0x{g[i]:0{2 * elem}x}, the model says 0x{w[i]:0{2 * elem}x} ({len(bad)} of "
                            f"{len(w)} elements differ); rule: {case['rule']}")
    return "pass", ""


def child(folder, entries):
    """The child: one JSON line per kernel on stdout, in order; it ends at the first driver error (its context is
    poisoned)."""
    from .cudadrv import CudaError, Driver
    doc = load(folder)
    by_entry = {c["entry"]: c for c in doc["cases"]}
    try:
        drv = Driver()
    except CudaError as e:
        print(json.dumps({"entry": None, "class": "skipped", "message": str(e)}), flush=True)
        return 0
    print(json.dumps({"device": drv.device()}), flush=True)
    for e in entries:
        print(json.dumps({"start": e}), flush=True)
        t0 = time.monotonic()
        try:
            klass, msg = run_one(drv, folder, by_entry[e])
        except CudaError as err:
            print(json.dumps({"entry": e, "class": "crash", "message": str(err),
                              "seconds": time.monotonic() - t0}), flush=True)
            return 0
        print(json.dumps({"entry": e, "class": klass, "message": msg, "seconds": time.monotonic() - t0}), flush=True)
    return 0


class _Lines:
    """The child's answer lines, read unbuffered from its pipe (a line buffered out of select's sight would leave a
    hung kernel unnoticed)."""

    def __init__(self, fd):
        self.fd, self.buf = fd, b""

    def read(self, wait):
        """The next line (str), "" at the end, None when none came within wait seconds."""
        import select
        while b"\n" not in self.buf:
            if not select.select([self.fd], [], [], wait)[0]:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return ""
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


def _drive(folder, entries, timeout, answer, prog, log):
    """Runs entries in children (a new one after each crash or timeout); answer(entry, class, message, s). The
    children's stderr (the stage each kernel reached) goes to log."""
    device = None
    todo = list(entries)
    while todo:
        with open(log, "ab") as err:
            p = subprocess.Popen([sys.executable, "-m", "frontend", CHILD, folder] + todo, stdout=subprocess.PIPE,
                                 stderr=err, bufsize=0, cwd=os.path.dirname(os.path.dirname(__file__)),
                                 env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        lines = _Lines(p.stdout.fileno())
        running, since = None, time.monotonic()
        while True:
            left = timeout - (time.monotonic() - since) if running else 60.0
            line = lines.read(max(0.05, left))
            if line is None:
                if running and time.monotonic() - since >= timeout:
                    p.kill()
                    p.wait()
                    answer(running, "timeout", f"still running after {timeout:g} s (a wait that never completes?)",
                           timeout)
                    todo.remove(running)
                    prog.advance(1)
                    break
                continue
            if line == "":
                p.wait()
                if running:
                    answer(running, "crash", f"the child died (exit {p.returncode}; its stderr: {log})", 0.0)
                    todo.remove(running)
                    prog.advance(1)
                elif todo and p.returncode:
                    raise FrontendError(f"whole-run: the child ended (exit {p.returncode}) before a kernel: {log}",
                                        MALFORMED)
                break
            msg = json.loads(line)
            if "device" in msg:
                device = msg["device"]
            elif "start" in msg:
                running, since = msg["start"], time.monotonic()
            elif msg.get("entry") is None:   # no GPU: nothing judged
                for e in todo:
                    answer(e, "skipped", msg["message"], 0.0)
                return None
            else:
                answer(msg["entry"], msg["class"], msg["message"], msg.get("seconds", 0.0))
                todo.remove(msg["entry"])
                running = None
                prog.advance(1)
        p.stdout.close()
    return device


def run(a, root):
    """Each kernel's record is appended to OUT/results.jsonl as it is judged (an interrupted run keeps them); the
    first line is the run's head (front-end, Triton, its ptxas, target, PTX), the device follows as a record of its
    own once the child has named it."""
    t0 = time.monotonic()
    doc = load(a.folder)
    os.makedirs(a.out, exist_ok=True)
    by_entry = {c["entry"]: c for c in doc["cases"]}
    records = []
    head = {"frontend": doc["frontend"], "compiler": doc["compiler"],
            "ptxas": doc["ptxas"], "target": doc["target"],
            "ptx": doc["ptx"],
            "not_written": dict(Counter(w.split(":")[0] for w in doc.get("not_written", {}).values()))}
    out = open(os.path.join(a.out, "results.jsonl"), "w")
    out.write(json.dumps(head, sort_keys=True) + "\n")

    def keep(r):
        records.append(r)
        out.write(json.dumps(r, sort_keys=True) + "\n")
        out.flush()

    def answer(entry, klass, msg, seconds):
        c = by_entry[entry]
        keep({"form": c["form"], "asked": c["asked"], "template": c["template"], "class": klass, "message": msg,
              "instruction": c["instruction"], "seconds": round(seconds, 4)})

    reviewed = findings.load(a.findings or findings.default_path(root))
    with out:
        for form, err in sorted(doc.get("refused", {}).items()):
            # a refusal a reviewed finding covers (results/expectations/frontends.toml, refuses_valid) is that
            # finding's spec_divergence, as in the front-end tier's judge
            known = findings.reviewed(reviewed, doc["frontend"], form, "refuses_valid")
            keep({"form": form, "asked": form, "template": "(refused)",
                  "class": "spec_divergence" if known else "compile_error",
                  "message": f"{known}; the front-end said: {err}" if known else err})
        prog = Progress(len(by_entry), label="whole-run", unit="kernels")
        # kernels without a tensor map first: a launcher fault shows on them before the tensor maps are in doubt
        order = sorted(by_entry, key=lambda e: (_has_map(by_entry[e]), e))
        head["device"] = _drive(os.path.abspath(a.folder), order, a.timeout, answer, prog,
                                os.path.join(a.out, "children.log"))
        out.write(json.dumps({"device": head["device"]}) + "\n")
    if head["device"] is None:   # docs/CLI.md: a GPU verb without a GPU does no GPU work and exits 77
        why = next((r["message"] for r in records if r["class"] == "skipped"), "no device")
        sys.stderr.write(f"whole-run: skipped, no GPU here: {why}\n")
        return 77
    table = summary(records, head, time.monotonic() - t0)
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write(table)
    sys.stdout.write(table)
    bad = [r for r in records if r["class"] in WHOLE_NOT_PASSING]
    for r in bad:
        print(f"  {r['class']}: {r['form']}: {r['message'][:300]}")
    return 1 if bad else 0


def summary(records, head, wall):
    classes = [c for c in WHOLE_CLASSES if c != "skipped"]   # a run without a GPU has no table
    rows = defaultdict(Counter)
    for r in records:
        rows[r["template"]][r["class"]] += 1
    dev = head["device"]
    lines = [f"{head['compiler']} ({head['frontend']}), ptxas {head['ptxas']}, {head['target']} PTX "
             f"{head['ptx']}, on {dev[0] + ' ' + dev[1] + ' driver ' + str(dev[2]) if dev else 'no GPU'}: "
             f"{len(records)} whole kernels in {wall:.1f} s; forms without one: "
             f"{', '.join(f'{k} {v}' for k, v in sorted(head['not_written'].items())) or 'none'}",
             f"{'template':<26}" + "".join(f"{c:>14}" for c in classes)]
    total = Counter()
    for t in sorted(rows):
        total.update(rows[t])
        lines.append(f"{t:<26}" + "".join(f"{rows[t][c]:>14}" for c in classes))
    lines.append(f"{'total':<26}" + "".join(f"{total[c]:>14}" for c in classes))
    return "\n".join(lines) + "\n"
