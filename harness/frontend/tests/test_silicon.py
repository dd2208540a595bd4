"""Whole run-tier kernels written by LLVM 22 (`./ptxcts modules --frontend llvm-22`, harness/frontend/silicon.py):
for every form the run tier runs on sm_90, either a kernel LLVM wrote (its one instruction under test parses to the
form, its parameters are the run ABI's, its protocol is the hand-written kernel's, the paired ptxas assembles its
module) or a reason; the index in the run tier's format with its provenance; planted wrong kernels are caught.
Exits 77 (CTest: skipped) where llvm-22 is not installed: `./ptxcts setup` installs it."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import frontend
from framework import toolchains
from framework.toolchains import ptxas as ptxas_call
from frontend import engines, isolate, kernel_check, llvm_backend, silicon
from frontend.tests.tier_check import main
from frontend.tier import split_module
from ptxcts_gen import parse
from ptxcts_gen.cli import write_file
from ptxcts_gen.frontends import MappingError, Spelling
from ptxcts_gen.frontends import llvm as mapping
from ptxcts_gen.model import all_forms
from ptxcts_gen.render import kernel_text

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TARGET, PTX = "sm_90", "9.0"
FORMS = {f.id: f for f in all_forms()}
BY_ENTRY = {f.entry: f for f in FORMS.values()}


def _modules(out, extra=()):
    """(exit code, stderr) of `./ptxcts modules` as the run tier calls it (manifest.cpp prepare_modules)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "modules", "--target", TARGET, "--ptx", PTX,
                        "--valid-only", "--out", out, "--max-entries", "64", *extra],
                       capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stderr


def scan_modules(folder):
    """The run tier's reading of a modules folder (harness/runcore/src/core/manifest.cpp scan_modules), in Python:
    index.json's `modules` object, module file -> list of entry names, each file present. {entry: module path}."""
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    modules = index.get("modules")
    if not isinstance(modules, dict):
        raise ValueError('no "modules" object')
    out = {}
    for name, entries in modules.items():
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            raise ValueError(f"module {name} is not in {folder}")
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise ValueError(f"modules.{name} is not a list of entry names")
        for e in entries:
            out[e] = path
    return out


def _entries(ptx_text):
    return {e: body for e, (_, body) in split_module(ptx_text).items()}


class SiliconModulesTest(unittest.TestCase):
    """The folder `./ptxcts modules --frontend llvm-22 --target sm_90` writes, against the hand-written one."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ptxcts-fe-silicon-")
        cls.llvm_dir, cls.hand_dir = os.path.join(cls.tmp, "llvm"), os.path.join(cls.tmp, "hand")
        cls.rc, cls.err = _modules(cls.llvm_dir, ["--frontend", "llvm-22", "--quiet"])
        cls.hand_rc, _ = _modules(cls.hand_dir)
        with open(os.path.join(cls.llvm_dir, "index.json")) as f:
            cls.index = json.load(f)
        with open(os.path.join(cls.hand_dir, "index.json")) as f:
            cls.hand = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_the_verb_succeeds_and_closes_with_its_table(self):
        self.assertEqual((self.rc, self.hand_rc), (0, 0), self.err)
        self.assertIn("written", self.err)
        self.assertRegex(self.err, r"\d+ modules, \d+ entries written by llvm-22 for sm_90 PTX 9.0")

    def test_every_form_the_run_tier_runs_is_written_or_has_its_reason(self):
        run = set(self.hand["entries"])       # the hand-written modules' entries: the forms the run tier runs
        written = {e for es in self.index["modules"].values() for e in es}
        skipped = {v["kernel"] for v in self.index["not_written"].values()}
        self.assertEqual(written | skipped, run)
        self.assertFalse(written & skipped)
        self.assertTrue(all(v["reason"] for v in self.index["not_written"].values()))
        # the common families are written whole (every form LLVM can express)
        for fam in ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor"):
            fam_run = {e for e in run if self.hand["entries"][e]["family"] == fam}
            self.assertEqual(fam_run - written, set(), fam)

    def test_unexpressible_reasons_are_the_mappings(self):
        known = set(frontend.load_description("llvm-22")["intrinsics"])
        n = 0
        for fid, v in self.index["not_written"].items():
            if v["kind"] == silicon.UNEXPRESSIBLE:
                self.assertEqual(v["reason"], mapping.spell(FORMS[fid], known).reason, fid)
                n += 1
            else:
                self.assertIsInstance(mapping.spell(FORMS[fid], known), Spelling, fid)
        self.assertGreater(n, 0)
        # nothing LLVM could express was refused, crashed or failed its check
        bad = {k: v for k, v in self.index["not_written"].items()
               if v["kind"] not in (silicon.UNEXPRESSIBLE, silicon.NO_FRAME)}
        self.assertEqual(bad, {})

    def test_index_reads_as_the_run_tier_reads_it(self):
        where = scan_modules(self.llvm_dir)
        self.assertEqual(set(where), set(self.index["entries"]))
        for e, path in where.items():
            with open(path) as f:
                self.assertIn(f".entry {e}(", f.read())
            self.assertEqual(os.path.basename(path), self.index["entries"][e]["module"])
        self.assertEqual((self.index["target"], self.index["ptx"]), (TARGET, PTX))
        # the entry names are the manifest's kernel names
        with open(os.path.join(ROOT, "generated", "manifest", "forms.jsonl")) as f:
            kernels = {json.loads(ln)["form"]: json.loads(ln)["kernel"] for ln in f if ln.strip()}
        for e, row in self.index["entries"].items():
            self.assertEqual(kernels[row["form"]], e)

    def test_every_entry_is_its_form_once_with_the_run_abi(self):
        index = parse.FormIndex(FORMS.values())
        n = 0
        for name, listed in self.index["modules"].items():
            with open(os.path.join(self.llvm_dir, name)) as f:
                text = f.read()
            lines = text.split("\n")
            found = llvm_backend.instructions(text)      # the tier's reading of the chapter's instructions
            bodies = _entries(text)
            for e in listed:
                form = BY_ENTRY[e]
                hand = kernel_text(form)
                hits = [t for t in found[e] if index.same_form(form.id, t)[0]]
                # as many as the hand-written kernel has: one, but for the groups families, whose frames also
                # commit and wait as companions
                want = [t for t in llvm_backend.instructions(hand)[e] if index.same_form(form.id, t)[0]]
                self.assertEqual(len(hits), len(want), f"{form.id}: {found[e]}")
                if form.family not in ("cp.async.groups", "cp.async.bulk.groups"):
                    self.assertEqual(len(hits), 1, form.id)
                row = self.index["entries"][e]
                (line,) = row["test_lines"]
                self.assertTrue(index.same_form(form.id, lines[line - 1].split("//")[0].strip())[0], form.id)
                params = kernel_check.entry_params(bodies[e])
                self.assertEqual(len(params), 2 if form.kernel_cfg["tmap"] else 1, form.id)
                self.assertRegex(params[0], r"^\.param \.(u64|b64) \w+$")
                if form.kernel_cfg["tmap"]:
                    self.assertRegex(params[1], r"^\.param \.align 64 \.b8 \w+\[128\]$")
                self.assertEqual(kernel_check.protocol(bodies[e], line - row["line_first"]),
                                 kernel_check.protocol(hand),
                                 form.id)
                n += 1
        self.assertEqual(n, len(self.index["entries"]))

    def test_the_paired_ptxas_assembles_every_module(self):
        tc = toolchains.resolve(self.index["frontend"]["paired_ptxas"])
        with tempfile.TemporaryDirectory() as wd:
            for name in self.index["modules"]:
                with open(os.path.join(self.llvm_dir, name)) as f:
                    call = ptxas_call.assemble(tc.ptxas, tc.arch(TARGET), f.read(), wd, "m")
                self.assertTrue(call.accepted, f"{name}: {call.output[:800]}")

    def test_provenance(self):
        d = frontend.load_description("llvm-22")
        p = self.index["frontend"]
        self.assertEqual((p["name"], p["version_string"], p["library_sha256"], p["paired_ptxas"], p["features"]),
                         ("llvm-22", d["version_string"], d["library_sha256"], d["paired_ptxas"], "+ptx90"))
        # the inline asm companions: createpolicy (the cache-policy operand) and the self-check frames' .cg probe
        # load, each in exactly the written kernels whose hand-written kernel has that instruction
        asm = p["inline_asm_companions"]
        self.assertEqual(set(asm), {"createpolicy.fractional.L2::evict_last.b64", "ld.global.cg.v4.u32"})
        for instr, row in asm.items():
            has = {e for e in self.index["entries"] if instr.split(" ")[0] in kernel_text(BY_ENTRY[e])}
            self.assertEqual(set(row["entries"]), has, instr)
            self.assertTrue(row["reason"])
        self.assertTrue(any(BY_ENTRY[e].kernel_cfg["policy"] for e in asm["createpolicy.fractional.L2::evict_last.b64"]
                            ["entries"]))
        self.assertEqual(self.index["made_from"], silicon.made_from(ROOT))


    def _check_modules(self, folder, *extra):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "frontend", "check-modules", folder,
                            *extra], capture_output=True, text=True, cwd=ROOT)
        return r.returncode, r.stdout + r.stderr

    def test_a_fresh_folder_is_accepted_and_a_stale_one_refused(self):
        rc, out = self._check_modules(self.llvm_dir, "--target", TARGET, "--ptx", PTX)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"{len(self.index['entries'])} kernels written by llvm-22", out)
        rc, out = self._check_modules(self.llvm_dir, "--target", "sm_90a")
        self.assertEqual(rc, 3)
        self.assertIn("holds kernels for target sm_90, not sm_90a", out)
        with tempfile.TemporaryDirectory() as stale:
            for n in os.listdir(self.llvm_dir):
                shutil.copy(os.path.join(self.llvm_dir, n), stale)
            doc = dict(self.index, made_from=dict(self.index["made_from"], forms_jsonl_sha256="0" * 64))
            with open(os.path.join(stale, "index.json"), "w") as f:
                json.dump(doc, f)
            rc, out = self._check_modules(stale)
            self.assertEqual(rc, 3)
            self.assertIn("is stale: forms_jsonl_sha256", out)
            os.unlink(os.path.join(stale, sorted(self.index["modules"])[0]))
            with open(os.path.join(stale, "index.json"), "w") as f:
                json.dump(self.index, f)
            rc, out = self._check_modules(stale)
            self.assertEqual(rc, 3)
            self.assertIn("is not in", out)


class PlantedFaultTest(unittest.TestCase):
    """Wrong kernels the check (kernel_check.check_entry) and the module writer must catch."""

    @classmethod
    def setUpClass(cls):
        cls.fe = frontend.resolve("llvm-22")
        llvm_backend.load(cls.fe)
        cls.known = set(cls.fe.description["intrinsics"])
        cls.index = parse.FormIndex(FORMS.values())

    def compile(self, ir):
        (o,) = isolate.run_many(engines.LlvmEngine.compile, [(ir, TARGET, PTX)], jobs=1)
        self.assertTrue(o.ok, o.stderr[-800:])
        return o.value

    def check(self, form, ir):
        body = _entries(self.compile(ir))[form.entry]
        return kernel_check.check_entry(form, body, self.index, kernel_text(form))[0]

    def ir(self, form, s=None):
        return silicon.module_ir([(form, s or mapping.spell(form, self.known))], form.family, self.known)

    def test_the_unplanted_kernels_pass(self):
        for fid in ("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes",
                    "cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/L2_cache_hint"):
            self.assertIsNone(self.check(FORMS[fid], self.ir(FORMS[fid])), fid)

    def test_a_frame_without_the_mbarrier_init_is_caught(self):
        f = FORMS["cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes"]
        ir = "\n".join(ln for ln in self.ir(f).splitlines() if "call void @llvm.nvvm.mbarrier.init" not in ln)
        problem = self.check(f, ir)
        self.assertIn("protocol differs", problem)
        self.assertIn("mbarrier.init", problem)

    def test_a_frame_without_the_proxy_fence_is_caught(self):
        f = FORMS["cp.async.bulk/global.shared_cta.bulk_group"]
        ir = self.ir(f).replace("  call void @llvm.nvvm.fence.proxy.async.shared_cta()\n", "")
        self.assertIn("protocol differs", self.check(f, ir))

    def replaced(self, f, old, new):
        """The check's verdict on the form's kernel with old (which its IR must hold) replaced by new."""
        ir = self.ir(f)
        self.assertIn(old, ir)
        return self.check(f, ir.replace(old, new))

    def test_a_frame_that_does_not_report_its_end_is_caught(self):
        f = FORMS["cp.async.bulk.prefetch.tensor/1d.L2.global.tile"]
        end = "store i32 1, ptr addrspace(1) %status0.end.at, align 4\n"
        self.assertIn("protocol differs", self.replaced(f, end, ""))

    def test_a_group_wait_for_other_groups_is_caught(self):
        f = FORMS["cp.async.bulk.commit_group/empty_group"]
        self.assertIn("protocol differs", self.replaced(f, "@llvm.nvvm.cp.async.bulk.wait.group(i32 1)",
                                                        "@llvm.nvvm.cp.async.bulk.wait.group(i32 0)"))

    def test_the_groups_instruction_out_of_its_place_is_caught(self):
        # the commit under test moved after the frame's wait: the commit at the test's place is a companion's
        f = FORMS["cp.async.bulk.commit_group/empty_group"]
        ir = self.ir(f).replace("  call void @llvm.nvvm.cp.async.bulk.commit.group() ; ptxcts:test\n", "")
        ir = ir.replace("  call void @llvm.nvvm.cp.async.bulk.wait.group(i32 1)\n",
                        "  call void @llvm.nvvm.cp.async.bulk.wait.group(i32 1)\n"
                        "  call void @llvm.nvvm.cp.async.bulk.commit.group()\n")
        self.assertIn("where the hand-written kernel has the one under test is `cp.async.bulk.wait_group 1`",
                      self.check(f, ir))

    def test_a_form_spelled_by_another_forms_intrinsic_is_caught(self):
        f = FORMS["cp.async.bulk.tensor/2d.shared_cta.global.tile"]
        other = FORMS["cp.async.bulk.tensor/2d.shared_cta.global.tile/L2_cache_hint"]
        problem = self.check(f, self.ir(f, mapping.spell(other, self.known)))
        self.assertIn(f"0 instructions parse to {f.id}", problem)

    def test_a_tensor_map_not_64_aligned_is_not_the_run_abi(self):
        f = FORMS["cp.async.bulk.tensor/2d.shared_cta.global.tile"]
        ir = self.ir(f).replace('align 64 "nvvm.grid_constant"', 'align 16 "nvvm.grid_constant"')
        self.assertIn("not the run ABI's", self.check(f, ir))

    def test_an_intrinsic_the_library_lacks_is_an_error(self):
        f = FORMS["cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes"]
        with self.assertRaisesRegex(MappingError, "llvm.nvvm.mbarrier.init.shared is not an intrinsic LLVM knows"):
            silicon.module_ir([(f, mapping.spell(f, self.known))], f.family,
                              self.known - {"llvm.nvvm.mbarrier.init.shared"})

    def test_inline_asm_must_be_a_marked_companion(self):
        f = FORMS["cp.async.bulk/global.shared_cta.bulk_group/L2_cache_hint"]
        ir = self.ir(f)
        self.assertEqual(silicon.inline_asm(ir), [("createpolicy.fractional.L2::evict_last.b64", f.entry)])
        with self.assertRaisesRegex(MappingError, "inline asm without"):
            silicon.inline_asm(ir.replace(silicon.INLINE_ASM_MARK, "; "))

    def test_a_kernel_llvm_refuses_costs_its_own_entry_only(self):
        good = FORMS["cp.async.bulk.tensor/1d.shared_cta.global.tile"]
        # valid on sm_100a only: LLVM ends the process ("Cannot select") when asked for it at sm_90
        bad = FORMS["cp.async.bulk.tensor/1d.shared_cluster.global.tile/cta_group_1"]
        a = argparse.Namespace(frontend="llvm-22", ptx=PTX, max_entries=0, jobs=1, quiet=True)
        with tempfile.TemporaryDirectory() as out:
            with open(os.devnull, "w") as sink:
                rc = silicon.write_modules(a, [good, bad], {good.id: [], bad.id: []}, TARGET, out, write_file, ROOT,
                                           stream=sink)
            with open(os.path.join(out, "index.json")) as fh:
                doc = json.load(fh)
        self.assertEqual(rc, 0)
        self.assertEqual(doc["modules"], {"cp.async.bulk.tensor.ptx": [good.entry]})
        self.assertEqual(doc["not_written"][bad.id]["kind"], silicon.REFUSED)
        self.assertIn("Cannot select", doc["not_written"][bad.id]["reason"])
        self.assertEqual(doc["frontend"]["stats"]["modules_that_died"], 1)


class BadInputTest(unittest.TestCase):
    def test_a_frontend_that_is_not_llvm(self):
        with tempfile.TemporaryDirectory() as out:
            rc, err = _modules(out, ["--frontend", "gcc-1"])
        self.assertEqual(rc, 2)
        self.assertIn("unknown front-end 'gcc-1'", err)

    def test_not_installed_names_the_install_command(self):
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            r = subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "modules", "--target", TARGET, "--ptx",
                                PTX, "--out", out, "--frontend", "llvm-22"], capture_output=True, text=True,
                               cwd=ROOT, env=dict(os.environ, PTXCTS_TOOLCHAIN_CACHE=cache))
        self.assertEqual(r.returncode, 2)
        self.assertIn("./ptxcts frontend install llvm-22", r.stderr)


if __name__ == "__main__":
    main(None if frontend.installed_dir("llvm-22") else
         "skipped: front-end llvm-22 is not installed (./ptxcts setup, or ./ptxcts frontend install llvm-22)")
