"""CTest toolchains.drift: `./ptxcts toolchains drift` on a small candidate set.

With the installed toolkit's ptxas (CUDA 13.0) on cp.async.bulk.prefetch at sm_90: every spelling ptxas accepts is
one the model knows (or a token ptxas ignores everywhere), exit 0. The same run judged as if the model lacked
`.L2::cache_hint` (--forget) must report the hinted spellings as unknown and exit 1: the detector's failing case.
A path that does not exist, or a file that is not a ptxas, is a usage error (exit 2) naming it; a script that runs
the ptxas binary (a machine's /usr/local/bin/ptxas wrapper) is read through to it (ptxas.binary_of). A spelling that
kills ptxas is reported as a crash of the toolchain and not tried again at the later 'a' targets; a line refused for
its own shape is refused everywhere (run.refused_everywhere), one whose message names a target or a version is not.
"""
import json
import os
import tempfile
import types
import unittest

from framework.toolchains import resolve, system_ptxas
from framework.toolchains import ToolchainError
from toolchains.drift.ptxas import binary_of, ptxas_tokens
from toolchains.drift.run import refused_everywhere, run
from toolchains.tests.drift_cli import drift, not_a_ptxas

SMALL = ["--family", "cp.async.bulk.prefetch", "--target", "sm_90"]


class UsageErrors(unittest.TestCase):
    def test_missing_path_is_a_usage_error_naming_it(self):
        r = drift("/nonexistent/bin/ptxas")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("/nonexistent/bin/ptxas", r.stderr)

    def test_a_file_that_is_not_ptxas_is_a_usage_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            fake = not_a_ptxas(d)
            r = drift(fake)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(fake, r.stderr)

    def test_unknown_family_is_a_usage_error(self):
        r = drift("13.0", "--family", "cp.async.nonsense")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cp.async.nonsense", r.stderr)


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class SmallSet(unittest.TestCase):
    def test_model_knows_what_13_0_accepts_on_the_prefetch(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "drift.json")
            r = drift(system_ptxas(), *SMALL, "--json", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("unknown to the model: none", r.stdout)
            with open(out) as f:
                report = json.load(f)
            verdicts = {s["verdict"] for s in report["spellings"]}
            self.assertIn("modelled", verdicts, "the seeds themselves must be accepted and known")
            self.assertNotIn("unknown", verdicts)

    def test_forgotten_qualifier_is_reported_unknown(self):
        r = drift(system_ptxas(), *SMALL, "--forget", ".L2::cache_hint")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("unknown to the model and not reviewed", r.stdout)
        self.assertIn("cp.async.bulk.prefetch.L2.global.L2::cache_hint", r.stdout)


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class WrapperScripts(unittest.TestCase):
    def test_a_script_that_runs_ptxas_is_read_through_to_the_binary(self):
        real = binary_of(system_ptxas())
        with tempfile.TemporaryDirectory() as d:
            outer, inner = os.path.join(d, "ptxas"), os.path.join(d, "inner", "ptxas")
            os.makedirs(os.path.dirname(inner))
            for path, target in ((inner, real), (outer, inner)):   # a wrapper of a wrapper
                with open(path, "w") as f:
                    f.write(f'#!/bin/sh\nexec {target} "$@"\n')
                os.chmod(path, 0o755)
            self.assertEqual(binary_of(outer), real)
            self.assertEqual(ptxas_tokens(outer), ptxas_tokens(real))
            self.assertIn(".xor", ptxas_tokens(outer))

    def test_a_script_naming_no_ptxas_binary_is_refused_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            fake = not_a_ptxas(d)
            with self.assertRaises(ToolchainError) as e:
                ptxas_tokens(fake)
            self.assertIn(fake, str(e.exception))
            self.assertIn("not a ptxas binary", str(e.exception))


class RefusedEverywhere(unittest.TestCase):
    def test_a_line_refused_for_its_own_shape(self):
        self.assertTrue(refused_everywhere(["State space incorrect for instruction 'cp.async'",
                                            "Multiple .load_mode modifiers specified"]))

    def test_a_message_naming_a_target_a_feature_or_a_version_is_tried_everywhere(self):
        for m in ("Illegal modifier '.x' for instruction 'cp.async.bulk', for arch 'sm_90a'",
                  "Feature '.multicast::cluster::32b' not supported on .target 'sm_90a'",
                  "Feature 'x' requires .target sm_100 or higher", "crash: ptxas killed by signal 11",
                  "Arguments mismatch for instruction 'cp.async.bulk'"):
            self.assertFalse(refused_everywhere(["State space incorrect for instruction 'cp.async'", m]), m)
        self.assertFalse(refused_everywhere([]))


# A swap of the prefetch seed's qualifiers: a candidate of stage 1 only (no probe holds it).
MARK = "cp.async.bulk.prefetch.global.L2 [%g_src], %size;"


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class CrashesOfPtxas(unittest.TestCase):
    def test_a_spelling_that_kills_ptxas_is_reported_and_set_aside(self):
        real = resolve(system_ptxas())
        with tempfile.TemporaryDirectory() as d:
            seen = os.path.join(d, "seen")
            wrapper = os.path.join(d, "ptxas")
            with open(wrapper, "w") as f:   # the real ptxas, but killed by SIGSEGV on a module holding MARK
                f.write(f"""#!/bin/sh
for a; do case "$a" in *.ptx) m=$a;; -arch=*) arch=$a;; esac; done
if [ -n "$m" ] && grep -qF '{MARK}' "$m"; then echo "$arch" >> '{seen}'; kill -SEGV $$; fi
exec '{real.ptxas}' "$@"
""")
            os.chmod(wrapper, 0o755)
            tc = types.SimpleNamespace(name=real.name, ptxas=wrapper, description=real.description)
            report = run(tc, ["cp.async.bulk.prefetch"], ["sm_90a", "sm_100a"], log=open(os.devnull, "w"))
            with open(seen) as f:
                archs = set(f.read().split())
        # beside MARK, the spellings that kill ptxas 13.0 itself (a .cc on the prefetch: results/drift/README.md)
        crashes = {c["spelling"]: c["target"] for c in report["crashes"]}
        self.assertEqual(crashes.get(MARK), "sm_90a", sorted(crashes))
        self.assertEqual(archs, {"-arch=sm_90a"}, "the crashing line was assembled again at a later 'a' target")
        self.assertNotIn(MARK, {r["spelling"] for r in report["spellings"]})
        self.assertIn("modelled", {r["verdict"] for r in report["spellings"]})


if __name__ == "__main__":
    unittest.main()
