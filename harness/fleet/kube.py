"""The Kubernetes recipe: `./ptxcts fleet submit --kube FILE PLAN` writes one manifest (JSON, which kubectl reads as
it reads YAML) for `kubectl apply -f FILE`, from the same plan as the Slurm recipe:

* one Indexed Job per group (`completionMode: Indexed`, `completions` = the group's tasks): each pod runs
  `ptxcts fleet task RESULTS --group G`, which reads its index from JOB_COMPLETION_INDEX (the --shard i/n of
  the run tier); a GPU group asks `resources.limits` for one GPU (`gpu_resource`, default nvidia.com/gpu) on the
  nodes labelled `node_label=<the device's constraint>` (default label ptxcts.dev/device);
  `restartPolicy: OnFailure` with a backoff limit per index: a pod restarted after a preemption or a node drain
  resumes its shard as a requeued Slurm task does;
* one collector Job on the CPU nodes running `ptxcts fleet collect RESULTS --wait S` (Kubernetes has no
  afterany: it polls the results tree until no task is running or missing, at most S seconds).

Every pod mounts the results tree (`results_claim`, a ReadWriteMany PersistentVolumeClaim) at the plan's results
path, and runs the checkout at `checkout` inside `image`. fleet.json is written into the results folder here,
which must be the same shared folder.
"""
import json
import os
import re

from fleet.errors import FleetError

DEFAULTS = {"namespace": "default", "results_claim": "ptxcts-results", "node_label": "ptxcts.dev/device",
            "gpu_resource": "nvidia.com/gpu"}
COLLECT_WAIT_S = 7 * 86400
RETRIES_PER_TASK = 3


def dns_name(*parts):
    name = re.sub(r"[^a-z0-9-]+", "-", "-".join(parts).lower()).strip("-")
    return name[:63].rstrip("-") or "ptxcts"


def manifest(record):
    plan = record["plan"]
    k = DEFAULTS | plan.get("kubernetes", {})
    if not k.get("image"):
        raise FleetError(f"{record['plan_file']}: kubernetes.image: missing (the container image that holds the "
                         "ptx-cts checkout and its build)")
    root = k.get("checkout", record["root"])
    results = record["results"]
    entry = os.path.join(root, "ptxcts")
    labels = {"ptxcts.dev/plan": dns_name(plan["name"])}
    items = []

    def pod(command, gpu, where):
        container = {"name": "ptxcts", "image": k["image"], "workingDir": root, "command": command,
                     "volumeMounts": [{"name": "results", "mountPath": results}]}
        if gpu:
            container["resources"] = {"limits": {k["gpu_resource"]: 1}}
        spec = {"restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 60, "containers": [container],
                "volumes": [{"name": "results", "persistentVolumeClaim": {"claimName": k["results_claim"]}}]}
        selector = {}
        if where.get("constraint"):
            selector[k["node_label"]] = where["constraint"]
        if where.get("partition"):
            selector["ptxcts.dev/pool"] = where["partition"]
        if selector:
            spec["nodeSelector"] = selector
        return spec

    for g in record["groups"]:
        where = plan.get("devices", {}).get(g["device"], {}) if g["gpu"] else plan.get("cpu", {})
        items.append({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": dns_name(plan["name"], g["id"]), "namespace": k["namespace"],
                         "labels": labels | {"ptxcts.dev/group": dns_name(g["id"])}},
            "spec": {"completionMode": "Indexed", "completions": g["shards"], "parallelism": g["shards"],
                     "backoffLimit": RETRIES_PER_TASK * g["shards"],
                     "template": {"metadata": {"labels": labels},
                                  "spec": pod([entry, "fleet", "task", results, "--group", g["id"]], g["gpu"],
                                              where)}}})
    items.append({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": dns_name(plan["name"], "collect"), "namespace": k["namespace"], "labels": labels},
        "spec": {"backoffLimit": 2, "template": {"metadata": {"labels": labels}, "spec": pod(
            [entry, "fleet", "collect", results, "--wait", str(COLLECT_WAIT_S)], False, plan.get("cpu", {}))}}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def write(record, path):
    doc = manifest(record)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FleetError(f"--kube {path}: {folder} is not a folder")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return doc
