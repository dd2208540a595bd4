"""The result document: write_run round trip, JUnit XML, and rejection of malformed documents."""
import json
import os
import unittest
import xml.etree.ElementTree as ET

from framework.documents import schema, write_run
from framework.documents.errors import InputError

from .common import RUNS, TempDirTest, cli, line_containing


def fixture(name):
    with open(os.path.join(RUNS, name, "results.json"), encoding="utf-8") as f:
        return json.load(f)


class WriteRun(TempDirTest):
    def test_round_trip_and_junit(self):
        doc = fixture("h100/shard-0")
        out = os.path.join(self.tmp, "run")
        path = write_run(out, doc)
        # a version-1 document is written as the current version, otherwise unchanged
        self.assertEqual(schema.load(path), dict(schema.load(os.path.join(RUNS, "h100/shard-0")),
                                                 version=schema.VERSION))
        # write_run is deterministic: the same document gives the same bytes
        with open(path, "rb") as f:
            first = f.read()
        write_run(out, doc)
        with open(path, "rb") as f:
            self.assertEqual(first, f.read())

        root = ET.parse(os.path.join(out, "junit.xml")).getroot()
        cases = root.findall("./testsuite/testcase")
        self.assertEqual(len(cases), len(doc["cases"]))
        self.assertEqual(int(root.get("tests")), len(doc["cases"]))
        by_class = {}
        for c in doc["cases"]:
            by_class[c["class"]] = by_class.get(c["class"], 0) + 1
        self.assertEqual(int(root.get("failures")), by_class.get("fail", 0) + by_class.get("compile_error", 0))
        self.assertEqual(int(root.get("errors")), by_class.get("crash", 0) + by_class.get("timeout", 0))
        self.assertEqual(int(root.get("skipped")), by_class.get("not_supported", 0) + by_class.get("skipped", 0))
        failed = [tc for tc in cases if tc.find("failure") is not None]
        self.assertEqual(len(failed), by_class.get("fail", 0))
        for tc in failed:  # the replay command travels with each failure
            self.assertIn("replay: ./ptxcts run --case", tc.find("failure").text)
        # a spec_divergence is a passed testcase that says what diverged
        shard1 = fixture("h100/shard-1")
        write_run(out, shard1)
        root1 = ET.parse(os.path.join(out, "junit.xml")).getroot()
        div = [tc for tc in root1.iter("testcase") if tc.find("system-out") is not None]
        self.assertEqual(len(div), sum(c["class"] == "spec_divergence" for c in shard1["cases"]))
        self.assertTrue(div[0].find("system-out").text.startswith("spec_divergence: matches policy"))
        props = {p.get("name"): p.get("value") for p in root.find("./testsuite/properties")}
        self.assertEqual(props["device.sm"], "sm_90")
        self.assertEqual(props["shard"], "0/3")

    def test_write_run_rejects_a_bad_document_and_writes_nothing(self):
        doc = fixture("compile")
        doc["cases"][0]["class"] = "passed"
        out = os.path.join(self.tmp, "bad")
        with self.assertRaises(InputError) as e:
            write_run(out, doc)
        self.assertIn("cases[0].class", str(e.exception))
        self.assertFalse(os.path.exists(os.path.join(out, "results.json")))


class Validation(TempDirTest):
    def bad(self, edit, needle_field, needle_text=None):
        """Edit a copy of the compile fixture; validate must fail with exit 3 naming the field (and the line)."""
        run = self.copy_run("compile")
        path = os.path.join(run, "results.json")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(edit(text))
        code, out, err = cli("validate", run)
        self.assertEqual(code, 3, err)
        self.assertIn(needle_field, err)
        if needle_text:
            self.assertIn(f"{path}:{line_containing(path, needle_text)}:", err)
        return err

    def test_fixtures_are_valid(self):
        code, out, err = cli("validate", RUNS)
        self.assertEqual(code, 0, err)
        documents = sum("results.json" in files for _, _, files in os.walk(RUNS))
        self.assertGreaterEqual(documents, 6)   # compile, 3 shards of the H100, its rerun, the H200
        self.assertEqual(out.count(": valid"), documents)

    def test_unknown_version_rejected(self):
        err = self.bad(lambda t: t.replace('"version": 1', '"version": 3', 1), "version", '"version": 3')
        self.assertIn("version 3 is not known", err)

    def test_unknown_class_rejected_with_line(self):
        needle = "cp_size_16/L2_128B@sm_90.ptx78"
        def edit(text):
            return "\n".join(l.replace('"class": "pass"', '"class": "passing"') if needle in l else l
                             for l in text.split("\n"))
        err = self.bad(edit, ".class", needle)
        self.assertIn("'passing' is not a result class", err)

    def test_compile_id_must_match_its_fields(self):
        err = self.bad(lambda t: t.replace("cp_size_4@sm_80.ptx70", "cp_size_4@sm_80.ptx71", 1), ".id",
                       "cp_size_4@sm_80.ptx71")
        self.assertIn("expected 'cp.async/ca.shared.global/cp_size_4@sm_80.ptx70'", err)

    def test_not_supported_needs_a_reason(self):
        self.bad(lambda t: t.replace('"message": "ptxas 13.0.88 knows PTX ISA up to 9.0", ', ""), "needs a 'message'")

    def test_device_must_be_null_for_compile(self):
        self.bad(lambda t: t.replace('"device": null', '"device": {"name": "x", "sm": "sm_90", "cc": "9.0"}'),
                 "device")

    def test_an_integer_of_thousands_of_digits_names_file_line_and_field(self):
        # Python's int() reads at most 4300 digits: past that json raises a bare ValueError (was exit 70)
        err = self.bad(lambda t: t.replace('"seed": null', '"seed": ' + "9" * 5000, 1), "seed: an integer of 5000 digits",
                       '"seed": 9999')

    def test_a_run_id_that_cannot_name_a_folder(self):
        err = self.bad(lambda t: t.replace('"run_id": "2026-11-22T18-00-00Z-compile"', '"run_id": "' + "r" * 201 + '"'),
                       "run_id: 201 characters: a run ID names a folder, at most 200")
        self.assertNotIn("r" * 201, err.replace(self.tmp, ""))

    def test_a_results_json_that_is_a_folder_is_named(self):
        run = os.path.join(self.tmp, "run")
        os.makedirs(os.path.join(run, "results.json"))
        code, _, err = cli("validate", run)
        self.assertEqual(code, 2, err)
        self.assertIn(f"{run}/results.json: is a folder, not a run's document", err)

    def test_duplicate_key_in_one_run(self):
        run = self.copy_run("compile")
        self.edit_json(os.path.join(run, "results.json"), lambda d: d["cases"].append(dict(d["cases"][0])))
        code, _, err = cli("validate", run)
        self.assertEqual(code, 3)
        self.assertIn("a run has each key once", err)


if __name__ == "__main__":
    unittest.main()
