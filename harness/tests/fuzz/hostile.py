"""What the fuzz tests share: the paths, Hypothesis (from the cache ./ptxcts setup installs it into), the hostile
values every input is tried with, and the property every loader and parser must keep.

The property (docs/CLI.md): a bad input ends with the layer's own error -- exit 2 (usage) or 3 (malformed file),
one message naming the input -- never a traceback, an internal error, or another exception.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]
os.environ.setdefault("PTXCTS_ROOT", ROOT)

SKIP = 77   # CTest SKIP_RETURN_CODE
PYDEPS = os.environ.get("PTXCTS_PYDEPS") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ptxcts", "python")
sys.path.append(PYDEPS)
try:
    import hypothesis
    from hypothesis import HealthCheck, settings, strategies as st
except ImportError:
    hypothesis = None

CRASH_MARKS = ("Traceback (most recent call last)", "internal error", "terminate called", "Segmentation fault",
               "core dumped", "Aborted")


def require_hypothesis():
    if hypothesis is None:
        sys.stderr.write(f"SKIP: Hypothesis is not installed (looked in {PYDEPS} and the interpreter's path); "
                         "./ptxcts setup installs it (PyPI hypothesis, or --wheels DIR offline)\n")
        sys.exit(SKIP)


def budget(examples):
    """The fixed budget of one fuzz test: `examples` inputs, drawn from a fixed seed (derandomize: CI and a
    developer's machine try the same inputs), no deadline per input (a loaded machine is slow, not wrong).
    PTXCTS_FUZZ_SCALE multiplies the number of inputs (e.g. 10 for a long local run)."""
    scale = float(os.environ.get("PTXCTS_FUZZ_SCALE", "1"))
    return settings(max_examples=max(1, int(examples * scale)), derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


if hypothesis is not None:
    # Values a tired user, a broken script or an unset shell variable hands over: empty and blank strings, numbers
    # at and past every bound, NaN, paths that cannot be used, text that is not what it claims.
    HOSTILE_TEXT = st.sampled_from([
        "", " ", "\t", "0", "-1", "-0", "1e999", "nan", "NaN", "inf", "-inf", "1.5", "0x10", "99999999999999999999",
        "100000000000000000000", "18446744073709551616", "2147483648", "-2147483649", "abc", "none", "all", "both",
        "sm_", "sm_90x", "sm_9", "8.", ".6", "8.6.1", "cp.async,", ",", ",,", "*", "[", "[a-", "]", "{}", "[]",
        "null", "true", "/", "/dev/null", "/proc/1/mem", "/nonexistent/x", "~", "-", "--", "--out", "\x00",
        "é", "\u202e", "a" * 300, "../" * 20, "0/0", "1/0", "3/2", "-1/4", "until-fail:0",
    ]) | st.text(max_size=12)
    HOSTILE_JSON = st.sampled_from([
        None, True, False, 0, -1, -(2 ** 63), 2 ** 64, 1.5, -0.5, 1e308, "", " ", "x" * 200, [], {}, [None],
        {"": None}, "NaN", "sm_90", "9.0", "pass", "2000-01-01T00:00:00+00:00", "not a date",
    ]) | st.integers() | st.text(max_size=8)
    # literal JSON text a writer with allow_nan or a hand edit produces (not JSON, but json.loads reads some)
    BAD_LITERALS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "[" * 3000 + "]" * 3000, "01", "+1", "'x'",
                    "undefined", "{\"a\":1,\"a\":2}"]
    HOSTILE_TOML = st.sampled_from([
        "true", "false", "1.0", "-1", "0", "nan", "inf", "\"\"", "\" \"", "\"[abc\"", "\"]\"", "\"*\"", "[]", "{}",
        "[1, 2]", "[\"x\", 1]", "1979-05-27", "1979-05-27T07:32:00Z", "\"tomorrow\"", "= =", "\"\\u0000\"",
        "\"" + "a" * 300 + "\"", "{ a = 1 }", "[[]]", "\"sm_banana\"", "\">=\"", "\"<13.0, >14.0\"",
    ])


def check_error(test, exc, allowed, path):
    """The exception a loader raised is one of `allowed` and names the input `path` (or its folder)."""
    if not isinstance(exc, allowed):
        test.fail(f"{type(exc).__name__} escaped (allowed: {', '.join(a.__name__ for a in allowed)}): {exc}")
    text = str(exc)
    names = (path, os.path.dirname(path), os.path.basename(path))
    test.assertTrue(any(n and n in text for n in names), f"the message does not name {path}: {text}")
    for mark in CRASH_MARKS:
        test.assertNotIn(mark, text)
