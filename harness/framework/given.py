"""Paths the user gives, by an option or an environment variable: each checked here, one way, before it is used.

    given.path("--out ", value, given.NEW_FOLDER)          # -> value, or GivenPathError naming '--out VALUE'
    given.env("PTXCTS_RESCUE", given.NEW_FOLDER)            # -> the value, None when unset; blank is refused
    given.env("PTXCTS_NVIDIA_SMI", given.PROGRAM, default="nvidia-smi")

What is refused, for every kind (docs/CLI.md, "Paths and environment variables"): a blank value (set but empty is
never "the default"), a NUL character, a link that leads nowhere (to a missing target, or a loop). Then by kind:
  FILE        an existing regular file that can be read (not a folder, FIFO, device or socket)
  FOLDER      an existing folder that can be listed
  INPUT       either of the two (a run's folder, or its document)
  NEW_FILE    a file to write: where it exists, a regular file; the nearest existing folder above it a folder
  NEW_FOLDER  a folder to write into: where it exists, a folder; the nearest existing part of the path a folder
  NEW_ANY     either of the two (bundle --out: a .tar.gz, or a folder for them)
  PROGRAM     a name found on PATH, or a path to an executable regular file
  RESUME      a FOLDER that --resume finishes; missing, it says to start the run afresh with --out
The error is a VerbError of exit 2 (EXIT_USAGE: the path given cannot be used); its message starts with the option
or variable and the value as given, then says what is wrong."""
import os

from framework.boundary import EXIT_USAGE, VerbError
from ptxcts_gen.pathcheck import (FILE, FOLDER, INPUT, KINDS, NEW_ANY, NEW_FILE, NEW_FOLDER, PROGRAM,  # noqa: F401
                                  RESUME, problem)


class GivenPathError(VerbError):
    """A path given by an option or an environment variable that cannot be used: exit 2."""
    code = EXIT_USAGE


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
