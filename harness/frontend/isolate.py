"""Running front-end work in forked children, so that an abort of the library kills one child, never the tier.

LLVM reports "Cannot select" and a PTX version its target does not support with `LLVM ERROR: ...` and exits the
process. The parent loads the library once; each job runs in a child forked from it (copy-on-write: no second
load), with its stderr captured, and sends its result back as JSON. A child that dies without a result is a crash,
with its exit status and the last lines it wrote to stderr.
"""
import json
import pickle
import resource
import struct
import os
import select
import signal
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Outcome:
    ok: bool            # the job returned (value is its result)
    value: object
    stderr: str
    status: str         # "ok", "exit N", "signal NAME", "timeout"
    seconds: float


def _child(fn, arg, wfd, errfd):
    os.dup2(errfd, 2)
    # LLVM refuses by aborting: no core file for each refusal where the host writes them
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        value = fn(arg)
        data = json.dumps({"value": value}).encode()
    except BaseException as e:   # an exception is a result too (the parent tells it from a crash)
        data = json.dumps({"error": f"{type(e).__name__}: {e}"}).encode()
    view = memoryview(data)
    while view:
        n = os.write(wfd, view)
        view = view[n:]
    os._exit(0)


def _tail(path, limit=2000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-limit:]
    except OSError:
        return ""


def run_many(fn, args, jobs=2, timeout=120.0, done=None):
    """fn(arg) for every arg, each in its own forked child, at most `jobs` at a time. Returns the Outcomes in the
    order of args. done(i, outcome) is called as each finishes."""
    results = [None] * len(args)
    pending = list(range(len(args)))
    running = {}   # read fd -> (index, pid, buffer, started, errpath)
    tmpdir = tempfile.mkdtemp(prefix="ptxcts-fe-")
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                i = pending.pop(0)
                r, w = os.pipe()
                errpath = os.path.join(tmpdir, f"{i}.err")
                errfd = os.open(errpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                pid = os.fork()
                if pid == 0:
                    os.close(r)
                    _child(fn, args[i], w, errfd)
                os.close(w)
                os.close(errfd)
                running[r] = [i, pid, bytearray(), time.monotonic(), errpath]
            ready, _, _ = select.select(list(running), [], [], 0.5)
            now = time.monotonic()
            for r in list(running):
                i, pid, buf, started, errpath = running[r]
                finished = False
                if r in ready:
                    chunk = os.read(r, 1 << 16)
                    if chunk:
                        buf.extend(chunk)
                        continue
                    finished = True
                elif now - started > timeout:
                    os.kill(pid, signal.SIGKILL)
                    finished = True
                if not finished:
                    continue
                os.close(r)
                _, status = os.waitpid(pid, 0)
                del running[r]
                secs = time.monotonic() - started
                err = _tail(errpath)
                if now - started > timeout and not buf:
                    out = Outcome(False, None, err, "timeout", secs)
                elif os.WIFSIGNALED(status):
                    out = Outcome(False, None, err, f"signal {signal.Signals(os.WTERMSIG(status)).name}", secs)
                elif os.WEXITSTATUS(status) != 0 or not buf:
                    out = Outcome(False, None, err, f"exit {os.WEXITSTATUS(status)}", secs)
                else:
                    doc = json.loads(bytes(buf))
                    if "error" in doc:
                        out = Outcome(False, doc["error"], err, "exception", secs)
                    else:
                        out = Outcome(True, doc["value"], err, "ok", secs)
                results[i] = out
                if done:
                    done(i, out)
    finally:
        for r, (i, pid, *_rest) in running.items():
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        for n in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, n))
        os.rmdir(tmpdir)
    return results


def _send(fd, obj):
    data = pickle.dumps(obj)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _recv_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf.extend(chunk)
    return bytes(buf)


def _recv(fd):
    head = _recv_exact(fd, 8)
    if head is None:
        raise EOFError("the zygote process ended")
    return pickle.loads(_recv_exact(fd, struct.unpack("<Q", head)[0]))


class Zygote:
    """A small process forked right after the library is loaded, before the tier builds its tables: it forks the
    children of run_many, so that each fork copies the page tables of a small process (a fork of the full tier
    costs ten times as much). fn must be a function of the state the zygote inherited."""

    def __init__(self, fn, jobs=2, timeout=120.0):
        self.fn, self.jobs, self.timeout = fn, jobs, timeout
        req_r, self.req_w = os.pipe()
        self.res_r, res_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.req_w)
            os.close(self.res_r)
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # an interrupt is the tier's to handle (close ends us)
            try:
                while True:
                    args = _recv(req_r)
                    if args is None:
                        break
                    run_many(fn, args, jobs, timeout, done=lambda i, o: _send(res_w, (i, o)))
                    _send(res_w, ("end", None))
            except BaseException:
                pass
            os._exit(0)
        os.close(req_r)
        os.close(res_w)

    def run_many(self, args, done=None):
        """As run_many(fn, args, ...), the children forked by the zygote."""
        out = [None] * len(args)
        _send(self.req_w, list(args))
        while True:
            i, o = _recv(self.res_r)
            if i == "end":
                return out
            out[i] = o
            if done:
                done(i, o)

    def close(self):
        """End the zygote: asked to when idle; killed when it is still busy after 5 s (an interrupted run)."""
        try:
            _send(self.req_w, None)
        except OSError:
            pass
        os.close(self.req_w)
        os.close(self.res_r)
        deadline = time.monotonic() + 5.0
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                return
            time.sleep(0.05)
