"""A private single-node Slurm cluster for the fleet tests: munged, slurmctld and slurmd started by hand (no
systemd) in a scratch folder, on ports of their own, with fake GPUs as GRES (symlinks to /dev/null).

    python3 -m fleet.tests.slurm_cluster start DIR     # exit 0: running, DIR/env holds SLURM_CONF; 77: cannot
    python3 -m fleet.tests.slurm_cluster stop DIR      #   start here (not root, Slurm not installed): a skip
    python3 -m fleet.tests.slurm_cluster start DIR --gres '/dev/nvidia[0-1]'   # the host's real GPUs instead

PTXCTS_FLEET_SLURM=required (set by .ci/run) turns "cannot start here" into a failure (exit 1): CI must run the
Slurm tests, never skip them. The facts this stands on (settings that work without systemd, the 3 s scheduler
beat, GRES files) are in the shared FACTS.md, "Slurm".

The node offers two features, `fake-a` and `fake-b` (the two fake devices of the test plans: Slurm constraints),
two GRES GPUs and two partitions over the one node: `gpu` (the default) and `cpu`.
"""
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import time

DAEMONS = ("munged", "slurmctld", "slurmd")
NODE = "fleet0"
FEATURES = ("fake-a", "fake-b")
GPUS = 2
SKIP = 77


class CannotStart(Exception):
    """This machine cannot run the cluster (a skip, unless PTXCTS_FLEET_SLURM=required)."""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _which(name):
    for d in ("/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def _conf(d, ports, cpus, gpus):
    return f"""ClusterName=ptxcts-fleet-test
SlurmctldHost={socket.gethostname()}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SchedulerType=sched/backfill
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ReturnToService=2
KillWait=5
MinJobAge=300
MailProg=/bin/true
NodeName={NODE} NodeHostname={socket.gethostname()} NodeAddr=127.0.0.1 CPUs={cpus} Gres=gpu:{gpus} Features={','.join(FEATURES)} State=UNKNOWN
PartitionName=gpu Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
PartitionName=cpu Nodes={NODE} MaxTime=INFINITE State=UP
"""


def _env(d):
    return dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"))


def start(d, gres=None, gpus=GPUS):
    """gres: the GPU device files (a Slurm host list pattern, e.g. /dev/nvidia[0-1]) and gpus their number;
    default: `GPUS` fake ones, symlinks to /dev/null."""
    if os.geteuid() != 0:
        raise CannotStart("the daemons run as root (SlurmUser=root) and this is not root")
    missing = [n for n in DAEMONS + ("sbatch", "squeue", "scontrol") if not _which(n)]
    if missing:
        raise CannotStart(f"not installed: {', '.join(missing)} (Debian 12: apt-get install slurmctld slurmd "
                          "slurm-client munge)")
    try:
        munge_user = pwd.getpwnam("munge")
    except KeyError:
        raise CannotStart("no user 'munge' (the munge package makes it)") from None
    if not os.path.exists("/etc/munge/munge.key"):
        raise CannotStart("no /etc/munge/munge.key (the munge package makes it)")
    d = os.path.abspath(d)
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)   # munged (its own user) reaches its folder below; jobs read the configuration
    for sub in ("state", "spool", "gres"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    # munged insists on its own folders: owned by its user, not writable by others
    mdir = os.path.join(d, "munge")
    os.makedirs(mdir, exist_ok=True)
    os.chmod(mdir, 0o755)
    os.chown(mdir, munge_user.pw_uid, munge_user.pw_gid)
    for i in range(GPUS):
        link = os.path.join(d, "gres", f"gpu{i}")
        if not os.path.lexists(link):
            os.symlink("/dev/null", link)
    ports = (_free_port(), _free_port())
    cpus = len(os.sched_getaffinity(0))
    with open(os.path.join(d, "slurm.conf"), "w") as f:
        f.write(_conf(d, ports, cpus, gpus))
    with open(os.path.join(d, "gres.conf"), "w") as f:
        f.write(f"Name=gpu File={gres or f'{d}/gres/gpu[0-{GPUS - 1}]'}\n")
    with open(os.path.join(d, "cgroup.conf"), "w") as f:
        f.write("IgnoreSystemd=yes\n")
    t0 = time.monotonic()
    _start_daemon(d, [_which("runuser"), "-u", "munge", "--", _which("munged"), f"--socket={mdir}/munge.socket",
                      f"--pid-file={mdir}/munged.pid", f"--log-file={mdir}/munged.log",
                      f"--seed-file={mdir}/munged.seed", "--force"], "munged")
    _wait(lambda: os.path.exists(f"{mdir}/munged.pid") and os.path.exists(f"{mdir}/munge.socket"), 10, "munged", d)
    env = _env(d)
    conf = env["SLURM_CONF"]
    _start_daemon(d, [_which("slurmctld"), "-f", conf], "slurmctld", env)
    _start_daemon(d, [_which("slurmd"), "-N", NODE, "-f", conf], "slurmd", env)
    _wait(lambda: _node_idle(env), 30, "the node to be idle", d)
    with open(os.path.join(d, "env"), "w") as f:
        json.dump({"SLURM_CONF": conf}, f)
    print(f"slurm cluster: up in {time.monotonic() - t0:.1f} s ({d}; SLURM_CONF={conf}; node {NODE} with "
          f"{cpus} CPUs, {gpus} {'fake ' if not gres else ''}GPUs, features {','.join(FEATURES)})")


def _start_daemon(d, argv, name, env=None):
    with open(os.path.join(d, f"{name}.out"), "ab") as out:
        r = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError(f"{name} did not start (exit {r.returncode}); see {d}/{name}.out")


def _node_idle(env):
    r = subprocess.run([_which("sinfo"), "-h", "-N", "-o", "%T"], env=env, capture_output=True, text=True)
    states = {line.strip().rstrip("*") for line in r.stdout.split()}   # one line per partition
    return r.returncode == 0 and states == {"idle"}


def _wait(cond, limit_s, what, d):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise RuntimeError(f"waited {limit_s} s for {what}; logs in {d}")


def _pid(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop(d):
    d = os.path.abspath(d)
    env = _env(d)
    if _pid(os.path.join(d, "slurmctld.pid")) and _which("scancel"):
        subprocess.run([_which("scancel"), "--user=root"], env=env, capture_output=True, timeout=20)
    for pidfile in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
        pid = _pid(os.path.join(d, pidfile))
        if pid is None:
            continue
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
    try:
        os.remove(os.path.join(d, "env"))
    except FileNotFoundError:
        pass
    print(f"slurm cluster: stopped ({d})")


def main(argv):
    gres = None
    if len(argv) == 4 and argv[0] == "start" and argv[2] == "--gres":
        gres, argv = argv[3], argv[:2]
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        sys.stderr.write("usage: python3 -m fleet.tests.slurm_cluster start|stop DIR [--gres FILES]\n")
        return 2
    if argv[0] == "stop":
        stop(argv[1])
        return 0
    try:
        if gres:
            m = re.fullmatch(r"(.*)\[(\d+)-(\d+)\]", gres)
            start(argv[1], gres, int(m.group(3)) - int(m.group(2)) + 1 if m else 1)
        else:
            start(argv[1])
    except CannotStart as e:
        required = os.environ.get("PTXCTS_FLEET_SLURM") == "required"
        sys.stderr.write(f"slurm cluster: cannot start here: {e}"
                         f"{' (PTXCTS_FLEET_SLURM=required: a failure)' if required else ' (the Slurm tests skip)'}\n")
        return 1 if required else SKIP
    except RuntimeError as e:
        sys.stderr.write(f"slurm cluster: {e}\n")
        stop(argv[1])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
