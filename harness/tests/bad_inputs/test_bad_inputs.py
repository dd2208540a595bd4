#!/usr/bin/env python3
"""Bad inputs across every verb: a table of rows (rows.toml, beside this file), each a command with its environment
and the files it prepares in a fresh temporary folder. Every row must end with its exit code (2: usage -- an
option, an argument or an environment variable; 3: a malformed file) and a message on stderr that contains the
row's fragment (naming the input and the rule), print no Python traceback (nor a C++ terminate / abort), and lose
nothing: every file the row prepared is byte-identical afterwards and nothing new appeared beside them.

Run by CTest (bad_inputs, label cli) with PTXCTS_BUILD naming the build folder (ptxcts-run, ptxcts-ref); by hand:
    PTXCTS_BUILD=build python3 harness/tests/bad_inputs/test_bad_inputs.py [-v] [ROW-ID-SUBSTRING...]
A summary (rows per verb, passed / failed) closes the run.

Row fields (rows.toml, [[row]]):
    id        unique name                              verb     the verb (or file reader) the row is counted under
    argv      the command; placeholders below          env      {NAME: value}; "" unsets (the base environment
    exit      2 or 3                                             has no PTXCTS_*, GTEST_*, CTEST_RESOURCE_*
    message   fragment (or list) stderr must contain             variables, PTXCTS_BUILD excepted)
    stdin     text on standard input (default none)    cwd      folder to run in (default {tmp})
    files     [[row.files]]: path (under {tmp}) and one of text | copy (a repository file or folder) | dir = true |
              link (a symbolic link to this target, placeholders substituted: an output that leads to an input) |
              fifo = true (a named pipe: what would be waited on for ever),
              then edits: head = N lines, replace = [old, new] (old must occur), append, gzip = true
    new_ok    paths under {tmp} the command may create (default none)
Rows of what happens to a run while it runs (the harder categories: a disk that fills, a folder remounted
read-only, a clock set back, a compiler replaced, two runs racing for one folder) add:
    mounts    [[row.mounts]]: path (under {tmp}) and tmpfs = SIZE (a tmpfs of that size) or bind = PATH (a bind
              mount of another folder under {tmp}); made before the files, undone afterwards. They need root:
              without it the row is reported SKIPPED (never passed)
    during    [[row.during]]: run (a shell command, placeholders substituted) after_s seconds after the command
              started, or -- with when = PATH under {tmp} -- after PATH appeared (the run's lock: it judges now)
    hogs      CPU hogs (busy processes, one per count) for the row's whole life: the machine under load
    race      true: the command runs twice at once; one must end with `exit` and the message, the other with
              0 or 1 (it judged and wrote its document)
    changed_ok  prepared paths the row's own `during` changes (not counted as lost)
    created   paths under {tmp} that must exist afterwards (what the command kept: a rescued document)
    valid     result folders under {tmp} whose results.json `./ptxcts validate` must accept afterwards
    exit      may also be 0 or 1 for such a row: a clock set back is no bad input, and the run must end normally
Placeholders: {tmp} the row's folder, {root} the checkout, {build} PTXCTS_BUILD, {ptxcts} the entry point,
{python} this interpreter, {ref} the ptxcts-ref tool, {faketime} libfaketime (empty when not installed).
"""
import concurrent.futures as cf
import gzip
import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TABLE = os.path.join(HERE, "rows.toml")
TIMEOUT_S = 120
# What a crash looks like, whatever the language: none may appear on stdout or stderr.
CRASH_MARKS = ("Traceback (most recent call last)", "terminate called", "Aborted", "Segmentation fault",
               "core dumped")
ROW_KEYS = {"id", "verb", "argv", "env", "exit", "message", "stdin", "cwd", "files", "new_ok", "note", "mounts", "during",
            "hogs", "race", "changed_ok", "created", "valid"}
MIDRUN_KEYS = {"mounts", "during", "race"}   # a row of what happens while a run runs
FAKETIME = next((p for p in ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                             "/usr/lib/faketime/libfaketime.so.1") if os.path.exists(p)), "")
FILE_KEYS = {"path", "text", "copy", "dir", "link", "fifo", "head", "replace", "append", "gzip", "mode"}


def build_dir():
    b = os.environ.get("PTXCTS_BUILD")
    return os.path.abspath(b) if b else None


def load_rows(path=TABLE):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    rows = doc.get("row", [])
    seen = set()
    for i, r in enumerate(rows):
        unknown = set(r) - ROW_KEYS
        if unknown:
            raise ValueError(f"{path}: row[{i}] ({r.get('id')}): unknown key(s) {sorted(unknown)}")
        for k in ("id", "verb", "argv", "exit", "message"):
            if k not in r:
                raise ValueError(f"{path}: row[{i}] ({r.get('id')}): missing {k}")
        if r["id"] in seen:
            raise ValueError(f"{path}: row id {r['id']} twice")
        seen.add(r["id"])
        if r["exit"] not in (2, 3) and not (MIDRUN_KEYS & set(r) and r["exit"] in (0, 1)):
            raise ValueError(f"{path}: row {r['id']}: exit must be 2 (usage) or 3 (malformed file); 0 or 1 only "
                             "for a row of what happens while a run runs")
        for fi in r.get("files", []):
            bad = set(fi) - FILE_KEYS
            if bad or "path" not in fi or sum(k in fi for k in ("text", "copy", "dir", "link", "fifo")) != 1:
                raise ValueError(f"{path}: row {r['id']}: file {fi.get('path')}: needs path and one of "
                                 f"text, copy, dir, link, fifo (unknown: {sorted(bad)})")
            for only in ("link", "fifo"):
                if only in fi and set(fi) - {"path", only}:
                    raise ValueError(f"{path}: row {r['id']}: file {fi['path']}: a {only} takes no edits")
    return rows


PLACEHOLDER = re.compile(r"\{(tmp|root|build|ptxcts|python|ref|faketime)\}")


def subst(text, tmp):
    """The placeholders {tmp} {root} {build} {ptxcts} {python} {ref} replaced; every other brace kept (JSON)."""
    b = build_dir() or "<PTXCTS_BUILD is not set>"
    values = dict(tmp=tmp, root=ROOT, build=b, ptxcts=os.path.join(ROOT, "ptxcts"), python=sys.executable,
                  ref=os.path.join(b, "harness", "tools", "ptxcts-ref"), faketime=FAKETIME)
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def prepare(row, tmp):
    """Write the row's files under tmp. Raises AssertionError when an edit does not apply (the row would test
    nothing)."""
    for fi in row.get("files", []):
        dst = os.path.join(tmp, fi["path"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if fi.get("dir"):
            os.makedirs(dst, exist_ok=True)
            continue
        if "link" in fi:   # the link itself, not its target, is what snapshot() compares afterwards
            os.symlink(subst(fi["link"], tmp), dst)
            continue
        if fi.get("fifo"):   # snapshot() records its mode, never opens it
            os.mkfifo(dst)
            continue
        if "copy" in fi:
            src = os.path.join(ROOT, fi["copy"])
            if os.path.isdir(src):
                shutil.copytree(src, dst, dirs_exist_ok=True)
                continue
            with open(src, "rb") as f:
                data = f.read()
            if src.endswith(".gz"):
                data = gzip.decompress(data)
        else:
            data = subst(fi["text"], tmp).encode()
        if "head" in fi:
            data = b"".join(data.splitlines(keepends=True)[:fi["head"]])
        if "replace" in fi:
            old, new = (subst(x, tmp).encode() for x in fi["replace"])
            if old not in data:
                raise AssertionError(f"row {row['id']}: {fi['path']}: {old!r} does not occur in the copy")
            data = data.replace(old, new, 1)
        if "append" in fi:
            data += subst(fi["append"], tmp).encode()
        if fi.get("gzip"):
            data = gzip.compress(data, mtime=0)
        with open(dst, "wb") as f:
            f.write(data)
        if "mode" in fi:
            os.chmod(dst, fi["mode"])


SKIPPED = "SKIPPED: "   # a row that cannot run here (no root for its mounts): reported, never counted as passed


def mount(row, tmp, mounted):
    """The row's mounts under tmp (appended to mounted as they are made); None, or why they cannot be made."""
    for m in row.get("mounts", []):
        where = os.path.join(tmp, m["path"])
        os.makedirs(where, exist_ok=True)
        if "tmpfs" in m:
            argv = ["mount", "-t", "tmpfs", "-o", f"size={m['tmpfs']}", "ptxcts-bad", where]
        else:
            src = os.path.join(tmp, m["bind"])
            os.makedirs(src, exist_ok=True)
            argv = ["mount", "--bind", src, where]
        if os.geteuid() != 0:
            return f"the row mounts {m['path']} (needs root)"
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            return f"cannot mount {m['path']}: {r.stderr.strip()}"
        mounted.append(where)
    return None


def _event(during, tmp, stop):
    """A row's `during`: once `when` (a path under tmp, e.g. the run's lock: it judges now) exists -- or at once
    without one -- and after_s more seconds, its shell command; nothing once the command has ended (stop)."""
    when = os.path.join(tmp, subst(during["when"], tmp)) if "when" in during else None
    while when and not os.path.exists(when):
        if stop.wait(0.05):
            return
    if stop.wait(during.get("after_s", 0)):
        return
    subprocess.run(["bash", "-c", subst(during["run"], tmp)], capture_output=True)


def _start(argv, env, cwd):
    # its own process group: a row that runs away (a long tier started by a bad input that was not refused)
    # is stopped with everything it started
    return subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)


def _finish(p, stdin, timeout=TIMEOUT_S):
    """(exit, stdout, stderr) of a started command, or None when it ran past timeout seconds (then killed)."""
    try:
        out, err = p.communicate(stdin, timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        kill_session(p.pid)
        p.communicate()
        return None


def kill_session(sid):
    """SIGKILL to every process of the session sid leads (the command's own, start_new_session): the groups the
    verb made inside it too, whose stragglers would otherwise keep the output pipes open."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.getsid(int(pid)) == sid:
                    os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def snapshot(folder):
    """{relative path: sha256 of a file, or 'dir'} of everything under folder."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), folder)] = "dir"
        for n in filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode):   # a FIFO (opening it would wait for a writer), a link, a device
                out[os.path.relpath(p, folder)] = f"mode {stat.S_IFMT(st.st_mode):o}" + (
                    f" -> {os.readlink(p)}" if stat.S_ISLNK(st.st_mode) else "")
                continue
            with open(p, "rb") as f:
                out[os.path.relpath(p, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def base_env():
    e = {k: v for k, v in os.environ.items() if not k.startswith(("PTXCTS_", "GTEST_", "CTEST_RESOURCE"))}
    if build_dir():
        e["PTXCTS_BUILD"] = build_dir()
    return e


def check_row(row, keep=False):
    """Run one row: a list of what is wrong (empty when the row holds), the exit code, stderr and seconds."""
    tmp = tempfile.mkdtemp(prefix="ptxcts-bad-")
    problems, rc, err, t0 = [], None, "", time.monotonic()
    mounted = []
    try:
        why = mount(row, tmp, mounted)
        if why:
            return [SKIPPED + why], None, "", time.monotonic() - t0
        prepare(row, tmp)
        before = snapshot(tmp)
        env = base_env()
        for k, v in row.get("env", {}).items():
            if v == "":
                env.pop(k, None)
            else:
                env[k] = subst(v, tmp)
        argv = [subst(a, tmp) for a in row["argv"]]
        cwd = subst(row.get("cwd", "{tmp}"), tmp)
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(row.get("hogs", 0))]
        stop = threading.Event()
        events = [threading.Thread(target=_event, args=(d, tmp, stop), daemon=True) for d in row.get("during", [])]
        try:
            runs = [_start(argv, env, cwd) for _ in range(2 if row.get("race") else 1)]
            for e in events:
                e.start()
            ends = [_finish(p, row.get("stdin", "")) for p in runs]
        finally:
            stop.set()
            for e in events:
                if e.is_alive():
                    e.join()
            for h in hogs:
                h.kill()
                h.wait()
        if any(x is None for x in ends):
            return [f"did not finish in {TIMEOUT_S} s (a bad input that started real work?)"], None, "", \
                time.monotonic() - t0
        if row.get("race"):   # the loser is the one that must say why; the winner judged and wrote its document
            ends.sort(key=lambda x: x[0] != row["exit"])
            if ends[1][0] not in (0, 1):
                problems.append(f"the other run of the race ended with exit {ends[1][0]}, expected 0 or 1: "
                                f"{ends[1][2].strip()[-300:]!r}")
        rc, out, err = ends[0]
        if rc != row["exit"]:
            problems.append(f"exit {rc}, expected {row['exit']}")
        frags = row["message"] if isinstance(row["message"], list) else [row["message"]]
        for frag in frags:
            frag = subst(frag, tmp)
            if frag not in err:
                problems.append(f"stderr lacks {frag!r}")
        for mark in CRASH_MARKS:
            if mark in err or mark in out:
                problems.append(f"{mark!r} printed")
        after = snapshot(tmp)
        allowed = [subst(x, tmp) for x in row.get("new_ok", [])]
        changing = set(row.get("changed_ok", []))
        for path, digest in before.items():
            if path in changing:
                continue
            if path not in after:
                problems.append(f"{path} was removed")
            elif after[path] != digest:
                problems.append(f"{path} was changed")
        for path in row.get("created", []):
            if not os.path.exists(os.path.join(tmp, subst(path, tmp))):
                problems.append(f"{path} was not created (what the command must keep)")
        for folder in row.get("valid", []):
            v = subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "validate", os.path.join(tmp, folder)],
                               env=base_env(), capture_output=True, text=True)
            if v.returncode != 0:
                problems.append(f"{folder}: its document is not valid: {v.stderr.strip()[-300:]}")
        for path in sorted(set(after) - set(before)):
            if not any(path == a or path.startswith(a.rstrip("/") + "/") for a in allowed):
                problems.append(f"{path} was created")
    except AssertionError as e:
        problems.append(str(e))
    finally:
        for m in reversed(mounted):
            subprocess.run(["umount", "-l", m], capture_output=True)
        if keep:
            sys.stderr.write(f"  {row['id']}: kept {tmp}\n")
        else:
            for dirpath, dirnames, _ in os.walk(tmp):   # a row may have made a folder unreadable
                for d in dirnames:
                    try:
                        os.chmod(os.path.join(dirpath, d), 0o755)
                    except OSError:
                        pass
            shutil.rmtree(tmp, ignore_errors=True)
    return problems, rc, err, time.monotonic() - t0


def summary(results):
    """The table: rows per verb, passed, failed and skipped (rows that cannot run here)."""
    per = {}
    for row, problems, _, _, _ in results:
        a = per.setdefault(row["verb"], [0, 0, 0])
        a[2 if problems and problems[0].startswith(SKIPPED) else 1 if problems else 0] += 1
    lines = [f"{'verb':28s} {'rows':>5s} {'passed':>7s} {'failed':>7s} {'skipped':>8s}"]
    for verb in sorted(per):
        ok, bad, skip = per[verb]
        lines.append(f"{verb:28s} {ok + bad + skip:5d} {ok:7d} {bad:7d} {skip:8d}")
    ok, bad, skip = (sum(v[i] for v in per.values()) for i in range(3))
    lines.append(f"{'total':28s} {ok + bad + skip:5d} {ok:7d} {bad:7d} {skip:8d}")
    return "\n".join(lines)


def run_rows(rows, jobs=None):
    jobs = jobs or max(2, min(8, os.cpu_count() or 2))
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(check_row, r) for r in rows]
        return [(r, *f.result()) for r, f in zip(rows, futs)]


def _verbs():
    """The verbs of ./ptxcts (its VERBS table), read from the script without running it."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("ptxcts_entry", os.path.join(ROOT, "ptxcts"))
    spec = importlib.util.spec_from_loader("ptxcts_entry", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return set(mod.VERBS)


class BadInputs(unittest.TestCase):
    """Every row of rows.toml."""
    ONLY = []   # row-ID substrings from the command line

    def test_rows(self):
        self.assertTrue(build_dir(), "PTXCTS_BUILD must name the build folder (ptxcts-run, ptxcts-ref)")
        rows = [r for r in load_rows() if not self.ONLY or any(s in r["id"] for s in self.ONLY)]
        t0 = time.monotonic()
        results = run_rows(rows)
        wall = time.monotonic() - t0
        skipped = [(r, p) for r, p, _, _, _ in results if p and p[0].startswith(SKIPPED)]
        for r, p in skipped:
            sys.stderr.write(f"SKIPPED {r['id']} [{r['verb']}]: {p[0][len(SKIPPED):]}\n")
        failed = [(r, p, rc, err) for r, p, rc, err, _ in results if p and not p[0].startswith(SKIPPED)]
        for r, p, rc, err in failed:
            sys.stderr.write(f"FAILED {r['id']} [{r['verb']}]: {'; '.join(p)}\n  argv: {r['argv']}"
                             f"{'  env: ' + str(r['env']) if r.get('env') else ''}\n"
                             f"  stderr: {err.strip()[-700:]!r}\n")
        sys.stderr.write(f"\nbad inputs: {len(rows)} rows in {wall:.1f} s\n{summary(results)}\n")
        slow = sorted(results, key=lambda x: -x[4])[:3]
        sys.stderr.write("slowest: " + ", ".join(f"{r['id']} {s:.1f}s" for r, _, _, _, s in slow) + "\n")
        self.assertEqual([r["id"] for r, _, _, _ in failed], [], f"{len(failed)} of {len(rows)} bad-input rows failed")


class Table(unittest.TestCase):
    """The table itself: large enough, every verb and every environment variable the suite reads."""

    def test_size_and_spread(self):
        rows = load_rows()
        self.assertGreaterEqual(len(rows), 100)
        exits = {r["exit"] for r in rows}
        self.assertEqual(exits & {2, 3}, {2, 3})
        self.assertLessEqual(exits, {0, 1, 2, 3})
        midrun = {r["id"].split(".", 1)[1] for r in rows if MIDRUN_KEYS & set(r)}
        for category in ("disk_fills", "read_only", "clock_set_back", "replaced", "race"):
            self.assertTrue(any(category in m for m in midrun), f"no row of what happens mid-run: {category}")
        verbs = {r["argv"][1] for r in rows if r["argv"][0] == "{ptxcts}" and len(r["argv"]) > 1}
        missing = _verbs() - verbs
        self.assertFalse(missing, f"verbs with no bad-input row: {sorted(missing)}")
        run_rows_n = sum(1 for r in rows if r["verb"] == "run")
        self.assertLess(run_rows_n, len(rows) // 4, "most rows belong outside the run tier (it has its own table)")

    def test_environment_variables(self):
        rows = load_rows()
        named = {k for r in rows for k in r.get("env", {})}
        for var in ("PTXCTS_TOOLCHAIN", "PTXCTS_TOOLCHAIN_CACHE", "PTXCTS_BUILD", "PTXCTS_ROOT", "PTXCTS_RUN_INJECT",
                    "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", "CTEST_RESOURCE_GROUP_0_GPUS",
                    "PTXCTS_RUN_EXPECTATIONS"):
            self.assertIn(var, named, f"no row sets {var}")

    def test_files(self):
        """Malformed files of every kind the suite reads."""
        rows = load_rows()
        kinds = {fi["path"].rsplit(".", 1)[-1] for r in rows if r["exit"] == 3 for fi in r.get("files", [])}
        for ext in ("tsv", "jsonl", "json", "gz", "toml"):
            self.assertIn(ext, kinds, f"no malformed .{ext} file among the rows")


class Checker(unittest.TestCase):
    """The checks can fail: each kind of wrong answer is caught."""

    def row(self, code, **kw):
        return dict({"id": "self", "verb": "self", "argv": ["{python}", "-c", code], "exit": 2,
                     "message": "bad input"}, **kw)

    def test_right_answer_passes(self):
        p, rc, _, _ = check_row(self.row("import sys; sys.stderr.write('bad input\\n'); sys.exit(2)"))
        self.assertEqual(p, [])

    def test_wrong_exit(self):
        p, _, _, _ = check_row(self.row("import sys; sys.stderr.write('bad input\\n'); sys.exit(1)"))
        self.assertIn("exit 1, expected 2", p)

    def test_missing_message(self):
        p, _, _, _ = check_row(self.row("import sys; sys.exit(2)"))
        self.assertIn("stderr lacks 'bad input'", p)

    def test_traceback(self):
        p, _, _, _ = check_row(self.row("import sys; sys.stderr.write('bad input'); raise ValueError('x')", exit=1))
        self.assertTrue(any("Traceback" in x for x in p), p)

    def test_lost_file(self):
        files = [{"path": "keep/results.json", "text": "{}\n"}, {"path": "gone.txt", "text": "x"}]
        p, _, _, _ = check_row(self.row("import os, sys; open('keep/results.json', 'a').write('x'); "
                                        "os.remove('gone.txt'); open('new.txt', 'w'); "
                                        "sys.stderr.write('bad input'); sys.exit(2)", files=files))
        self.assertIn("keep/results.json was changed", p)
        self.assertIn("gone.txt was removed", p)
        self.assertIn("new.txt was created", p)

    def test_link_replaced(self):
        files = [{"path": "run/results.json", "text": "{}\n"}, {"path": "l.json", "link": "run/results.json"}]
        p, _, _, _ = check_row(self.row("import os, sys; os.remove('l.json'); open('l.json', 'w').write('x'); "
                                        "sys.stderr.write('bad input'); sys.exit(2)", files=files))
        self.assertIn("l.json was changed", p)
        self.assertNotIn("run/results.json was changed", p)

    def test_link_kept_passes(self):
        files = [{"path": "run/results.json", "text": "{}\n"}, {"path": "l.json", "link": "{tmp}/run/results.json"}]
        p, _, _, _ = check_row(self.row("import os, sys; assert os.readlink('l.json').endswith('/run/results.json'); "
                                        "sys.stderr.write('bad input'); sys.exit(2)", files=files))
        self.assertEqual(p, [])

    def test_edit_must_apply(self):
        files = [{"path": "m.tsv", "copy": "README.md", "replace": ["no such text anywhere \x01", "x"]}]
        p, _, _, _ = check_row(self.row("import sys; sys.stderr.write('bad input'); sys.exit(2)", files=files))
        self.assertTrue(any("does not occur" in x for x in p), p)


if __name__ == "__main__":
    BadInputs.ONLY = [a for a in sys.argv[1:] if not a.startswith("-")]
    unittest.main(argv=[sys.argv[0]] + [a for a in sys.argv[1:] if a.startswith("-")])
