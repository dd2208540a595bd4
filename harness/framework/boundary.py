"""The error boundary every Python verb runs inside (docs/CLI.md): what reaches the user when a verb ends early.

    boundary.run("compile", main, argv)     # in a layer's __main__: main(argv) -> exit code
    python3 -m framework MODULE ARGS...     # how ./ptxcts runs a Python verb: MODULE's __main__ inside run()

Inside the boundary:
* SIGTERM raises Interrupted (a KeyboardInterrupt, so every tier's "write what was judged, marked partial" path
  handles both signals alike); SIGINT raises KeyboardInterrupt as usual. A verb that does not handle them ends
  with one line and exit 128 + signal (130, 143), never a traceback. Only the first signal raises: the verb is
  then already stopping, and a second one (Ctrl-C pressed twice, a signal to the group and to the process) must
  not cut off the writing of what was judged; `./ptxcts` kills the group at the third (docs/CLI.md, "Signals").
* A signal's exception raised inside a finalizer or an at-fork hook, which Python drops with a printed
  traceback, is raised again in the code the verb runs next (_swallowed): the verb stops, quietly.
* SIGINT is handled even when the verb was started with it ignored (a job started with `&` by a non-interactive
  shell inherits SIGINT ignored): a verb that ran on after a Ctrl-C sent to it would hold its lock to the end.
* A verb that leads its process group (as `./ptxcts` starts it) passes the first signal on to the whole group:
  a signal sent to the verb's own process alone (`kill PID`, or the SIGTERM its parent-death signal sends when
  `./ptxcts` is killed outright) stops every process of the verb, as one sent to the group does.
* An OSError (read-only folder, full disk, not a folder, permission, missing file) becomes one line naming the path
  and what happened, exit 2 (EXIT_USAGE: the path given cannot be used).
* A document that cannot be decoded (not UTF-8, nested too deeply, a truncated or damaged gzip file) becomes exit 3
  (EXIT_INPUT).
* A VerbError (a malformed document, a usage error of a layer) that the verb did not end itself becomes its one
  line and its own code (2 or 3): it names the input, it is never a bug of ptx-cts.
* Anything else is a bug: "internal error", the exception, and where to report it; exit 70 (EXIT_INTERNAL).
"""
import errno
import os
import signal
import sys
import threading
import time

EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_INTERNAL = 70
REPORT_TO = "the ptx-cts maintainers with the command line and this message (docs/CLI.md, 'Internal errors')"

# signal: the first stopping signal; raised: its exception has been raised into the verb's code (a later signal
# raises nothing, unless _swallowed found that exception dropped); live: the verb's main is running
_received = {"signal": None, "raised": False, "live": False}


class Interrupted(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as KeyboardInterrupt is for SIGINT."""


def _first(signum):
    """Record the first stopping signal and pass it on to the group this process leads; False for any later one
    (already stopping: nothing more is raised)."""
    if _received["signal"] is not None:
        return False
    _received["signal"] = signum
    if os.getpgrp() == os.getpid():
        try:
            os.killpg(0, signum)   # this process gets it again too: a later signal, ignored just above
        except OSError:
            pass
    return True


def _to_raise(signum, frame):
    """Whether this signal's handler raises: the first signal, or one sent again after its exception was dropped
    (_swallowed) -- never inside _swallowed itself (Python drops an exception of the hook too), nor once the verb has
    returned (its exit code is decided; ./ptxcts reports the signal)."""
    _first(signum)
    if _received["raised"] or not _received["live"]:
        return False
    while frame is not None:
        if frame.f_code is _swallowed.__code__:
            return False
        frame = frame.f_back
    _received["raised"] = True
    return True


def _on_term(signum, frame):
    if _to_raise(signum, frame):
        raise Interrupted()


def _on_int(signum, frame):
    if _to_raise(signum, frame):
        raise KeyboardInterrupt()


AGAIN_S = 0.02   # how often a dropped interrupt is sent again until it has been raised


def _send_again(signum):
    """A thread's loop: the signal to the main thread every AGAIN_S until its handler raised it (or the verb
    returned). Sent by the main thread itself, its handler would run inside _swallowed."""
    main = threading.main_thread().ident
    while _received["live"] and not _received["raised"]:
        time.sleep(AGAIN_S)
        try:
            signal.pthread_kill(main, signum)
        except (OSError, ValueError):   # the main thread is gone: nothing left to stop
            return


def _swallowed(unraisable, default=sys.__unraisablehook__):
    """sys.unraisablehook. The first signal's exception is raised wherever the verb is; where that is code whose
    exceptions Python cannot pass on -- a finalizer (__del__, a weakref callback), an at-fork hook (os.fork in the
    verb runs logging's) -- Python printed it ("Exception ignored in ...", a traceback) and dropped it, and the verb
    ran on to its end as if no signal had come. It is sent again instead, quietly, until raised in the verb's code
    (_send_again), while the verb runs; once the verb has returned, it has nothing to stop. Every other unraisable
    exception is reported as Python reports it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _received["signal"] is not None:
        if _received["live"]:
            _received["raised"] = False
            threading.Thread(target=_send_again, args=(_received["signal"],), daemon=True,
                             name="ptxcts-interrupt-again").start()
        return
    default(unraisable)


def received_signal():
    """The signal that interrupted the verb (signal.SIGINT when none was recorded: a KeyboardInterrupt)."""
    return _received["signal"] or signal.SIGINT


def signal_name():
    return signal.Signals(received_signal()).name


def interrupt_exit_code():
    """128 + the signal: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(received_signal())


def install_signal_handlers():
    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGINT, _on_int)   # also when inherited ignored (module docstring)
    sys.unraisablehook = _swallowed
    # SIGPIPE stays ignored (Python's default): a process pool writes to pipes of its own while it stops, and a
    # reader gone there must be an error it handles, not the end of the run; a closed standard output is handled
    # in handle() (BrokenPipeError)


_STOPS = {signal.SIGINT, signal.SIGTERM}


def hold_signals():
    """SIGINT and SIGTERM wait from now until the end of the `signals_deferred` block that follows: for a step whose
    end must reach the writing of the document with no signal between them (a signal there would be raised before
    the document is begun). No other block may come between."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)


class signals_deferred:
    """`with boundary.signals_deferred():` -- SIGINT and SIGTERM wait until the block ends (writing the results
    document of a run that was already interrupted, or finished: the signal then stops nothing half-written). The
    end of the block lets them through, also those held since hold_signals()."""

    def __enter__(self):
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        return self

    def __exit__(self, *exc):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
        return False


# The verbs' argument parser is the generator's (its verbs parse alike, and the generator imports nothing of the
# harness): re-exported here, beside the rest of what a verb runs inside.
from ptxcts_gen.arguments import ArgumentParser  # noqa: E402,F401


class VerbError(Exception):
    """An error a verb expects (bad input, not a bug): it ends the verb with its message and `code`, EXIT_USAGE or
    EXIT_INPUT. Each layer's error derives from it with its own default code."""
    code = EXIT_INPUT

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


def reported(prog, call, errors):
    """call(), with the errors a verb expects each ended as one line and an exit code. `errors`: rows of
    (exception type, prefix, exit code), the first row whose type the exception is decides: the line is
    "<prog>: <prefix><message>" on standard error, the code the row's (None: the error's own `code`). Any other
    exception goes on to run()'s boundary."""
    try:
        return call()
    except tuple(kind for kind, _, _ in errors) as e:
        prefix, code = next((prefix, code) for kind, prefix, code in errors if isinstance(e, kind))
        sys.stderr.write(f"{prog}: {prefix}{e}\n")
        return e.code if code is None else code


def describe_os_error(e):
    """'PATH: what happened' for an OSError (both paths of a rename or copy)."""
    what = e.strerror or str(e)
    if e.errno == errno.EEXIST and e.filename and not os.path.isdir(e.filename):   # mkdir over a file
        what = "exists and is not a folder"
    elif e.errno == errno.ENOTDIR:
        what = "a part of this path is a file, not a folder"
    paths = [p for p in (e.filename, e.filename2) if p not in (None, "")]
    if not paths:
        return what
    return f"{' -> '.join(os.fsdecode(p) for p in paths)}: {what}"


def handle(prog, e):
    """The exit code and the one line for an exception that reached the boundary."""
    if isinstance(e, KeyboardInterrupt):
        return interrupt_exit_code(), f"{prog}: interrupted by {signal_name()}"
    if isinstance(e, UnicodeDecodeError):
        return EXIT_INPUT, f"{prog}: an input file is not UTF-8 text ({e.reason} at byte {e.start})"
    if isinstance(e, RecursionError):
        return EXIT_INPUT, f"{prog}: an input document is nested too deeply to read ({e})"
    if isinstance(e, EOFError) or type(e).__name__ in ("BadGzipFile", "error") and type(e).__module__ in ("gzip",
                                                                                                          "zlib"):
        # a reader that opened a .gz itself: the shared readers (jsonloc) name the file; this says what it was
        return EXIT_INPUT, f"{prog}: an input file is a truncated or damaged compressed file ({e})"
    if isinstance(e, BrokenPipeError) and e.filename is None:   # `./ptxcts cases | head`: the reader is done
        _silence_stdout()
        return 128 + signal.SIGPIPE, None
    if isinstance(e, OSError):
        return EXIT_USAGE, f"{prog}: {describe_os_error(e)}"
    if isinstance(e, VerbError):   # an expected error no row of reported() named: its own message and code
        return e.code, f"{prog}: {e}"
    where = ""
    tb = e.__traceback__
    while tb is not None:
        where = f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno} ({tb.tb_frame.f_code.co_name})"
        tb = tb.tb_next
    return EXIT_INTERNAL, (f"{prog}: internal error: {type(e).__name__}: {e}{where}\n"
                           f"{prog}: this is a bug of ptx-cts, not of your input; please report it to {REPORT_TO}"
                           + ("" if os.environ.get("PTXCTS_TRACEBACK") else
                              " (PTXCTS_TRACEBACK=1 prints the whole traceback)"))


def run(prog, main, *args, early=()):
    """Call main(*args) inside the boundary and return the exit code to pass to sys.exit. early: the signals that
    came before the boundary's handlers were in place (framework/__main__ records them): main is not called."""
    _received["live"] = True   # before the handlers: a signal from then on is raised
    install_signal_handlers()
    if sys.stdout is None:   # started with standard output closed (`>&-`): Python would drop every line printed
        sys.stdout = _ClosedOutput()
    try:
        if early:
            _first(early[0])
            _received["raised"] = True
            raise KeyboardInterrupt()
        code = main(*args)
    except SystemExit as e:
        code = e.code
    except BaseException as e:   # noqa: B036 -- the boundary: nothing past here may print a traceback
        _received["live"] = False
        if os.environ.get("PTXCTS_TRACEBACK") and not isinstance(e, KeyboardInterrupt):
            import traceback
            traceback.print_exc()
        code, line = handle(prog, e)
        if line:
            _write_err(line)
    _received["live"] = False
    return _flush(code)


def _silence_stdout():
    """Standard output's reader is gone: what is still buffered goes nowhere (not a second error at exit)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _write_err(line):
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _ClosedOutput:
    """Standard output when the verb was started without one (`>&-`): the first line the verb prints raises the
    OSError a closed descriptor gives (EBADF, 'standard output'), which the boundary reports (exit 2) -- what the
    verb printed is not silently dropped. A verb that prints nothing ends as it would have."""

    def write(self, text):
        if text:
            raise OSError(errno.EBADF, "closed (the command was started with standard output closed, e.g. >&-)",
                          "standard output")
        return 0

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        raise OSError(errno.EBADF, "closed", "standard output")


def _flush(code):
    """Flush stdout inside the boundary: a closed pipe or a full disk at exit is reported, not a traceback."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as e:
        _write_err(f"standard output: {describe_os_error(e)}")
        return code or EXIT_USAGE
    return code
