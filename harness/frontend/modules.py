"""`./ptxcts modules --frontend NAME ...`: the run tier's modules written whole by a compiler front-end.

./ptxcts hands `modules` with --frontend here (python3 -m frontend.modules), and every other `modules` to the
generator. The options are the generator's `modules` options, parsed and checked by the generator's own parser
and selection (ptxcts_gen.cli.parse, module_selection), so that both write the same folder format for the same
selection and refuse the same options alike; the kernels are written by silicon.write_modules (LLVM: whole
kernels), or framed.splice.write_modules (Triton, the CuTe DSL: their instruction under test in the run tier's
frame)."""
import sys

from ptxcts_gen import cli as gen_cli
from ptxcts_gen.frontends import MappingError
from ptxcts_gen.render import ROOT

from framework import boundary

from . import FrontendError, resolve, silicon
from .framed import splice


def _refused(msg):
    """An option refused, in the words and with the status of the generator's `modules` (ptxcts_gen.cli)."""
    sys.stderr.write(f"ptxcts_gen: {msg}\n")
    return 2


def main(argv=None):
    args = gen_cli.parse(["modules"] + (sys.argv[1:] if argv is None else list(argv)))
    chosen = gen_cli.module_selection(args)
    if isinstance(chosen, int):
        return chosen
    t, forms, info = chosen
    fault, _, _ = gen_cli.planted_fault()
    if isinstance(fault, int):
        return fault
    if args.jobs < 0:
        return _refused(f"--jobs {args.jobs}: must be 0 (one per cpu) or more")
    if fault:
        return _refused("PTXCTS_PLANT_FAULT: the self-test's faults are planted in hand-written modules only, "
                        f"not with --frontend {args.frontend}")
    try:
        fe = resolve(args.frontend)
        # Triton and the CuTe DSL write kernels that cannot take the run ABI: their instruction in the frame
        writer = splice.write_modules if fe.kind in splice.KINDS else silicon.write_modules
        return writer(args, forms, info, t.name, args.out, gen_cli.write_file, ROOT,
                      make_out=lambda: gen_cli.make_out(args.out), fe=fe)
    except FrontendError as e:
        sys.stderr.write(f"ptxcts_gen modules: {e}\n")
        return e.code
    except MappingError as e:
        sys.stderr.write(f"ptxcts_gen modules: {e}\n")
        return 3


if __name__ == "__main__":   # its errors named as the generator's `modules` names them: one verb, one name
    sys.exit(boundary.run("ptxcts_gen", main))
