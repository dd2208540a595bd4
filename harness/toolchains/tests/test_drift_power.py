"""CTest toolchains.drift_power: `./ptxcts toolchains drift NAME --power`, the detector's own power, on a small set.

With the installed toolkit's ptxas (CUDA 13.0) on cp.reduce.async.bulk at sm_90a: hidden from the model (a test
double of its vocabulary, spelling.Model.hiding), `.xor` is rediscovered in every spelling the whole model sees
(exit 0 for it alone); `.f64` is not, and the reason names the family probe that drops it (exit 1). The double
never puts a hidden token back into the candidate pool (unlike --forget). Usage errors exit 2 naming the input.
"""
import json
import os
import tempfile
import unittest

from framework.toolchains import system_ptxas
from toolchains.drift.ptxas import ptxas_tokens, token_pool
from toolchains.drift.spelling import Model
from toolchains.tests import drift_cli

SMALL = ["--family", "cp.reduce.async.bulk", "--target", "sm_90a"]


def drift(*args):
    return drift_cli.drift(*args, timeout=900)   # a power run assembles once per hidden qualifier


class UsageErrors(unittest.TestCase):
    def test_qualifier_without_power_is_a_usage_error(self):
        r = drift("13.0", "--qualifier", ".xor")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--qualifier needs --power", r.stderr)

    def test_power_with_refused_is_a_usage_error(self):
        r = drift("13.0", "--power", "--refused")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--refused", r.stderr)

    @unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
    def test_a_qualifier_the_model_lacks_is_named(self):
        r = drift(system_ptxas(), *SMALL, "--power", "--qualifier", ".nonsense")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(".nonsense", r.stderr)


class TheDouble(unittest.TestCase):
    @unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
    def test_a_hidden_token_is_in_no_spelling_seed_nor_the_pool_unless_ptxas_names_it(self):
        base = Model(["cp.async.bulk.prefetch"])
        hidden = base.hiding([".L2::cache_hint"])
        fam = hidden.families["cp.async.bulk.prefetch"]
        self.assertFalse([k for k in fam["spellings"] if ".L2::cache_hint" in k[1]])
        self.assertFalse([s for s in fam["seeds"] if ".L2::cache_hint" in s[1]])
        self.assertTrue(fam["seeds"])
        self.assertIn(".L2::cache_hint", base.vocabulary())
        with tempfile.TemporaryDirectory() as d:
            silent = os.path.join(d, "ptxas")   # an ELF file whose strings name no qualifier
            with open(silent, "wb") as f:
                f.write(b"\x7fELF" + bytes(60))
            self.assertNotIn(".L2::cache_hint", token_pool(hidden, silent))
            forgot = Model(["cp.async.bulk.prefetch"], [".L2::cache_hint"])
            self.assertIn(".L2::cache_hint", token_pool(forgot, silent))   # --forget puts it back
        # the real ptxas 13.0 names it (.L2::cache_hint among its strings): in the pool once hidden for that alone
        named = ".L2::cache_hint" in ptxas_tokens(system_ptxas())
        self.assertEqual(".L2::cache_hint" in token_pool(hidden, system_ptxas()), named)


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class SmallSet(unittest.TestCase):
    def test_xor_is_rediscovered_and_f64_is_not_with_the_reason(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "power.json")
            r = drift(system_ptxas(), *SMALL, "--power", "--qualifier", ".xor", "--qualifier", ".f64", "--json", out)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            with open(out) as f:
                report = json.load(f)
        rows = {q["qualifier"]: q for q in report["qualifiers"]}
        self.assertGreater(rows[".xor"]["expected"], 0)
        self.assertEqual(rows[".xor"]["rediscovered"], rows[".xor"]["expected"],
                         f"why: {rows['.xor']['reason']}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        self.assertIsNone(rows[".xor"]["reason"])
        self.assertGreater(rows[".f64"]["expected"], 0)
        self.assertLess(rows[".f64"]["rediscovered"], rows[".f64"]["expected"])
        self.assertIn("family probe", rows[".f64"]["reason"])
        self.assertIn(".f64: in the candidate pool", r.stdout)
        self.assertIn("qualifiers rediscovered at least once: 1 of 2", r.stdout)


if __name__ == "__main__":
    unittest.main()
