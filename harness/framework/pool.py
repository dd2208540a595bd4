"""The worker pool every CPU tier runs its compiler calls in (compile, lower, frontend): how many workers the
machine gives, and how a pool is stopped on an interrupt."""
import os
import signal
import sys
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


# What a worker pool costs in file descriptors (measured, CPython 3.11, a fork pool): its parent holds 2 more per
# worker (the worker's sentinel and pipe end), and each forked worker starts with the parent's and needs about a
# dozen of its own for a compiler call (the pipes of subprocess.run, the module's temporary files).
DESCRIPTORS_PER_WORKER = 2
DESCRIPTORS_RESERVED = 16


def fit_descriptors(workers, what):
    """How many of `workers` a pool can start under this process's descriptor limit (ulimit -n): all of them
    unless the limit is too low, then as many as leave room for each worker's own calls, at least 1 (with fewer
    descriptors than a worker needs, its calls fail and the tier says so: too many open files). A pool started
    past the limit hung (concurrent.futures, its parent unable to open a worker's pipe). Says so on standard
    error when it lowers the count: `what` names the tier."""
    import resource
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        open_now = len(os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        return workers
    if soft == resource.RLIM_INFINITY:
        return workers
    room = max(1, (soft - open_now - DESCRIPTORS_RESERVED) // DESCRIPTORS_PER_WORKER)
    if room >= workers:
        return workers
    sys.stderr.write(f"{what}: the descriptor limit (ulimit -n {soft}, {open_now} open) leaves room for {room} of "
                     f"{workers} workers\n")
    return room


_STOPS = {signal.SIGINT, signal.SIGTERM}
JOIN_S = 10.0   # how long stop() waits for the pool's own thread to wind down


def worker_signals():
    """A pool worker's signal actions, set first thing in the worker (its pool's initializer): an interrupt is the
    tier's to handle (the group's Ctrl-C reaches the worker too: ignored; the tier stops the pool), and SIGTERM (the
    tier's stop(), or a signal to the group) ends it quietly. A forked worker inherits the tier's handlers
    (framework.boundary), which raise: without this a stopped worker printed a traceback. The worker was started
    with both signals held (submit_all): what came meanwhile is let through now, to these actions."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def submit_all(pool, fn, jobs):
    """{future: job} for fn(*job) of every job. The pool starts its workers (forked or spawned) during these
    submits: SIGINT and SIGTERM are held meanwhile, so a worker starts with them held -- not with the tier's
    raising handlers (fork) or Python's KeyboardInterrupt (spawn) -- until worker_signals sets its own actions. The
    pool's own threads, started here too, keep them held: a signal always reaches the tier's main thread. A signal
    to the tier meanwhile is raised in it at the end of this call (the caller's handler stops the pool)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        return {pool.submit(fn, *job): job for job in jobs}
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _workers(pool):
    """The pool's worker processes (concurrent.futures keeps them in a private mapping; none once it is shut)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def stop(pool):
    """Stop a pool now: every worker terminated (the workers ignore SIGINT; their compilers got it and die), every
    job not started cancelled, nothing more collected. The compile and lower tiers' pools on an interrupt. The pool's
    own thread is given JOIN_S to wind down (it reaps the workers and closes the pool's pipes): left running, it
    raced the interpreter's exit, which wakes it through a pipe it may be closing."""
    manager = getattr(pool, "_executor_manager_thread", None)   # concurrent.futures' private name; None once shut
    for p in _workers(pool):
        p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(JOIN_S)


def stopped_by_signal(pool):
    """Whether a worker of the pool ended by a signal that stops runs (the user's or a CI runner's), not by a crash."""
    stops = {-signal.SIGTERM, -signal.SIGINT, -signal.SIGKILL, -signal.SIGHUP}
    if any(p.exitcode in stops for p in _workers(pool)):
        return True
    # the signal that killed the worker may be on its way to this process too: its handler raises here
    time.sleep(0.2)
    return False


_FORK_TASK = None   # (fn, items) of the fork_map running now: inherited by its forked workers, never pickled


def _fork_call(i):
    fn, items = _FORK_TASK
    return fn(items[i])


def fork_map(fn, items, workers=None):
    """[fn(item) for item in items], computed in forked worker processes (at most `workers`, default the usable
    cores): fn and the items are inherited by the fork, only the results travel back (pickled). For the CPU-bound
    steps of a verb that are independent of one another (the documents a report reads, its pages). One item, or
    one worker, runs here. An exception of fn is raised here; a signal stops the workers (stop) and is raised
    here as the verb's own (framework.boundary)."""
    global _FORK_TASK
    import concurrent.futures as cf
    import multiprocessing
    items = list(items)
    workers = fit_descriptors(min(len(items), workers or usable_cpus()), "workers")
    if workers < 2:
        return [fn(x) for x in items]
    _FORK_TASK = (fn, items)
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                  initializer=worker_signals)
    try:
        futures = submit_all(pool, _fork_call, [(i,) for i in range(len(items))])
        out = [None] * len(items)
        for fut, (i,) in futures.items():
            out[i] = fut.result()
        pool.shutdown()
        return out
    except BaseException:
        stop(pool)
        raise
    finally:
        _FORK_TASK = None
