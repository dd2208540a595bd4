"""What is wrong with a path the user gives, by kind: the checks every verb makes of a path option or variable,
stated once. The argument parser (arguments.ArgumentParser, `path=KIND`) and the harness's framework.given (the
environment variables) both ask here. The kinds and the refusals: framework/given.py's docstring (harness/) and
docs/CLI.md, "Paths and environment variables"."""
import os
import shutil
import stat

FILE, FOLDER, INPUT, NEW_FILE, NEW_FOLDER, NEW_ANY, PROGRAM = ("file", "folder", "file or folder", "new file",
                                                              "new folder", "new file or folder", "program")
RESUME = "interrupted run's folder"
KINDS = (FILE, FOLDER, INPUT, NEW_FILE, NEW_FOLDER, NEW_ANY, PROGRAM, RESUME)

# RESUME, missing: a run stopped before it judged anything writes no folder, so the way on is a fresh start
# (ptxcts/given.hpp says the same for the C++ verbs)
NO_RUN_THERE = ("no such folder: no run was started there, or one stopped before it judged anything (it writes "
                "nothing until then); start the run afresh: the same command with --out in place of --resume")


def _what_is(mode):
    """'a folder', 'a FIFO', ... for a file that is not what was asked for."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a file")):
        if test(mode):
            return name
    return "not a file"


def _nearest_existing(p):
    """The longest leading part of p that exists (following links), and whether it is a folder."""
    existing = os.path.abspath(p)
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    return existing, os.path.isdir(existing)


def gone_cwd():
    """None while the working folder exists; else why a relative path means nothing there: the folder was removed
    under the command (ptxcts/given.hpp's gone_cwd says the same for the C++ commands)."""
    try:
        os.getcwd()
        return None
    except FileNotFoundError:
        try:   # Linux names it still, with " (deleted)"; a shell's PWD may be gone (dash drops a stale one)
            pwd = os.readlink("/proc/self/cwd").removesuffix(" (deleted)")
        except OSError:
            pwd = os.environ.get("PWD")
        return (f"the working folder{' ' + pwd if pwd else ''} no longer exists (removed under this command): a "
                "relative path names nothing; run it from a folder that exists, or give an absolute path")


def problem(value, kind):
    """What is wrong with value as a path of this kind, or None (the checks of the module's docstring)."""
    if kind not in KINDS:
        raise ValueError(f"given.problem: kind {kind!r}")
    if not value.strip():
        return "an empty name"
    if "\0" in value:
        return "the name holds a NUL character"
    if not os.path.isabs(value) and (gone := gone_cwd()):
        return gone
    if kind == PROGRAM and os.sep not in value:
        return None if shutil.which(value) else "not found on PATH"
    if os.path.islink(value) and not os.path.exists(value):
        try:
            target = os.readlink(value)
        except OSError:
            target = "?"
        return f"a link that leads nowhere (-> {target!r}: missing, or a loop)"
    try:
        st = os.stat(value)
    except FileNotFoundError:
        if kind in (FILE, PROGRAM):
            return "no such file"
        if kind == INPUT:
            return "no such file or folder"
        if kind == FOLDER:
            return "no such folder"
        if kind == RESUME:
            return NO_RUN_THERE
        existing, is_dir = _nearest_existing(value)
        return None if is_dir else f"{existing} is not a folder, so nothing can be written under it"
    except NotADirectoryError:
        existing, _ = _nearest_existing(value)
        return f"{existing} is a file, not a folder, so nothing can be under it"
    except OSError as e:
        return e.strerror or str(e)
    is_dir = stat.S_ISDIR(st.st_mode)
    if kind in (INPUT, NEW_ANY) and is_dir:
        return None if os.access(value, os.R_OK | os.X_OK) else "a folder that cannot be read (permission denied)"
    if kind in (FOLDER, NEW_FOLDER, RESUME):
        if not is_dir:
            return f"is {_what_is(st.st_mode)}, not a folder"
        if kind in (FOLDER, RESUME) and not os.access(value, os.R_OK | os.X_OK):
            return "a folder that cannot be read (permission denied)"
        return None
    if not stat.S_ISREG(st.st_mode):
        return f"is {_what_is(st.st_mode)}, not a file"
    if kind in (FILE, INPUT) and not os.access(value, os.R_OK):
        return "a file that cannot be read (permission denied)"
    if kind == PROGRAM and not os.access(value, os.X_OK):
        return "not executable"
    return None
