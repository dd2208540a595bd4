"""The argument parser of every verb, the generator's and the harness's tiers' (framework.boundary hands it on):
argparse's, with an option that takes one value refused when it is given twice with different values (docs/CLI.md:
conflicting options are usage errors), and an option that names a path (`add_argument(..., path=KIND)`, the kinds
of pathcheck) checked as it is parsed: blank, missing, a file for a folder, a link to nowhere, a FIFO or a device
refused naming the option and the value (docs/CLI.md, "Paths and environment variables")."""
import argparse
import os
import sys

from . import pathcheck


class _StoreOnce(argparse._StoreAction):
    """argparse's 'store', refusing an option given twice with different values (`--out a --out b`: which one
    the user meant is not for the parser to guess; the last would silently win)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given and given[self.dest][1] != values:
            parser.error(f"{option_string} {values!r}: {given[self.dest][0]} {given[self.dest][1]!r} was given "
                         "too; give it once")
        given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


class _AppendOnce(argparse._AppendAction):
    """argparse's 'append', refusing a value given twice (`--frontend a --frontend a`): a list names each thing
    once, as comma_list refuses `a,a`."""

    def __call__(self, parser, namespace, values, option_string=None):
        if values in (getattr(namespace, self.dest, None) or []) and getattr(namespace, self.dest) is not self.default:
            parser.error(f"{option_string} {values!r}: given twice (each value once)")
        super().__call__(parser, namespace, values, option_string)


def ranged(kind, low, high=None):
    """An argparse type: a number of kind (int, float) from low to high (None: no upper bound), finite; anything
    else is a usage error naming the value and the range (argparse adds the option)."""
    def convert(text):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or v != v or v in (float("inf"), float("-inf")) or v < low or (high is not None and v > high):
            raise argparse.ArgumentTypeError(f"{text!r}: expected {'an integer' if kind is int else 'a number'} "
                                             + (f"from {low} to {high}" if high is not None else f"of {low} or more"))
        return v
    convert.__name__ = kind.__name__
    return convert


_GIVEN = "_ptxcts_options_given"


class ArgumentParser(argparse.ArgumentParser):
    """The verbs' argument parser: argparse's, with an option that takes one value refused when it is given twice
    with different values (docs/CLI.md: conflicting options are usage errors). Sub-commands get the same
    parser."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.register("action", "append", _AppendOnce)
        self._paths = []   # (action, kind, also) of the options added with path=

    def add_argument(self, *args, path=None, path_also=(), **kwargs):
        """argparse's, and path=KIND (pathcheck's kinds): the value, each value of a list, is checked once parsed;
        path_also: values that are not paths and pass as they are (e.g. 'none')."""
        return self._path_option(super().add_argument, args, kwargs, path, path_also)

    def _path_option(self, add, args, kwargs, path, also):
        action = add(*args, **kwargs)
        if path is not None:
            if path not in pathcheck.KINDS:
                raise ValueError(f"add_argument: path={path!r}")
            self._paths.append((action, path, tuple(also)))
        return action

    def _with_paths(self, group):
        """A group (argument group, mutually exclusive group) whose add_argument takes path= as the parser's does."""
        add = group.add_argument
        group.add_argument = lambda *args, path=None, path_also=(), **kwargs: self._path_option(add, args, kwargs,
                                                                                              path, path_also)
        return group

    def add_argument_group(self, *args, **kwargs):
        return self._with_paths(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, **kwargs):
        return self._with_paths(super().add_mutually_exclusive_group(**kwargs))

    def parse_known_args(self, args=None, namespace=None):
        self._utf8_only(sys.argv[1:] if args is None else list(args))
        ns, rest = super().parse_known_args(args, namespace)
        ns.__dict__.pop(_GIVEN, None)
        for action, kind, also in self._paths:
            value = getattr(ns, action.dest, None)
            for v in value if isinstance(value, list) else [value]:
                if not isinstance(v, str) or v in also or v is action.default:
                    continue
                wrong = pathcheck.problem(v, kind)
                if wrong:
                    name = "/".join(action.option_strings) or action.metavar or action.dest.upper()
                    # one line, no usage: the spelling was right, the path is what cannot be used
                    self.exit(2, f"{self.prog}: error: " + (f"{name} {v!r}: {wrong}" if not v.strip() else
                                                            f"{name} {v}: {wrong}") + "\n")
        return ns, rest


    def _utf8_only(self, args):
        """Every argument is UTF-8 text: bytes that are not (Python holds them as lone surrogates) would end the
        verb when a document, a page or a message is written with them. Refused naming the option (the C++
        commands' reader, ptxcts/options.hpp, says the same)."""
        for i, a in enumerate(args):
            if not isinstance(a, str):
                continue
            try:
                a.encode("utf-8")
            except UnicodeEncodeError as e:
                inline = a.startswith("--") and "=" in a[:e.start]   # --title=VALUE names its option itself
                option = args[i - 1] + " " if not inline and i and str(args[i - 1]).startswith("-") else ""
                self.exit(2, f"{self.prog}: error: {option}{a!r}: not UTF-8 text (byte "
                             f"0x{os.fsencode(a[e.start])[0]:02X} at offset {e.start})\n")


def comma_list(parser, option, value, known=None):
    """The items of a comma-separated option value (--verdicts ptxas,nvjitlink), or a usage error naming the option
    (parser.error, exit 2) for an empty item (a,,b; a trailing comma), an item named twice, or one not in `known`.
    The shell verbs' twin is scripts/lists.sh."""
    items = value.split(",")
    if any(not i.strip() for i in items):
        parser.error(f"{option} {value!r}: an empty item (a leading, trailing or doubled comma)")
    twice = sorted({i for i in items if items.count(i) > 1})
    if twice:
        parser.error(f"{option} {value!r}: names {twice[0]!r} twice")
    bad = [i for i in items if known is not None and i not in known]
    if bad:
        parser.error(f"{option} {','.join(bad)}: each must be one of {', '.join(known)} (given: {value!r})")
    return items
