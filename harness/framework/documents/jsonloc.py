"""Line numbers for the fields of a JSON text, so that a format error names the line it is on.

json.loads() reports lines only for syntax errors; a well-formed document with a wrong field needs this walk.
It runs only when an error is being reported, so it favours simplicity over speed (values it does not descend
into are skipped with the C decoder's raw_decode).
"""
import json
import re
from json.decoder import scanstring

_WS = " \t\n\r"
_skipper = json.JSONDecoder()


def _ws(text, pos):
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _line(text, pos):
    return text.count("\n", 0, pos) + 1


def line_of(text, path, nth=1):
    """1-based line of the field at `path` (a sequence of object keys and array indexes) in `text`.

    The line of the key is returned for an object member, of the value for an array element. If the path goes
    deeper than the document, the line of the deepest part that exists is returned. `nth` picks the nth
    occurrence of the last key in its object (for duplicate keys). None if the text is not JSON.
    """
    try:
        return _walk(text, _ws(text, 0), list(path), nth)
    except (ValueError, IndexError):
        return None


def _walk(text, pos, path, nth):
    if not path:
        return _line(text, pos)
    want = path[0]
    if text[pos] == "{":
        pos = _ws(text, pos + 1)
        seen = 0
        while text[pos] != "}":
            key_pos = pos
            key, pos = scanstring(text, pos + 1)
            pos = _ws(text, pos)
            pos = _ws(text, pos + 1)  # ':'
            if key == want:
                seen += 1
                if len(path) > 1:
                    return _walk(text, pos, path[1:], nth)
                if seen == nth:
                    return _line(text, key_pos)
            _, pos = _skipper.raw_decode(text, pos)
            pos = _ws(text, pos)
            if text[pos] == ",":
                pos = _ws(text, pos + 1)
        return _line(text, pos)
    if text[pos] == "[":
        pos = _ws(text, pos + 1)
        index = 0
        while text[pos] != "]":
            if index == want:
                return _walk(text, pos, path[1:], nth)
            _, pos = _skipper.raw_decode(text, pos)
            pos = _ws(text, pos)
            if text[pos] == ",":
                pos = _ws(text, pos + 1)
            index += 1
        return _line(text, pos)
    return _line(text, pos)


def read_text(path):
    """A file's text (a `.gz` file is decompressed: committed documents are gzip-compressed); InputError if it is
    not UTF-8 or not gzip."""
    from .errors import InputError, UsageError
    import os
    import stat
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None   # open() below says what is wrong
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # a FIFO would wait for a writer for ever, a device would be read without end
        raise UsageError(f"{path}: is {'a FIFO' if stat.S_ISFIFO(mode) else 'a device or socket'}, not a file")
    if str(path).endswith(".gz"):
        import gzip
        try:
            with gzip.open(path, "rb") as f:
                raw = f.read()
        except (OSError, EOFError) as e:
            raise InputError(path, 1, None, f"not a gzip-compressed file: {e}") from None
    else:
        with open(path, "rb") as f:
            raw = f.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, raw.count(b"\n", 0, e.start) + 1, None, f"not UTF-8 text (byte {e.start})") from None


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text, doc, file):
    """InputError for a string holding half of a UTF-16 pair (`\\ud800` alone): valid JSON syntax, but no text -- it
    cannot be written as UTF-8 (a report, a JUnit file) or compared. A pair (an emoji) is one character, and fine.
    Looked for only when the text has such an escape."""
    from .errors import InputError
    m = _SURROGATE.search(text)
    if m is None:
        return
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        lone = next((x for x in _SURROGATE.finditer(text) if not _paired(text, x)), m)
        raise InputError(file, _line(text, lone.start()), None, f"{lone.group(0)}: half of a UTF-16 surrogate "
                         "pair without its other half: not a character (a string must be Unicode text)") from None


def _paired(text, m):
    hi = m.group(0)[2].lower() == "d" and m.group(0)[3].lower() in "89ab"
    if hi:
        nxt = _SURROGATE.match(text, m.end())
        return nxt is not None and nxt.group(0)[3].lower() in "cdef"
    prev = _SURROGATE.match(text, max(0, m.start() - 6))
    return m.start() >= 6 and prev is not None and prev.end() == m.start() and prev.group(0)[3].lower() in "89ab"


def load(text, file):
    """json.loads with errors as InputError (file, line) and duplicate object keys rejected."""
    from .errors import InputError

    def no_duplicates(pairs):
        d = dict(pairs)   # at C speed: the hook runs once per object of a document of 100,000s of cases
        if len(d) != len(pairs):   # only then look for the key named twice
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    raise _Duplicate(key)
                seen.add(key)
        return d

    def finite(literal):
        value = float(literal)
        if value != value or value in (float("inf"), float("-inf")):
            raise _NotFinite(literal)
        return value

    def no_constant(name):   # NaN, Infinity, -Infinity: Python's json reads them, JSON has no such value
        raise _NotFinite(name)

    try:
        doc = json.loads(text, object_pairs_hook=no_duplicates, parse_float=finite, parse_constant=no_constant)
        _lone_surrogate(text, doc, file)
        return doc
    except RecursionError:
        depth = max(text.find("[" * 100), text.find("{" * 100))
        raise InputError(file, _line(text, depth) if depth >= 0 else None, None,
                         "nested too deeply to read (a JSON document of thousands of nested arrays or objects)") from None
    except _NotFinite as e:
        lit = e.args[0]
        at = text.find(lit)
        # the field it is the value of: the key just before it ("duration_ms": 1e400)
        key = re.search(r'"((?:[^"\\]|\\.)*)"\s*:\s*$', text[max(0, at - 200):at]) if at >= 0 else None
        raise InputError(file, _line(text, at) if at >= 0 else None, key.group(1) if key else None,
                         f"{lit if len(lit) <= 40 else lit[:12] + '...'} is not a finite number (it overflows a "
                         "64-bit float, or is NaN/Infinity, which JSON has not; a duration or count must be "
                         "finite)") from None
    except json.JSONDecodeError as e:
        hint = ""
        if e.msg.startswith("Expecting ',' delimiter") and e.lineno > 1:
            hint = f"; is a comma missing at the end of line {e.lineno - 1}?"
        raise InputError(file, e.lineno, None, f"not valid JSON: {e.msg} (column {e.colno}){hint}") from None
    except ValueError as e:   # not a JSONDecodeError (caught above): int() refusing thousands of digits
        raise too_many_digits(text, file, e) from None
    except _Duplicate as e:
        key = e.args[0]
        needle = json.dumps(key)
        first = text.find(needle)
        second = text.find(needle, first + 1) if first >= 0 else -1
        line = _line(text, second) if second >= 0 else None
        raise InputError(file, line, key, "duplicate key (it appears more than once in the same object)") from None


_DIGITS = re.compile(r"-?\d{%d,}" % 100)


def too_many_digits(text, file, error):
    """InputError for an integer of thousands of digits (Python's int() refuses more than 4300: a bare ValueError
    from json and tomllib alike), naming the file, the line and the field; no count, ID or seed has so many.
    Any other ValueError is passed on as it is (a bug, not the input)."""
    from .errors import InputError
    if "integer string conversion" not in str(error):
        return error
    m = max(_DIGITS.finditer(text), key=lambda x: len(x.group(0)), default=None)
    if m is None:
        return InputError(file, None, None, f"a number that cannot be read: {error}")
    key = re.search(r'["\']?([\w.-]+)["\']?\s*[:=]\s*$', text[max(0, m.start() - 200):m.start()])
    return InputError(file, _line(text, m.start()), key.group(1) if key else None,
                      f"an integer of {len(m.group(0).lstrip('-'))} digits ({m.group(0)[:12]}...): no count, ID "
                      "or seed has so many (Python reads at most 4300)")


class _Duplicate(Exception):
    pass


class _NotFinite(Exception):
    pass


def read(path):
    """Read, decode and parse the JSON file at path (.gz decompressed): InputError naming the file (and line) for
    a file that is not UTF-8, not JSON, nested too deeply, or holds a duplicate key, NaN or an infinite number.
    The one JSON reader of the Python layers: every document they load comes through here."""
    return load(read_text(path), str(path))
