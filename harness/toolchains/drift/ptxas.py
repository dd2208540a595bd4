"""The toolchain's side of the drift detector: the tokens of the ptxas binary, and assembling candidate lines in one
module per (target, PTX version) with an error per line."""
import collections
import os
import re
import subprocess

from framework.toolchains import ToolchainError

SENTINEL = "cp.async.bulk.ptxcts_drift_end [%w_dst], [%g_src], %size, [%mbar];"
_ERR = re.compile(r"line (\d+); error\s*:\s*(.*)")
_TOKEN_SHAPE = re.compile(r"^\.[a-z][a-z0-9_]*(::[a-z0-9_]+)*$")
# a qualifier with a capital letter: the cache levels and their sizes (.L2::evict_last, .L2::128B), always with a
# `::` component; a capitalised word without one (.Text) is no qualifier of ptxas's
_CAPITAL_SHAPE = re.compile(r"^\.[A-Za-z][A-Za-z0-9_]*(::[A-Za-z0-9_]+)+$")
# register widths of the operand names the model's instructions use (anything else is .b32)
# (the .override::* operands, isa.override_operands: gAddrToOverride .b64, tensorSizeToOverride and
# tensorUpperStrideToOverride .b16; the generic mbarrier address of cp.async.mbarrier.arrive .b64)
_B64 = ("%g_src", "%g_dst", "%policy", "%tmap", "%ovr", "%ovr_addr", "%mbar_gen")
_B16 = ("%cta_mask", "%byte_mask", "%i2c0", "%i2c1", "%i2c2", "%h0", "%h1", "%ovr_up") + tuple(
    f"%ovr_sz{i}" for i in range(5))


_ELF = b"\x7fELF"
_NAMED_PATH = re.compile(r"/[^\s\"'$;|&<>()`]+")


def binary_of(ptxas, depth=4):
    """The ELF file whose strings are this ptxas's: the file itself, or, for a script that runs it (a machine's
    /usr/local/bin/ptxas that is `exec /usr/local/cuda-13.0/bin/ptxas "$@"`), the executable file named ptxas that
    the script names by absolute path, followed through up to `depth` such scripts. Reading a wrapper's own 51 bytes
    left the pool without the binary's modifier strings (no qualifier outside the families asked for could be
    rediscovered)."""
    try:
        with open(ptxas, "rb") as f:
            head = f.read(65536)
    except OSError as e:
        raise ToolchainError(f"{ptxas}: cannot read it: {e.strerror}") from None
    if head.startswith(_ELF):
        return ptxas
    if depth > 0 and head.startswith(b"#!"):
        for named in _NAMED_PATH.findall(head.decode("utf-8", "replace")):
            if os.path.basename(named) == "ptxas" and os.path.isfile(named) and os.access(named, os.X_OK) \
                    and os.path.realpath(named) != os.path.realpath(ptxas):
                return binary_of(named, depth - 1)
    raise ToolchainError(f"{ptxas}: not a ptxas binary (no ELF header), nor a script naming one by its absolute "
                         "path: the drift detector reads the binary's strings; name the ptxas binary itself")


def ptxas_tokens(ptxas):
    """Modifier-shaped strings of the ptxas binary (`.name` or `.a::b...`, lowercase; with a capital letter only in
    the `.a::b` shape, as the cache levels are written); of the binary a wrapper script runs (binary_of)."""
    path = binary_of(ptxas)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ToolchainError(f"{path}: cannot read it: {e.strerror}") from None
    out = set()
    for m in re.finditer(rb"\.[a-z][a-z0-9_:]{1,60}", data):
        s = m.group().decode()
        if _TOKEN_SHAPE.match(s):
            out.add(s)
    for m in re.finditer(rb"\.[A-Za-z][A-Za-z0-9_:]{1,60}", data):
        s = m.group().decode()
        if s != s.lower() and _CAPITAL_SHAPE.match(s):
            out.add(s)
    return out


def token_pool(model, ptxas):
    """The model's vocabulary, ptxas's modifier strings, and every token of the model's vocabulary extended by one
    more `::component` seen in either (e.g. `.multicast::cluster` + `::16b`, `.im2col_no_offs` + `::w`)."""
    base = set(model.vocabulary()) | ptxas_tokens(ptxas) | set(model.forget)   # a forgotten one stays a candidate
    comps = {c for t in base for c in t.split("::")[1:]}
    ext = {t + "::" + c for t in model.vocabulary() for c in comps}
    return sorted(base | ext)


def _decls(lines):
    regs = set(re.findall(r"%[A-Za-z_][A-Za-z0-9_]*", "\n".join(lines)))
    b64 = sorted(r for r in regs if r in _B64 or r.startswith("%x64"))
    b16 = sorted(r for r in regs if r in _B16 or r.startswith("%h"))
    b32 = sorted(regs - set(b64) - set(b16))
    out = []
    for width, names in (("b64", b64), ("b32", b32), ("b16", b16)):
        if names:
            out.append(f"\t.reg .{width} {', '.join(names)};")
    return out


def module(target, ptx, lines):
    """The module text and the line number of each candidate (1-based)."""
    body = list(lines) + [SENTINEL]
    head = [f".version {ptx}", f".target {target}", ".address_size 64", ".visible .entry ptxcts_drift()", "{"]
    head += _decls(body)
    first = len(head) + 1
    text = "\n".join(head + ["\t" + ln for ln in body] + ["}"]) + "\n"
    return text, {first + i: i for i in range(len(lines))}


_FATAL = re.compile(r"line (\d+); fatal\s*:\s*(.*)")


def _assemble_once(ptxas, arch, target, ptx, lines, workdir):
    text, where = module(target, ptx, lines)
    path = os.path.join(workdir, f"drift-{target}-{ptx}-{len(lines)}-{abs(hash(text)) % 10**8}.ptx")
    with open(path, "w") as f:
        f.write(text)
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True,
                           timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolchainError(f"{ptxas}: {type(e).__name__}: {e}") from None
    finally:
        os.remove(path)
    return r, where


def assemble(ptxas, arch, target, ptx, lines, workdir):
    """{candidate index: [error messages]} over the candidate lines; an index without errors was accepted. A line
    ptxas cannot parse at all ("fatal : Parsing error", e.g. a directive name as a qualifier) ends its parse: that
    line gets the message, the lines before it keep their errors, and the lines after it are assembled again."""
    errs = collections.defaultdict(list)
    todo = list(range(len(lines)))
    while todo:
        r, where = _assemble_once(ptxas, arch, target, ptx, [lines[i] for i in todo], workdir)
        out = r.stdout + r.stderr
        if r.returncode < 0:
            # ptxas died on a signal: halve until the line that kills it is alone (each such line is reported)
            if len(todo) == 1:
                errs[todo[0]].append(f"crash: ptxas killed by signal {-r.returncode}")
                break
            half = len(todo) // 2
            for part in (todo[:half], todo[half:]):
                sub = assemble(ptxas, arch, target, ptx, [lines[i] for i in part], workdir)
                for k, v in sub.items():
                    errs[part[k]].extend(v)
            break
        fatal = [(int(m.group(1)), m.group(2).strip()) for m in _FATAL.finditer(out) if int(m.group(1)) in where]
        stop = fatal[0][0] if fatal else None
        for m in _ERR.finditer(out):
            ln = int(m.group(1))
            if ln in where and (stop is None or ln < stop):
                errs[todo[where[ln]]].append(m.group(2).strip())
        if stop is None:
            if not any(int(m.group(1)) > max(where, default=0) for m in _ERR.finditer(out)):
                raise ToolchainError(f"{ptxas}: the end-of-module line drew no error at {target} / PTX {ptx} (exit "
                                     f"{r.returncode}): not a ptxas this detector understands\n{out[-400:]}")
            break
        k = where[stop]
        errs[todo[k]].append("fatal: " + fatal[0][1])
        todo = todo[k + 1:]
    return errs
