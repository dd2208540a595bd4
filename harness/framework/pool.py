"""The worker pool every CPU tier runs its compiler calls in (compile, lower, frontend): how many workers the
machine gives, and how a pool is stopped on an interrupt."""
import os
import signal
import time


def usable_cpus():
    """The CPUs this process may run on: its affinity mask (what taskset and a cgroup cpuset leave it, which
    os.cpu_count() ignores), at least 1; os.cpu_count() where the platform has no affinity call. The default size
    of the suite's CPU worker pools (compile, lower, frontend): each worker is one compiler process at a time, so
    one per usable core. A CPU quota (cgroup cpu.max) is not read: `nproc`, the shell scripts' count, ignores it
    too."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def worker_signals():
    """A pool worker's signal actions, set first thing in the worker (its pool's initializer): an interrupt is the
    tier's to handle (the group's Ctrl-C reaches the worker too: ignored; the tier stops the pool), and SIGTERM (the
    tier's stop(), or a signal to the group) ends it quietly. A forked worker inherits the tier's handlers
    (framework.boundary), which raise: without this a stopped worker printed a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _workers(pool):
    """The pool's worker processes (concurrent.futures keeps them in a private mapping; none once it is shut)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def stop(pool):
    """Stop a pool now: every worker terminated (the workers ignore SIGINT; their compilers got it and die), every
    job not started cancelled, nothing more collected. The compile and lower tiers' pools on an interrupt."""
    for p in _workers(pool):
        p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def stopped_by_signal(pool):
    """Whether a worker of the pool ended by a signal that stops runs (the user's or a CI runner's), not by a crash."""
    stops = {-signal.SIGTERM, -signal.SIGINT, -signal.SIGKILL, -signal.SIGHUP}
    if any(p.exitcode in stops for p in _workers(pool)):
        return True
    # the signal that killed the worker may be on its way to this process too: its handler raises here
    time.sleep(0.2)
    return False
