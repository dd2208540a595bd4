"""Hand-written modules for the unit tests: a manifest in a temporary folder, one entry per (form, instruction)."""
import hashlib
import json
import os

from framework import manifest

FRAME_TOP = """.visible .entry {k}(.param .u64 args)
{{
  .reg .b64 %rd<8>;
  .reg .b32 %r<8>;
  .reg .b16 %rs<4>;
  .reg .pred %p<4>;
  .shared .align 128 .b8 window[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [args];
  cvta.to.global.u64 %rd1, %rd1;
  ld.global.u64 %rd2, [%rd1];
  mov.u32 %r1, window;
  mov.u32 %r2, bar;
{pre}  {instr}
  ret;
}}"""


def kernel(form):
    return "k_" + hashlib.sha1(form.encode()).hexdigest()[:12]


def write(root, family, entries, targets=("sm_80", "sm_90")):
    """entries: list of (form, instr, expect, target, ptx[, pre-lines]). Returns the loaded Manifest."""
    os.makedirs(os.path.join(root, "cases"), exist_ok=True)
    os.makedirs(os.path.join(root, "kernels"), exist_ok=True)
    forms, parts, rows = {}, [], []
    for e in entries:
        form, instr, expect, target, ptx = e[:5]
        pre = "".join(f"  {l}\n" for l in (e[5] if len(e) > 5 else []))
        if form not in forms:
            forms[form] = {"form": form, "family": family, "instr": instr, "kernel": kernel(form),
                           "kernel_file": f"kernels/{family}.ptx", "min_ptx": "7.0", "targets": "",
                           "quals": {}, "abi": "test", "run": {}, "invalid_by": [] if expect == "accept" else ["r"]}
            parts.append(f"// form: {form}\n// PTX ISA min 7.0; targets: any\n"
                         + FRAME_TOP.format(k=kernel(form), instr=instr, pre=pre) + "\n")
        rows.append((f"{form}@{target}.ptx{ptx.replace('.', '')}", form, target, ptx, expect,
                     "" if expect == "accept" else "r"))
    with open(os.path.join(root, "forms.jsonl"), "w") as f:
        for fid in sorted(forms):
            f.write(json.dumps(forms[fid]) + "\n")
    with open(os.path.join(root, "kernels", family + ".ptx"), "w") as f:
        f.write("\n".join(parts))
    with open(os.path.join(root, "cases", family + ".tsv"), "w") as f:
        f.write("case_id\tform\ttarget\tptx\texpect\trules\n")
        for r in rows:   # kept in the order given: the tests choose the order of entries in the module
            f.write("\t".join(r) + "\n")
    with open(os.path.join(root, "targets.json"), "w") as f:
        json.dump({"targets": [{"name": t} for t in targets], "ptx_versions": []}, f)
    return manifest.load(root)
