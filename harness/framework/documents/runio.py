"""What a tier needs so that no result is lost or silently wrong: a unique run ID, an
exclusive lock on the output folder, atomic file writes, and a way to mark a run that stopped early as partial.

    from framework.documents import new_run_id, OutputLock, write_run, mark_partial

    run_id = new_run_id("compile")                     # 2026-11-22T19-31-31.123Z-compile-4f2a9c
    with OutputLock(out_dir):                          # exit 2 (UsageError) if another run holds out_dir
        ...
        if interrupted:
            mark_partial(doc, "interrupted by SIGINT", done=len(doc["cases"]), total=planned)
        write_run(out_dir, doc)                        # atomic: results.json and junit.xml
"""
import datetime
import errno
import fcntl
import os
import stat
import re
import secrets
import tempfile

from framework import given

from .errors import UsageError

LOCK_NAME = ".ptxcts.lock"
_LABEL = re.compile(r"[A-Za-z0-9._+-]+")


def new_run_id(label, now=None):
    """A run ID that sorts by start time and is unique even for runs started in the same millisecond:
    `YYYY-MM-DDTHH-MM-SS.mmmZ-<label>-<6 hex digits>` (UTC; the suffix is random). `label` names the tier
    and, where there is one, the device ("compile", "sm_90-run"). `now` (an aware datetime) is for tests."""
    if not isinstance(label, str) or not _LABEL.fullmatch(label):
        raise UsageError(f"run ID label {label!r}: use letters, digits and . _ + - only")
    now = (now or datetime.datetime.now(datetime.timezone.utc)).astimezone(datetime.timezone.utc)
    stamp = now.strftime("%Y-%m-%dT%H-%M-%S") + f".{now.microsecond // 1000:03d}Z"
    return f"{stamp}-{label}-{secrets.token_hex(3)}"


# What a run folder holds: a folder with any of these holds a run (or an exploration, a self-test) already.
RUN_FILES = ("results.json", "results.json.gz", "explore.json", "explore.json.gz", "selftest.json")


def refuse_existing_run(folder, option="--out"):
    """UsageError (exit 2) unless `folder` can take a new run: it is a folder (or does not exist yet) and holds no
    run already. A run never writes over another; finishing an interrupted one is --resume's job."""
    folder = os.fspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"{option} {folder}: exists and is not a folder")
    held = [n for n in RUN_FILES if os.path.exists(os.path.join(folder, n))]
    if held:
        raise UsageError(f"{option} {folder}: holds a run already ({held[0]}); choose another folder, or finish an "
                         "interrupted run with --resume DIR (nothing was written)")


def interrupted_run(folder, tier, label, error, unit="case", need_partial=True):
    """The document of the interrupted run in `folder` that `--resume folder` finishes, validated by the schema (a
    malformed one: InputError, exit 3, naming file, line and field). error: the verb's usage exception (exit 2),
    raised with what there is not to finish: no results.json (a run stopped before its first `unit` writes none:
    start afresh), a run of another tier, or (need_partial) a complete run."""
    from .schema import load
    path = os.path.join(folder, "results.json")
    if not os.path.isfile(path):
        raise error(f"--resume {folder}: no results.json there: nothing was judged there (a run stopped before its "
                    f"first {unit} writes no document), or it is not a run folder; start the run afresh with the same "
                    f"options and --out {folder}")
    doc = load(path)
    if doc["tier"] != tier:
        raise error(f"--resume {folder}: not a {label} run (tier {doc['tier']!r})")
    if need_partial and "partial" not in doc:
        raise error(f"--resume {folder}: that run is complete: nothing to finish")
    return doc


def same_file(a, b):
    """Whether paths a and b name one file or folder (through links): an output that would write over an input."""
    return os.path.realpath(os.fspath(a)) == os.path.realpath(os.fspath(b))


def _inside(path, folder):
    """Whether `path` lies in `folder` or below it (through links)."""
    p, f = os.path.realpath(path), os.path.realpath(folder)
    return p.startswith(f.rstrip(os.sep) + os.sep)


def output_over_input(outputs, inputs, run_output=None):
    """Why a verb that reads `inputs` (paths: run folders, run documents, other files) cannot write `outputs`
    ({"--json": path, ...}, the options as the user gave them), or None -- checked before the verb works, the same for
    every verb that reads runs and writes beside them (results' report, gate, diff, merge, bundle; frontend compare):
      * an output that is an input, or a run document of an input folder (`gate RUN --json RUN/results.json`):
        writing it would replace what the verb reads;
      * run_output (the option of an output folder that will hold a run: merge's "--out") inside or equal to a
        folder the verb reads runs from -- an input folder, or the run folder of an input document (RUN/results.json):
        a later read of that folder would find the new run beside the runs it was made of;
      * two outputs on one path."""
    given_inputs = [i for i in inputs if isinstance(i, str) and i != "none" and os.path.exists(i)]
    for how, out in outputs.items():
        if not isinstance(out, str):
            continue
        for i in given_inputs:
            if same_file(out, i) or (os.path.isdir(i) and os.path.basename(os.path.realpath(out)) in RUN_FILES and
                                     _inside(out, i)):
                return (f"{how} {out}: is the input {i}" + ("" if same_file(out, i) else " (a run document in it)") +
                        "; writing there would replace what this verb reads: choose another path")
            run_folder = i if os.path.isdir(i) else os.path.dirname(os.path.abspath(i)) \
                if os.path.basename(i) in RUN_FILES else None
            if how == run_output and run_folder and (_inside(out, run_folder) or same_file(out, run_folder)):
                where = i if run_folder == i else f"{run_folder} (the folder of the input {i})"
                return (f"{how} {out}: {'is' if same_file(out, run_folder) else 'lies inside'} the input {where}; "
                        f"a run written there would be read with the runs of {run_folder} from then on: choose a "
                        "folder outside it")
        for other_how, other in outputs.items():
            if other_how != how and isinstance(other, str) and same_file(out, other):
                return f"{how} {out}: is also {other_how}; each output needs a path of its own"
    return None


def finished_time(started, seconds):
    """A run's `finished` for its document: now by the wall clock -- unless that clock was set back below
    `started` (an NTP step, a restored VM, a clock changed by hand) while the run went on: then `started` plus the
    run's `seconds` by the monotonic clock. A clock jump never makes a tier's document break the schema (finished
    before started), which would lose every case it judged. started: an ISO-8601 string or a datetime."""
    import datetime
    now = datetime.datetime.now(datetime.timezone.utc)
    begin = started if isinstance(started, datetime.datetime) else \
        datetime.datetime.fromisoformat(str(started).replace("Z", "+00:00"))
    if begin.tzinfo is None:
        begin = begin.replace(tzinfo=datetime.timezone.utc)
    return now if now >= begin else begin + datetime.timedelta(seconds=max(0.0, seconds))


def atomic_write(path, data):
    """Write `data` (str, UTF-8, or bytes) to `path` so that a reader sees the old file or the whole new one,
    never a part: a temporary file in the same folder, flushed and fsync'ed, then renamed over `path`, then the
    folder fsync'ed. On an error the temporary file is removed and `path` is untouched."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode) and \
            not stat.S_ISLNK(os.lstat(path).st_mode):
        # the rename would put a file in place of a device, a FIFO or a socket (as root: /dev/full gone)
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else \
            "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "not a regular file"
        raise OSError(errno.EINVAL, f"is {kind}, not a file this document can be written to (it is replaced "
                      "whole, atomically: name a regular file)", path)
    os.makedirs(folder, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    except OSError as e:   # a read-only or full folder: name the file being written, not its temporary twin
        raise OSError(e.errno, e.strerror, path) from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError) and e.filename is None:   # a full disk says nothing of where: name the file
            raise OSError(e.errno, e.strerror, path) from e
        raise
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return path


def rescue_dir():
    """Where a document that could not be written to its folder is kept instead: $PTXCTS_RESCUE, else
    <temporary folder>/ptxcts-rescue (docs/CLI.md, "Outputs"). Set, it must be a folder or a place one can be made
    (framework.given: blank, a file, a link to nowhere refused); OutputLock asks before a run writes anything."""
    return given.env("PTXCTS_RESCUE", given.NEW_FOLDER, "where a document that cannot be written is kept",
                     default=os.path.join(tempfile.gettempdir(), "ptxcts-rescue"))


class OutputLock:
    """An exclusive lock on an output folder for the life of one run (a context manager; or acquire()/release()).

    The lock is an fcntl.flock on `<folder>/.ptxcts.lock`, which holds the owner's pid. A second run on the same
    folder gets UsageError (exit 2) naming the folder and the holder's pid; the kernel drops the lock when the
    holder exits, however it exits, so a stale lock file never blocks a later run. The file is removed on
    release. The C++ tiers lock the same file (harness/runcore, FolderLock): one writer per folder, whichever tier.

    new_run: once locked, the folder must hold no run (refuse_existing_run): one written by another tier since the
    folder was looked at is refused (UsageError), never written over."""

    def __init__(self, folder, new_run=False):
        self.folder = os.fspath(folder)
        self.path = os.path.join(self.folder, LOCK_NAME)
        self.new_run = new_run
        self._fd = None

    def acquire(self):
        rescue_dir()   # an unusable $PTXCTS_RESCUE is said now, not when the disk fails at the end
        os.makedirs(self.folder, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise UsageError(f"{self.folder}: this output folder is in use by another ptx-cts run (pid {holder}, "
                                 f"lock {self.path}); wait for it to finish or choose another --out") from None
            # the holder before us may have removed the file between our open and our lock: lock the file that
            # is at the path now, not an unlinked one
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError as e:   # a full disk: no run can be written here; say where, before any work
            os.close(fd)
            raise OSError(e.errno, e.strerror, self.path) from e
        self._fd = fd
        if self.new_run:
            try:
                refuse_existing_run(self.folder)
            except UsageError as e:
                self.release()
                raise UsageError(f"{e} -- written by another run since this one started") from None
        return self

    def release(self):
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:   # gone, or the folder became read-only: the kernel drops the lock all the same, and a
            pass          # lock file left behind blocks nobody; the run's own error (if any) is the one to report
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()
        return False


def mark_partial(doc, reason, done, total):
    """Mark a result document as partial: the run stopped before it judged every planned case (interrupted, a
    deadline, a fatal error). Sets the top-level `"partial": {"reason", "done", "total"}` (schema version 2) and
    returns `doc`. The report shows it in a red box; `gate` refuses a partial run unless --partial."""
    if not isinstance(reason, str) or not reason:
        raise UsageError("mark_partial: the reason must be a non-empty string")
    if not (isinstance(done, int) and isinstance(total, int) and 0 <= done <= total):
        raise UsageError(f"mark_partial: done {done!r} of total {total!r}: need integers 0 <= done <= total")
    doc["partial"] = {"reason": reason, "done": done, "total": total}
    return doc
