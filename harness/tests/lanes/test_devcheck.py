#!/usr/bin/env python3
"""`./ptxcts devcheck` on the CPU, over a stand-in tree (a git repository whose ./ptxcts answers `all` and `test`
as the real ones leave their files: results/<stamp>-all.tsv, the runs with results.json and gate.json, ctest's
JUnit file) and a stand-in nvidia-smi. The check must run both in a clone of HEAD, print one verdict line naming
device, driver and times, and be GREEN only when all exited 0, every gate passed, a run-tier run was among them and
no test failed; without a GPU it says so and exits 2. Run in two parts (--part all, --part test), each part's
verdict is its own, never the whole, and --join gives the whole verdict only for two parts of one tree and device."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import ROOT, StandInTest  # noqa: E402


STAND_IN = r'''#!/usr/bin/env python3
import json, os, sys
verb, args = sys.argv[1], sys.argv[2:]
here = os.path.dirname(os.path.abspath(__file__))
fault = open(os.path.join(here, "FAULT")).read().strip() if os.path.exists(os.path.join(here, "FAULT")) else ""
if verb == "all":
    os.makedirs(os.path.join(here, "results"), exist_ok=True)
    # the run tier exits 1 (it judged findings, which its gate finds reviewed); "tier": it did not finish (exit 2)
    rows = ["kind\tname\tseconds\texit", "step\tsetup\t1.0\t0", f"step\trun\t30.5\t{2 if fault == 'tier' else 1}"]
    for run, tier, gate in (("results/S-compile", "compile", 0), ("results/S-run", "run", 1 if fault == "gate" else 0),
                            ("results/S-lower", "lower", 0)):
        os.makedirs(os.path.join(here, run))
        cases = [{"class": "pass"}] * 3 + [{"class": "spec_divergence"}]
        json.dump({"tier": tier, "device": {"name": "Stand-in GPU"} if tier == "run" else None,
                   "toolchain": {"name": "13.0"}, "cases": cases}, open(os.path.join(here, run, "results.json"), "w"))
        if tier != "lower":   # the lowering tier's gate writes no gate.json: its exit is all.tsv's
            json.dump({"exit": gate, "counts": {"unchanged": 4}}, open(os.path.join(here, run, "gate.json"), "w"))
        rows.append(f"gate\t{run}\t\t{gate}")
    open(os.path.join(here, "results", "S-all.tsv"), "w").write("\n".join(rows) + "\n")
    print("all: PTXCTS_BUILD=" + os.environ.get("PTXCTS_BUILD", "(unset)"))
    print("all: done")
    sys.exit(1 if fault == "gate" else 0)
if verb == "test":
    junit = args[args.index("--output-junit") + 1]
    bad = '<failure message="x"/>' if fault == "test" else ""
    open(junit, "w").write('<testsuite><testcase name="run.cp.async.cubin"/><testcase name="frontend.llvm">'
                           '<skipped/></testcase><testcase name="selftest.gpu_completion">' + bad + '</testcase>'
                           '</testsuite>')
    sys.exit(8 if fault == "test" else 0)
sys.exit(2)
'''
SMI = '#!/bin/sh\necho "0, Stand-in GPU, 580.159.04"\n'


class DevCheck(StandInTest):
    prefix = "ptxcts-devcheck-test-"

    def setUp(self):
        super().setUp()
        self.tree = os.path.join(self.tmp, "tree")
        os.makedirs(self.tree)
        self.script(os.path.join(self.tree, "ptxcts"), STAND_IN)
        git = ["git", "-C", self.tree, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", self.tree], check=True)
        subprocess.run(git + ["add", "ptxcts"], check=True)
        subprocess.run(git + ["commit", "-qm", "stand-in"], check=True)
        self.smi = os.path.join(self.tmp, "nvidia-smi")
        self.script(self.smi, SMI)

    def devcheck(self, *args, smi=None, out="out"):
        out = os.path.join(self.tmp, out)
        env = dict(os.environ, PTXCTS_ROOT=self.tree, PTXCTS_NVIDIA_SMI=smi or self.smi,
                   PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]))
        env.pop("PTXCTS_WHEELS", None)
        p = subprocess.run([sys.executable, "-m", "devcheck", "--out", out, *args], env=env, capture_output=True,
                           text=True, timeout=120)
        doc = None
        if os.path.isfile(os.path.join(out, "devcheck.json")):
            with open(os.path.join(out, "devcheck.json")) as f:
                doc = json.load(f)
        return p, doc

    def test_the_copy_builds_in_its_own_folder_not_the_checked_trees(self):
        # ./ptxcts sets PTXCTS_ROOT and PTXCTS_BUILD for its verbs: the copy's steps must not inherit them
        os.environ["PTXCTS_BUILD"] = os.path.join(self.tree, "build")
        try:
            p, doc = self.devcheck()
        finally:
            del os.environ["PTXCTS_BUILD"]
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("[all] all: PTXCTS_BUILD=(unset)", p.stdout)

    def commit_fault(self, what):
        with open(os.path.join(self.tree, "FAULT"), "w") as f:
            f.write(what)
        git = ["git", "-C", self.tree, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(git + ["add", "FAULT"], check=True)
        subprocess.run(git + ["commit", "-qm", "fault"], check=True)

    def test_green_names_device_driver_and_times(self):
        p, doc = self.devcheck()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        last = [line for line in p.stdout.splitlines() if line.startswith("devcheck: GREEN")]
        self.assertEqual(len(last), 1, p.stdout)
        self.assertIn("1 x Stand-in GPU, driver 580.159.04", last[0])
        self.assertIn("3/3 gates PASS", last[0])
        self.assertIn("test 2/2 passed (1 skipped)", last[0])
        self.assertEqual(doc["runs"][1]["classes"], {"pass": 3, "spec_divergence": 1})
        self.assertEqual(doc["test"]["tests"]["skipped"], ["frontend.llvm"])
        self.assertIn("[all] all: done", p.stdout)

    def test_a_failed_gate_is_red_and_says_which(self):
        self.commit_fault("gate")
        p, doc = self.devcheck()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertFalse(doc["green"])
        self.assertIn("gate of results/S-run exited 1 (regressions)", doc["verdict_line"])

    def test_a_tier_that_did_not_finish_is_red(self):
        self.commit_fault("tier")
        p, doc = self.devcheck()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("step run exited 2", doc["verdict_line"])

    def test_a_failed_test_is_red_and_names_it(self):
        self.commit_fault("test")
        p, doc = self.devcheck()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("selftest.gpu_completion", doc["verdict_line"])
        self.assertIn("devcheck: RED", p.stdout)

    def test_it_checks_head_not_the_uncommitted_work_tree(self):
        with open(os.path.join(self.tree, "FAULT"), "w") as f:   # untracked: not in a clone of HEAD
            f.write("test")
        p, doc = self.devcheck()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("a clone of HEAD", doc["source"])
        p, doc = self.devcheck("--worktree", out="out-worktree")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("the work tree as it is, git tree", doc["source"])

    def test_a_work_tree_check_names_the_tree_by_its_content_not_by_head(self):
        # a device copy may carry a stale .git: the record names the files' own git tree, which a clean work tree
        # shares with its commit (COMMIT^{tree}), and changes with any file
        tree = subprocess.run(["git", "-C", self.tree, "rev-parse", "--short=12", "HEAD^{tree}"], check=True,
                              capture_output=True, text=True).stdout.strip()
        p, doc = self.devcheck("--worktree", out="out-clean")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(f"git tree {tree} ", doc["source"])
        with open(os.path.join(self.tree, "EXTRA"), "w") as f:
            f.write("not committed")
        p, doc = self.devcheck("--worktree", out="out-extra")
        self.assertNotIn(f"git tree {tree} ", doc["source"])

    def test_a_work_tree_copy_is_a_checkout_of_what_it_copied(self):
        # tests that list the tree through git (layout.document_paths) must see the copy as they see a clone
        sys.path.insert(0, os.path.join(ROOT, "harness"))
        from devcheck import copy as copymod
        with open(os.path.join(self.tree, ".gitignore"), "w") as f:
            f.write("ignored.txt\nkept/\n")
        os.makedirs(os.path.join(self.tree, "kept"))
        for name in ("untracked.txt", "ignored.txt", "kept/forced.txt"):
            with open(os.path.join(self.tree, name), "w") as f:
                f.write(name)
        # a committed run folder: tracked although .gitignore refuses its folder (git add -f)
        subprocess.run(["git", "-C", self.tree, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-f",
                        "kept/forced.txt"], check=True)
        dest = os.path.join(self.tmp, "copy")
        os.makedirs(dest)
        copymod.fresh_copy(self.tree, dest, worktree=True)
        listed = subprocess.run(["git", "-C", dest, "ls-files"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(sorted(listed.split()), [".gitignore", "kept/forced.txt", "ptxcts", "untracked.txt"])
        self.assertEqual(subprocess.run(["git", "-C", dest, "status", "--porcelain"], capture_output=True,
                                        text=True, check=True).stdout, "")

    def parts(self):
        pa, all_doc = self.devcheck("--part", "all", out="part-all")
        pt, test_doc = self.devcheck("--part", "test", out="part-test")
        return (pa, all_doc), (pt, test_doc)

    def test_two_parts_joined_give_the_whole_verdict(self):
        (pa, all_doc), (pt, test_doc) = self.parts()
        self.assertEqual((pa.returncode, pt.returncode), (0, 0), pa.stdout + pt.stdout)
        self.assertEqual((all_doc["parts"], test_doc["parts"]), (["all"], ["test"]))
        self.assertIsNone(all_doc["test"]["tests"])      # each part ran its own step alone
        self.assertEqual(test_doc["runs"], [])
        self.assertIn("devcheck: GREEN (part all only", all_doc["verdict_line"])
        self.assertNotIn("test", all_doc["verdict_line"].split("cores;")[1])   # a part speaks of itself only
        self.assertTrue(test_doc["verdict_line"].endswith("test 2/2 passed (1 skipped) in "
                                                          f"{test_doc['test']['seconds']} s"), test_doc["verdict_line"])
        p, doc = self.devcheck("--join", os.path.join(self.tmp, "part-test"), os.path.join(self.tmp, "part-all"),
                               out="joined")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(doc["verdict_line"].startswith("devcheck: GREEN  1 x Stand-in GPU"), doc["verdict_line"])
        self.assertIn("3/3 gates PASS", doc["verdict_line"])
        self.assertIn("test 2/2 passed (1 skipped)", doc["verdict_line"])

    def test_a_failed_test_part_makes_the_joined_verdict_red(self):
        self.commit_fault("test")
        (pa, _), (pt, test_doc) = self.parts()
        self.assertEqual((pa.returncode, pt.returncode), (0, 1), pa.stdout + pt.stdout)
        p, doc = self.devcheck("--join", os.path.join(self.tmp, "part-all"), os.path.join(self.tmp, "part-test"),
                               out="joined")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("selftest.gpu_completion", doc["verdict_line"])

    def test_parts_of_two_trees_are_not_joined(self):
        self.devcheck("--part", "all", out="part-all")
        self.commit_fault("nothing")   # another commit: another tree
        self.devcheck("--part", "test", out="part-test")
        p, doc = self.devcheck("--join", os.path.join(self.tmp, "part-all"), os.path.join(self.tmp, "part-test"),
                               out="joined")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("the parts differ in their git tree", p.stderr)
        self.assertIsNone(doc)

    def retag(self, folder, **device):
        path = os.path.join(self.tmp, folder, "devcheck.json")
        with open(path) as f:
            doc = json.load(f)
        doc["device"].update(device)
        with open(path, "w") as f:
            json.dump(doc, f)

    def test_parts_from_hosts_of_two_sizes_are_joined_and_two_drivers_are_not(self):
        self.parts()
        self.retag("part-test", cores=64)   # the same GPU and driver on a bigger host
        p, doc = self.devcheck("--join", os.path.join(self.tmp, "part-all"), os.path.join(self.tmp, "part-test"),
                               out="joined")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.retag("part-test", driver="590.10")
        p, _ = self.devcheck("--join", os.path.join(self.tmp, "part-all"), os.path.join(self.tmp, "part-test"),
                             out="joined2")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("the parts differ in their device", p.stderr)
        self.assertIn("590.10", p.stderr)

    def test_two_parts_of_one_kind_are_not_joined(self):
        self.devcheck("--part", "all", out="a1")
        self.devcheck("--part", "all", out="a2")
        p, _ = self.devcheck("--join", os.path.join(self.tmp, "a1"), os.path.join(self.tmp, "a2"), out="joined")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("give one all part and one test part", p.stderr)

    def test_a_folder_without_a_record_is_malformed_input(self):
        self.devcheck("--part", "all", out="part-all")
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        p, _ = self.devcheck("--join", os.path.join(self.tmp, "part-all"), empty, out="joined")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn(f"--join {empty}: no devcheck.json there", p.stderr)

    def test_no_gpu_here_is_a_usage_error(self):
        none = os.path.join(self.tmp, "no-gpu-smi")
        self.script(none, "#!/bin/sh\nexit 9\n")
        p, doc = self.devcheck(smi=none)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("devcheck: no GPU here", p.stderr)
        self.assertIsNone(doc)

    def test_an_out_folder_in_use_is_refused(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        with open(os.path.join(out, "x"), "w") as f:
            f.write("x")
        p, _ = self.devcheck()
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("not an empty folder", p.stderr)


if __name__ == "__main__":
    unittest.main()
