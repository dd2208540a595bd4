"""TOML files read one way (waivers, known findings, fleet plans): every error an InputError (exit 3) naming the
file and, where it can, the line -- never a RecursionError or a decoding error without the file's name.

    doc = tomldoc.read(path)            # the file's text (jsonloc.read_text: UTF-8, no FIFO), then loads
    doc = tomldoc.loads(text, path)     # text already read

Refused beyond what tomllib refuses: nesting deeper than Python can follow, and a NUL character in a string
(an escape `\\u0000` is valid TOML, but no name, path or glob these files hold can contain one: a path with it
cannot be opened, and the message would end at it).
"""
import re
import tomllib

from . import jsonloc
from .errors import InputError


def _line_of(text, needle):
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _nul_key(value, path=()):
    """The dotted key of the first string holding a NUL character, or None."""
    if isinstance(value, str):
        return ".".join(str(p) for p in path) if "\x00" in value else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _nul_key(v, path + (k,))
        if found is not None:
            return found or "(top level)"
    return None


def loads(text, file):
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise InputError(file, int(m.group(1)) if m else None, None, f"not valid TOML: {e}") from None
    except RecursionError:
        depth = max(text.find("[" * 100), text.find("{" * 100))
        raise InputError(file, text.count("\n", 0, depth) + 1 if depth >= 0 else None, None,
                         "nested too deeply to read (thousands of nested arrays or tables)") from None
    except ValueError as e:   # not a TOMLDecodeError (caught above): int() refusing thousands of digits
        raise jsonloc.too_many_digits(text, file, e) from None
    key = _nul_key(doc)
    if key is not None:
        line = _line_of(text, "\\u0000") or _line_of(text, "\\U00000000")
        raise InputError(file, line, key, "holds a NUL character (\\u0000): no name, path or pattern can")
    return doc


def read(path):
    return loads(jsonloc.read_text(path), str(path))
