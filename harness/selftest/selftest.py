"""./ptxcts selftest: the run tier against planted faults of the instruction under test.

For each fault kind of generator/ptxcts_gen/faults.py: plant it into every valid form it applies to (one module
set per kind: kernels are independent entries), drop the plants ptxas refuses (they would be a compile error, not
a fault the suite must catch), run the run tier on the GPU with the planted modules (PTXCTS_PLANT_FAULT reaches
`./ptxcts modules`, which the run tier calls), and compare every case with a clean run of the same seed. A fault is
caught at form level when at least one case of the form changes class; a fault that survives is equivalent when
the chapter says the difference cannot be observed (faults.KINDS[k].equivalent), else a hole of the suite. Each
kind runs in stages (selftest/runs.py staged): a form's next case runs only while no earlier one caught the fault;
a crash or watchdog timeout seen beside other workers counts only once the case, run again alone, shows it too
(a form never confirmed is "not judged", counted under no_case).

Host kinds (faults.HOST_KINDS, family "tensor"): nothing is planted into the kernels; the run tier's worker perturbs
one field of each tensor map it encodes (PTXCTS_PLANT_HOST_FAULT, harness/runcore/src/testbeds/host_faults.cpp) and says per
case what it changed. A form is planted when one of its cases ran with a perturbed map the driver encoded; a case
without a legal perturbation, or whose perturbed map the driver refused, counts as refused. A surviving form is
equivalent when the worker found the model's expectation unchanged for every perturbed case (or the form is a
prefetch), else a hole.

    ./ptxcts selftest [--kind K]... [--family F]... [--seed N] [--out DIR] [--clean DIR]
    ./ptxcts selftest --tier lower [--kind K]... [--family F]... [--target T]... [--out DIR]   (no GPU)
    ./ptxcts selftest --repeat N [--kind K]... [--family F]... [--out DIR]   (silicon's catch rate per kind)

--tier lower (selftest/lower_catch.py): the same plants, assembled and disassembled, judged by the lowering rules
of the original form: the catch that does not depend on timing. --repeat N (selftest/rates.py): the kinds
(default the completion kinds on the completion families) N times against one clean run, caught per repetition.

Writes DIR/selftest.json (per kind and family: planted, refused by ptxas, caught, equivalent, holes, and every
survivor with its planted line) and prints the table; exit 0 when every non-equivalent fault was caught, 1 when a
hole is left, 2 on a usage error (its own, or the run tier's with its message; 3 a malformed file the run tier
read), 77 without a usable GPU (skipped, saying why), 130 when interrupted (what was measured is written).
"""
import os
import sys

# The code is this checkout's, as ./ptxcts puts its own checkout on the path; the tree the verbs read is
# framework.paths.root() ($PTXCTS_ROOT, checked there).
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(CHECKOUT, "generator"), os.path.join(CHECKOUT, "harness")]

from framework import boundary  # noqa: E402


def main(argv):
    """The tier the options name: the lowering tier's catch (--tier lower), silicon's rates (--repeat N), else
    the run tier's catch."""
    # imported here, inside the error boundary: they read framework.paths.root() as they load
    from selftest import lower_catch, options, rates, run_catch, runs
    a = options.parse(argv)
    if a.tier == "lower":
        return lower_catch.main(a)
    try:
        return rates.main(a) if a.repeat is not None else run_catch.main(a)
    except runs.NoGpu as e:   # never a pass without a GPU: skipped, with the run tier's reason (docs/CLI.md)
        sys.stderr.write(f"selftest: skipped, no GPU here: {e}: nothing measured, exit {runs.SKIPPED} (the self-test "
                         f"plants faults in the run tier on a GPU; --tier lower needs none)\n")
        return runs.SKIPPED


if __name__ == "__main__":
    sys.exit(boundary.run("selftest", main, sys.argv[1:]))
