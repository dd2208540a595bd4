"""The command line of an installer of toolchain parts (`./ptxcts toolchains install`, `./ptxcts frontend install`):
its parser and its install verb, shared by both."""
import os

from .errors import ToolchainError

from framework import given


def installer_parser(prog, description, verbs, list_help, install_help, every, parser=None):
    """The parser (of class parser) of a command of installable things (toolchains, front-ends), its sub-parsers
    and its `install` sub-parser, with the verbs `list` and `install` (names, --all, --wheels DIR, --force: read by
    install_named) added. The class: the verbs' shared parser (framework.boundary) unless another is given."""
    if parser is None:
        from framework.boundary import ArgumentParser as parser
    p = parser(prog=prog, description=description)
    sub = p.add_subparsers(dest="cmd", required=True, metavar="{" + ",".join(verbs) + "}")
    sub.add_parser("list", help=list_help)
    s = sub.add_parser("install", help=install_help)
    s.add_argument("names", nargs="*", metavar="NAME")
    s.add_argument("--all", action="store_true", help=every)
    s.add_argument("--wheels", path=given.FOLDER, metavar="DIR", help="take the wheels from this folder (no network needed)")
    s.add_argument("--force", action="store_true", help="install again even when installed")
    return p, sub, s



def install_named(a, install, known_names, error=ToolchainError, verb="toolchains", noun="toolchain"):
    """An install verb (`./ptxcts toolchains install`, `./ptxcts frontend install`): install(name, wheels_dir,
    force) for each of a.names (every known_names() with a.all); error (exit 2) for a --wheels that is not a
    folder or no name at all."""
    if a.wheels and not os.path.isdir(a.wheels):
        raise error(f"--wheels {a.wheels}: no such folder (the folder of downloaded wheels)")
    names = known_names() if a.all else a.names
    if not names:
        raise error(f"{verb} install: name at least one {noun}, or --all")
    for n in names:
        install(n, wheels_dir=a.wheels, force=a.force)
    return 0
