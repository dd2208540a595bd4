"""The processes a signal test must find gone: every live process of one session (the verb under test is started
as a session leader, so its session is the wrapper, the tier and everything they started)."""
import subprocess


def session(sid):
    """(pid, command) of every live process of session `sid` (zombies, already ended, are left out)."""
    out = subprocess.run(["ps", "-eo", "pid=,sid=,stat=,args="], capture_output=True, text=True).stdout
    procs = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) >= 3 and parts[1] == str(sid) and not parts[2].startswith("Z"):
            procs.append((int(parts[0]), parts[3] if len(parts) > 3 else ""))
    return procs
