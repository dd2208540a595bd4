"""`./ptxcts frontend whole-write --frontend cute-dsl --out DIR`: the CuTe DSL's whole kernels (cute_kernels.py) for
the forms of sm_90a, compiled by the DSL (libNVVM; one PTX version, 9.4, which the driver cannot JIT) and assembled
by the DSL's paired ptxas (toolchains/frontends.toml) into cubins, in modules of BATCH kernels; a module the DSL
refuses is compiled again kernel by kernel, and a kernel it refuses is a compile_error. Every kernel is checked to
hold an instruction that parses to its form (a kernel that does not is `check_failed` in not_written); the model's
bytes come from expect.expected_dsl. The folder is whole-run's (write.py's format, `abi` cute).
"""
import os
import subprocess
import time

from framework.progress import Progress
from ptxcts_gen import load_forms, parse
from ptxcts_gen.frontends import Spelling

from .. import FrontendError, resolve
from ..cute_dsl import backend as cb
from ..errors import MALFORMED
from ..llvm_backend import instructions
from . import cute_kernels, expect
from .folder import FORMAT, TRIVIAL, can_fail, hex_of, save

BATCH = 24
PTX = "9.4"


def _fakes(d):
    """The five tensors of every whole kernel (cute_kernels: g, h, out of WORDS 64-bit words, p, t)."""
    w, fake = cute_kernels.WORDS, d["fake"]
    i64, i32 = d["cutlass"].Int64, d["cutlass"].Int32
    return [fake(i64, (w,), assumed_align=16), fake(i64, (w,), assumed_align=16), fake(i64, (w,), assumed_align=16),
            fake(i32, (16,), assumed_align=16), fake(i64, (16,), assumed_align=16)]


def _compile(kernels, target):
    """PTX text of [(entry, source)] as one module (backend.compile_source); raises the DSL's error."""
    launches = "".join(f"    {e}(g, h, out, p, t).launch(grid=(1, 1, 1), block=(32, 1, 1), "
                       f"smem={cute_kernels.SHARED})\n" for e, _ in kernels)
    tensors = "g: cute.Tensor, h: cute.Tensor, out: cute.Tensor, p: cute.Tensor, t: cute.Tensor"
    src = cute_kernels.PRELUDE + "".join(s for _, s in kernels) + f"\n\n@cute.jit\ndef host({tensors}):\n" + launches
    return cb.compile_source((src, target, [e for e, _ in kernels]), fakes=_fakes)


def write(a, root):
    from framework import toolchains
    from ptxcts_gen.frontends import cute_dsl as mapping
    from ..run import form_valid_at
    t0 = time.monotonic()
    fe = resolve(a.frontend)
    cb.load(fe)
    tc = toolchains.resolve(fe.ptxas_toolchain)
    ref = expect.ref_path(root)
    forms = {f.id: f for f in load_forms()}
    index = parse.FormIndex(forms.values())
    chosen, skipped = [], {}
    for f in forms.values():
        if f.family not in mapping.FAMILIES or not form_valid_at(forms, f.id, a.target, PTX):
            continue
        s = mapping.spell(f)
        if not isinstance(s, Spelling):
            skipped[f.id] = f"unexpressible: {s.reason}"
            continue
        try:
            chosen.append((f, cute_kernels.whole_case(f.entry, s, mapping.call_text(s))))
        except cute_kernels.NotWritten as e:
            skipped[f.id] = f"not_written: {e}"
    os.makedirs(a.out, exist_ok=True)
    prog = Progress(len(chosen), label="whole-write", unit="kernels", quiet=a.quiet)
    cases, refused = [], {}
    for b in range(0, len(chosen), BATCH):
        batch = chosen[b:b + BATCH]
        modules = []
        try:
            modules.append((batch, _compile([(c.entry, c.source) for _, c in batch], a.target)))
        except Exception:
            for item in batch:
                try:
                    modules.append(([item], _compile([(item[1].entry, item[1].source)], a.target)))
                except Exception as e:
                    refused[item[0].id] = f"{type(e).__name__}: {cb._error_line(e)}"
        for items, ptx_text in modules:
            name = f"m{b // BATCH:03d}_{items[0][1].entry}"
            ptx_path = os.path.join(a.out, name + ".ptx")
            with open(ptx_path, "w") as fh:
                fh.write(ptx_text)
            r = subprocess.run([tc.ptxas, f"-arch={a.target}", "-o", os.path.join(a.out, name + ".cubin"), ptx_path],
                               capture_output=True, text=True, timeout=600)
            if r.returncode:
                for f, _ in items:
                    refused[f.id] = f"ptxas {tc.name}: {r.stderr.strip()[:300]}"
                continue
            found = instructions(ptx_text)
            for f, c in items:
                written = None
                for ins in found.get(c.entry, ()):
                    p = index.parse(ins)
                    if f.id in p.forms:
                        written = ins
                        break
                if written is None:
                    skipped[f.id] = ("check_failed: no instruction of the kernel parses to the form "
                                     f"({found.get(c.entry)})")
                    continue
                values, rule = expect.expected_dsl(ref, c)
                if c.template != "bulk_commit_group" and not can_fail(c, values):   # an empty group: it must run
                    skipped[f.id] = TRIVIAL
                    continue
                cases.append({"form": f.id, "asked": f.id, "entry": c.entry, "module": name + ".cubin",
                              "template": c.template, "params": dict(c.params), "instruction": written,
                              "meta": {"shared": c.options["shared"], "num_warps": 1, "num_ctas": c.options["num_ctas"],
                                       "abi": "cute"},
                              "args": c.args,
                              "buffers": {k: {"elem": v["elem"], "init": hex_of(v["init"], v["elem"])}
                                          for k, v in c.buffers.items()},
                              "expect": {k: hex_of(v, c.buffers[k]["elem"]) for k, v in values.items()},
                              "rule": rule, "source": c.source.strip()})
        prog.advance(len(batch))
    doc = {"format": FORMAT, "version": 1, "frontend": fe.name, "compiler": f"CuTe DSL ({cb.dsl_version(fe)})",
           "ptxas": f"{tc.ptxas_version} ({tc.ptxas})", "target": a.target, "ptx": PTX,
           "cases": cases, "refused": refused, "not_written": skipped}
    kinds = save(a.out, doc)
    print(f"whole-write: {fe.name} ({doc['compiler']}, ptxas {tc.ptxas_version}) {a.target} PTX {PTX}: {len(cases)} "
          f"kernels, {len(refused)} refused, not written: {kinds}; {time.monotonic() - t0:.1f} s")
    if not cases and refused:
        raise FrontendError(f"whole-write: the DSL refused every kernel (first: {next(iter(refused.values()))})",
                            MALFORMED)
    return 0
