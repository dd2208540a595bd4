"""Judging the chosen cases with one compiler: which cases the toolchain (or the device) can be asked about at
all, the modules they are cut into, and the pool of worker processes that judges the modules."""
import concurrent.futures as cf
import multiprocessing
import types
from collections import defaultdict

from compile import backends
from compile import classify as cls
from compile import judge
from framework import modules
from framework import manifest
from framework.pool import fit_descriptors, stop, stopped_by_signal, submit_all, worker_signals

# Cases per module. Measured here (ptxas 13.0, valid modules at sm_100a/PTX 9.0, best of 3): one entry alone costs
# ~22-25 ms (process start), 16 entries ~7-9 ms each, 32-128 entries a flat ~5-8 ms each, 192-256 entries 13-16 ms
# each (the non-linear growth). 64 sits in the flat part, and leaves many modules to spread over the cores.
DEFAULT_MODULE_SIZE = 64


# ---- worker processes --------------------------------------------------------------------------------------
_JUDGE = None


def _init(manifest_root, backend_spec, use_gen, keep):
    global _JUDGE
    worker_signals()
    m = manifest.load(manifest_root)
    asm = modules.Assembler(m, use_generator=use_gen)
    load_path, ptxas_path, nvjitlink_path, identity = backend_spec
    tc = types.SimpleNamespace(ptxas=ptxas_path, nvjitlink=nvjitlink_path)
    _JUDGE = judge.Judge(backends.make(load_path, tc), asm, keep_modules=keep, identity=identity)


def _work(arch, target, ptx, cases):
    before = _JUDGE.calls
    try:
        res = _JUDGE.chunk(arch, target, ptx, cases)
    except Exception as e:  # the harness's own failure: every case of the module says so, none is dropped
        if judge.machine_error(e):   # the machine's: no case's; the run stops (judge.MachineError)
            raise judge.machine_error(e) from None
        res = {c.id: judge.Outcome(c.id, judge.ERROR, note=f"the compile tier failed on this module: "
                                   f"{type(e).__name__}: {e}", module_cases=len(cases)) for c in cases}
    return res, _JUDGE.calls - before


# ---- support: what this toolchain / compiler cannot judge at all ---------------------------------------------
def support(tc, load_path, target, ptx, case, device_check=None):
    """(-arch, note) when the compiler can be asked about the case, else (None, the not_supported reason).
    A toolchain that refuses the `.target` line at this PTX version cannot say anything about the instruction
    under test, except for cases whose only rules concern that line (they are assembled, and a refusal of the
    line is their expected rejection)."""
    if load_path == "driver":
        why = device_check(target) if device_check else None
        return (None, f"driver JIT: {why}") if why else (target, "")
    why = tc.why_not(target, ptx)
    arch = tc.arch(target)
    if why and not (arch and tc.knows_ptx(ptx) and not case.valid and set(case.rules) <= cls.TARGET_LINE_RULES):
        return None, why
    if load_path == "nvjitlink" and not tc.nvjitlink:
        return None, f"toolchain {tc.name} has no nvJitLink library"
    note = f"assembled with -arch={arch} (toolchain {tc.name}: .target {target})" if arch != target else ""
    return arch, note


def judge_all(chosen, m, mroot, tc, load_path, use_gen, jobs_n, module_size, advance=lambda n: None, keep=None,
              device_check=None, sink=None):
    """Judge every chosen case with one compiler: (outcomes by case ID, not_supported reasons by case ID, -arch
    notes by case ID, compiler calls, modules). Cases are grouped by (target, PTX version, validity, -arch) and
    cut into modules of module_size; modules are judged in a pool of jobs_n processes. sink (a dict), when given,
    receives the three maps as they fill, so that what was judged before an interrupt is kept."""
    sink = {} if sink is None else sink
    outcomes, unsupported, arch_note = sink.setdefault("outcomes", {}), sink.setdefault("unsupported", {}), \
        sink.setdefault("arch_note", {})
    groups = defaultdict(list)
    for c in chosen:
        arch, note = support(tc, load_path, c.target, c.ptx, c, device_check)
        if arch is None:
            unsupported[c.id] = note
            continue
        if note:
            arch_note[c.id] = note
        groups[(c.target, c.ptx, c.valid, arch)].append(c)
    jobs = []
    for (t, v, valid, arch), cs in sorted(groups.items()):
        for i in range(0, len(cs), module_size):
            jobs.append((arch, t, v, cs[i:i + module_size]))
    # biggest first keeps every core busy to the end
    jobs.sort(key=lambda j: -len(j[3]))
    advance(len(unsupported))
    calls = 0
    if jobs:
        # the compiler's file as the run begins: a worker that finds it replaced stops the run (ToolchainChanged)
        compiler = {"ptxas": tc.ptxas, "nvjitlink": tc.nvjitlink}.get(load_path)
        spec = (load_path, tc.ptxas, tc.nvjitlink,
                getattr(tc, "identities", {}).get(compiler) or (judge.binary_identity(compiler) if compiler else None))
        # the driver's JIT needs a CUDA context per worker, which must not be inherited through fork. The pool is
        # not made smaller for it: the JIT compiles on the CPU, and a context takes well under 1 GB of device
        # memory, so one per usable core (usable_cpus: 16 or 32 on the H200 runners) leaves the GPU mostly free.
        ctx = multiprocessing.get_context("spawn" if load_path == "driver" else "fork")
        pool = cf.ProcessPoolExecutor(max_workers=fit_descriptors(jobs_n, "compile"), mp_context=ctx, initializer=_init,
                                      initargs=(mroot, spec, use_gen, keep))
        try:
            futs = submit_all(pool, _work, jobs)
            for fut in cf.as_completed(futs):
                try:
                    res, n = fut.result()
                except cf.process.BrokenProcessPool as e:
                    if stopped_by_signal(pool):   # a worker killed by SIGTERM/SIGINT/SIGKILL: an interrupt, no crash
                        raise KeyboardInterrupt from None
                    # a compiler that kills its worker (nvJitLink in process): the module's cases crash
                    res = {c.id: judge.Outcome(c.id, judge.CRASH, note=f"the {load_path} worker died: {e}",
                                               module_cases=len(futs[fut][3])) for c in futs[fut][3]}
                    n = 0
                except judge.Interrupted:
                    raise KeyboardInterrupt from None
                except (judge.ToolchainChanged, judge.MachineError):
                    stop(pool)
                    raise
                outcomes.update(res)
                calls += n
                advance(len(res))
        except KeyboardInterrupt:
            stop(pool)
            raise
        pool.shutdown(wait=True)
    return outcomes, unsupported, arch_note, calls, len(jobs)
