"""Paths the user gives, by an option or an environment variable: each checked here, one way, before it is used.

    given.path("--out ", value, given.NEW_FOLDER)          # -> value, or GivenPathError naming '--out VALUE'
    given.env("PTXCTS_RESCUE", given.NEW_FOLDER)            # -> the value, None when unset; blank is refused
    given.env("PTXCTS_NVIDIA_SMI", given.PROGRAM, default="nvidia-smi")

What is refused, for every kind (docs/CLI.md, "Paths and environment variables"): a blank value (set but empty is
never "the default"), a NUL character, a link that leads nowhere (to a missing target, or a loop). Then by kind:
  FILE        an existing regular file that can be read (not a folder, FIFO, device or socket)
  FOLDER      an existing folder that can be listed
  NEW_FILE    a file to write: where it exists, a regular file; the nearest existing folder above it a folder
  NEW_FOLDER  a folder to write into: where it exists, a folder; the nearest existing part of the path a folder
  PROGRAM     a name found on PATH, or a path to an executable regular file
The error is a VerbError of exit 2 (EXIT_USAGE: the path given cannot be used); its message starts with the option
or variable and the value as given, then says what is wrong."""
import os
import shutil
import stat

from framework.boundary import EXIT_USAGE, VerbError

FILE, FOLDER, NEW_FILE, NEW_FOLDER, PROGRAM = "file", "folder", "new file", "new folder", "program"
KINDS = (FILE, FOLDER, NEW_FILE, NEW_FOLDER, PROGRAM)


class GivenPathError(VerbError):
    """A path given by an option or an environment variable that cannot be used: exit 2."""
    code = EXIT_USAGE


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


def problem(value, kind):
    """What is wrong with value as a path of this kind, or None (the checks of the module's docstring)."""
    if kind not in KINDS:
        raise ValueError(f"given.problem: kind {kind!r}")
    if not value.strip():
        return "an empty name"
    if "\0" in value:
        return "the name holds a NUL character"
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
        if kind == FOLDER:
            return "no such folder"
        existing, is_dir = _nearest_existing(value)
        return None if is_dir else f"{existing} is not a folder, so nothing can be written under it"
    except NotADirectoryError:
        existing, _ = _nearest_existing(value)
        return f"{existing} is a file, not a folder, so {'it' if kind in (FOLDER, NEW_FOLDER) else 'this'} " \
               "cannot be under it"
    except OSError as e:
        return e.strerror or str(e)
    is_dir = stat.S_ISDIR(st.st_mode)
    if kind in (FOLDER, NEW_FOLDER):
        if not is_dir:
            return f"is {_what_is(st.st_mode)}, not a folder"
        if kind == FOLDER and not os.access(value, os.R_OK | os.X_OK):
            return "a folder that cannot be read (permission denied)"
        return None
    if not stat.S_ISREG(st.st_mode):
        return f"is {_what_is(st.st_mode)}, not a file"
    if kind == FILE and not os.access(value, os.R_OK):
        return "a file that cannot be read (permission denied)"
    if kind == PROGRAM and not os.access(value, os.X_OK):
        return "not executable"
    return None


def path(how, value, kind, what=""):
    """value, checked as a path of this kind; GivenPathError '<how><value>: <what is wrong>[ (<what>)]' where it
    cannot be used. how: the option or variable as the user wrote it: '--out ' or 'PTXCTS_RESCUE='."""
    wrong = problem(value, kind)
    if wrong:
        raise GivenPathError(f"{how}{value}: {wrong}" + (f" ({what})" if what else ""))
    return value


def env(var, kind, what="", default=None):
    """$var checked as a path of this kind; default when it is unset. Set but blank is refused naming var (unset
    it for the default), as is a value that path() refuses."""
    value = os.environ.get(var)
    if value is None:
        return default
    if not value.strip():
        raise GivenPathError(f"{var}={value!r} is set but empty; unset it"
                             + (f" for the default ({default})" if default else "") + ", or name a " +
                             ("program" if kind == PROGRAM else "folder" if kind in (FOLDER, NEW_FOLDER) else "file"))
    return path(f"{var}=", value, kind, what)
