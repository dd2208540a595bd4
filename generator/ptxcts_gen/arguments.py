"""The argument parser of every verb, the generator's and the harness's tiers' (framework.boundary hands it on):
argparse's, with an option that takes one value refused when it is given twice with different values (docs/CLI.md:
conflicting options are usage errors)."""
import argparse


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


_GIVEN = "_ptxcts_options_given"


class ArgumentParser(argparse.ArgumentParser):
    """The verbs' argument parser: argparse's, with an option that takes one value refused when it is given twice
    with different values (docs/CLI.md: conflicting options are usage errors). Sub-commands get the same
    parser."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_known_args(self, args=None, namespace=None):
        ns, rest = super().parse_known_args(args, namespace)
        ns.__dict__.pop(_GIVEN, None)
        return ns, rest


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
