"""The verbs' shared argument parser (ptxcts_gen.arguments) and the checks of a path the user gives
(ptxcts_gen.pathcheck): each refusal a usage error naming the option and the value."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest

from ptxcts_gen import pathcheck
from ptxcts_gen.arguments import ArgumentParser, ranged


class Paths(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-pathcheck-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.file = os.path.join(self.tmp, "afile")
        with open(self.file, "w") as f:
            f.write("x\n")
        self.dir = os.path.join(self.tmp, "d")
        os.mkdir(self.dir)
        self.dangle = os.path.join(self.tmp, "dangle")
        os.symlink(os.path.join(self.tmp, "missing"), self.dangle)
        self.fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(self.fifo)

    def test_blank_nul_and_links_to_nowhere_are_refused_for_every_kind(self):
        for kind in pathcheck.KINDS:
            with self.subTest(kind=kind):
                self.assertEqual(pathcheck.problem(" ", kind), "an empty name")
                self.assertIn("NUL", pathcheck.problem("a\0b", kind))
                if kind != pathcheck.PROGRAM:
                    self.assertIn("a link that leads nowhere", pathcheck.problem(self.dangle, kind))

    def test_each_kind_refuses_what_it_cannot_use(self):
        P = pathcheck
        for value, kind, wrong in ((os.path.join(self.tmp, "none"), P.FILE, "no such file"),
                                   (self.dir, P.FILE, "is a folder, not a file"),
                                   (self.fifo, P.FILE, "is a FIFO, not a file"),
                                   ("/dev/null", P.NEW_FILE, "is a device, not a file"),
                                   (self.file, P.FOLDER, "is a file, not a folder"),
                                   (self.file, P.RESUME, "is a file, not a folder"),
                                   (os.path.join(self.tmp, "none"), P.RESUME, P.NO_RUN_THERE),
                                   (os.path.join(self.tmp, "none"), P.INPUT, "no such file or folder"),
                                   (self.fifo, P.NEW_ANY, "is a FIFO, not a file"),
                                   (os.path.join(self.file, "x"), P.NEW_FOLDER,
                                    f"{self.file} is a file, not a folder, so nothing can be under it"),
                                   ("no-such-program-here", P.PROGRAM, "not found on PATH"),
                                   (self.file, P.PROGRAM, "not executable")):
            with self.subTest(value=value, kind=kind):
                self.assertEqual(pathcheck.problem(value, kind), wrong)

    def test_a_missing_resume_folder_says_to_start_afresh(self):
        # a run stopped before it judged anything leaves no folder: the way on is the same command with --out
        self.assertTrue(pathcheck.NO_RUN_THERE.startswith("no such folder"))
        self.assertIn("start the run afresh", pathcheck.NO_RUN_THERE)
        self.assertIn("--out in place of --resume", pathcheck.NO_RUN_THERE)

    def test_what_can_be_used_passes(self):
        P = pathcheck
        for value, kind in ((self.file, P.FILE), (self.dir, P.FOLDER), (self.dir, P.RESUME), (self.dir, P.INPUT), (self.file, P.INPUT),
                            (os.path.join(self.tmp, "new", "deeper"), P.NEW_FOLDER), (self.dir, P.NEW_ANY),
                            (os.path.join(self.tmp, "new.json"), P.NEW_FILE), ("sh", P.PROGRAM)):
            with self.subTest(value=value, kind=kind):
                self.assertIsNone(pathcheck.problem(value, kind))


class Parser(unittest.TestCase):
    def refused(self, parser, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as cm:
            parser.parse_args(argv)
        self.assertEqual(cm.exception.code, 2)
        return err.getvalue()

    def test_a_path_option_is_checked_as_it_is_parsed(self):
        p = ArgumentParser(prog="t")
        p.add_argument("--waivers", path=pathcheck.FILE)
        p.add_argument("--baselines", path=pathcheck.FOLDER, path_also=("none",))
        self.assertIn("--waivers /nonexistent/w.toml: no such file", self.refused(p, ["--waivers", "/nonexistent/w.toml"]))
        self.assertIn("--waivers ' ': an empty name", self.refused(p, ["--waivers", " "]))
        self.assertEqual(p.parse_args(["--baselines", "none"]).baselines, "none")

    def test_a_path_option_of_a_group_is_checked_too(self):
        p = ArgumentParser(prog="t")
        g = p.add_mutually_exclusive_group()
        g.add_argument("--kube", path=pathcheck.NEW_FILE)
        self.assertIn("--kube /: is a folder, not a file", self.refused(p, ["--kube", "/"]))

    def test_a_repeatable_options_value_given_twice_is_refused(self):
        p = ArgumentParser(prog="t")
        p.add_argument("--family", action="append", default=[])
        self.assertEqual(p.parse_args(["--family", "a", "--family", "b"]).family, ["a", "b"])
        self.assertIn("--family 'a': given twice", self.refused(p, ["--family", "a", "--family", "a"]))

    def test_a_ranged_number_refuses_what_is_out_of_range_or_not_finite(self):
        p = ArgumentParser(prog="t")
        p.add_argument("--min-kill", type=ranged(float, 0, 100))
        p.add_argument("--jobs", type=ranged(int, 1))
        for argv, wrong in ((["--min-kill", "nan"], "'nan': expected a number from 0 to 100"),
                            (["--min-kill", "150"], "'150': expected a number from 0 to 100"),
                            (["--min-kill", "inf"], "'inf'"), (["--jobs", "0"], "'0': expected an integer of 1 or more"),
                            (["--jobs", "1.5"], "'1.5'")):
            with self.subTest(argv=argv):
                self.assertIn(wrong, self.refused(p, argv))
        self.assertEqual(p.parse_args(["--min-kill", "99.5", "--jobs", "3"]).jobs, 3)

    def test_an_argument_that_is_not_utf8_is_refused_naming_its_option(self):
        # bytes that are not UTF-8 arrive as lone surrogates: a document or page written with them ends the verb
        p = ArgumentParser(prog="t")
        p.add_argument("--title")
        self.assertIn("t: error: --title 'caf\\udce9': not UTF-8 text (byte 0xE9 at offset 3)",
                      self.refused(p, ["--title", "caf\udce9"]))
        self.assertIn("'--title=caf\\udce9': not UTF-8 text (byte 0xE9 at offset 11)",
                      self.refused(p, ["--title=caf\udce9"]))
        self.assertEqual(p.parse_args(["--title", "caf\u00e9 \U0001F600"]).title, "caf\u00e9 \U0001F600")


class WorkingFolder(unittest.TestCase):
    def test_a_relative_path_in_a_removed_working_folder_names_the_folder(self):
        tmp = tempfile.mkdtemp(prefix="ptxcts-pathcheck-")
        self.addCleanup(shutil.rmtree, tmp)
        gone = os.path.join(tmp, "gone")
        os.mkdir(gone)
        back = os.getcwd()
        os.chdir(gone)
        try:
            os.rmdir(gone)
            rel, absolute = pathcheck.problem("o", pathcheck.NEW_FOLDER), pathcheck.problem(tmp, pathcheck.FOLDER)
        finally:
            os.chdir(back)
        self.assertTrue(rel.startswith(f"the working folder {gone} no longer exists (removed under this command)"), rel)
        self.assertIsNone(absolute)   # an absolute path means what it says
        self.assertIsNone(pathcheck.gone_cwd())


if __name__ == "__main__":
    unittest.main()
