"""`./ptxcts fleet`: the suite's tiers on a fleet of GPU hosts through the fleet's scheduler (fleet/README.md).

    ./ptxcts fleet submit --slurm PLAN [--results DIR] [--assume-shared] [--dry-run]
    ./ptxcts fleet submit --kube FILE PLAN [--results DIR]      # a Kubernetes manifest, for kubectl apply -f
    ./ptxcts fleet status RESULTS [--job ID]
    ./ptxcts fleet requeue RESULTS [--job ID]
    ./ptxcts fleet task RESULTS --group G [--index I]           # what a job runs (Slurm array task, pod)
    ./ptxcts fleet collect RESULTS [--wait S]                   # what the collector job runs
"""
import os
import sys

from framework import given
from framework import paths
from framework import boundary
from fleet import collect, runner, status, submit
from fleet import plan as planmod
from fleet import record as rec
from fleet.errors import FleetError, MalformedFile


def _root():
    return paths.root()


def _positive(text):
    try:
        v = float(text)
    except ValueError:
        raise boundary.argparse.ArgumentTypeError(f"{text!r}: expected seconds") from None
    if not 0 < v <= 30 * 86400:
        raise boundary.argparse.ArgumentTypeError(f"{text!r}: expected seconds, 0 < S <= 2592000")
    return v


def _index(text):
    if not text.isdigit() or int(text) > 100000:
        raise boundary.argparse.ArgumentTypeError(f"{text!r}: expected a task index 0..100000")
    return int(text)


def parser():
    p = boundary.ArgumentParser(prog="./ptxcts fleet", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=boundary.ArgumentParser)
    s = sub.add_parser("submit", help="turn a plan into scheduler jobs and print their IDs")
    how = s.add_mutually_exclusive_group(required=True)
    how.add_argument("--slurm", action="store_true", help="submit to Slurm (sbatch): arrays and a collector")
    how.add_argument("--kube", path=given.NEW_FILE, metavar="FILE", help="write a Kubernetes manifest (Indexed Jobs) to FILE")
    s.add_argument("plan", path=given.FILE, metavar="PLAN", help="the plan (TOML; fleet/README.md)")
    s.add_argument("--results", path=given.NEW_FOLDER, metavar="DIR", help="the shared results folder (default: the plan's `results`)")
    s.add_argument("--assume-shared", action="store_true",
                   help="the results folder is shared by every node although its filesystem is not one this "
                        "check knows")
    s.add_argument("--dry-run", action="store_true", help="print the sbatch commands; submit nothing")
    st = sub.add_parser("status", help="the plan's tasks: Slurm's state, the shard's state, cases done")
    st.add_argument("results", path=given.FOLDER, metavar="RESULTS")
    st.add_argument("--job", metavar="ID", help="only this job or array task (123 or 123_4) of the plan")
    rq = sub.add_parser("requeue", help="requeue the tasks whose shard is not finished; they resume")
    rq.add_argument("results", path=given.FOLDER, metavar="RESULTS")
    rq.add_argument("--job", metavar="ID", help="only this job or array task (123 or 123_4) of the plan")
    t = sub.add_parser("task", help="run one task of the plan (what a scheduled job runs)")
    t.add_argument("results", path=given.FOLDER, metavar="RESULTS")
    t.add_argument("--group", required=True, help="the task's group, e.g. run.13.0.h100")
    t.add_argument("--index", type=_index, help="the task's index (default SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX)")
    c = sub.add_parser("collect", help="merge, report and gate what the tasks wrote (the collector job)")
    c.add_argument("results", path=given.FOLDER, metavar="RESULTS")
    c.add_argument("--wait", type=_positive, metavar="S",
                   help="first wait up to S seconds for every task to end (a scheduler without dependencies)")
    return p


def _submit(a):
    root = _root()
    if a.slurm:
        return submit.submit_slurm(a.plan, root, a.results, a.assume_shared, a.dry_run)
    from fleet import kube
    if a.dry_run or a.assume_shared:
        raise FleetError("--dry-run and --assume-shared are for --slurm (--kube only writes a manifest)")
    p = planmod.load(a.plan, root)
    if a.results:
        p.results = os.path.abspath(a.results)
    submit.check_results_folder(p.results)
    record = submit.new_record(p, root, "kubernetes")
    kube.manifest(record)   # a plan without an image is refused before anything is written
    os.makedirs(p.results, exist_ok=True)
    rec.save(record)
    doc = kube.write(record, a.kube)
    print(f"fleet: {p.name}: {len(doc['items']) - 1} Indexed Job(s) and a collector written to {a.kube}; "
          f"results in {p.results}")
    print(f"apply: kubectl apply -f {a.kube}")
    print(f"follow: ./ptxcts fleet status {p.results}")
    return 0


def main(argv):
    a = parser().parse_args(argv)
    call = {"submit": lambda: _submit(a),
            "status": lambda: status.main_status(a),
            "requeue": lambda: submit.requeue(os.path.abspath(a.results), a.job),
            "task": lambda: runner.main_task(a),
            "collect": lambda: collect.main_collect(a)}[a.cmd]
    return boundary.reported("fleet", call, [(FleetError, "", None), (MalformedFile, "", None)])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
