"""The diagnostics parser on ptxas's real output formats."""
import unittest

from framework.toolchains import diagnostics as D

SAMPLE = """ptxas /tmp/x/m.ptx, line 12; error   : Argument 2 of instruction 'cp.async': unexpected value '4', expected to be 16
ptxas /tmp/x/m.ptx, line 25; warning : Advisory: '.multicast::cluster' modifier on instruction 'cp.async.bulk{.tensor}' should be used on .target 'sm_90a'
ptxas /tmp/x/m.ptx, line 33; fatal   : Parsing error near '4': syntax error
ptxas error   : Entry function 'k_0123456789ab' uses too much shared data (0x493e0 bytes, 0xc000 max)
ptxas fatal   : Ptx assembly aborted due to errors
"""


class ParseTest(unittest.TestCase):
    def test_every_kind_of_line(self):
        ds = D.parse(SAMPLE)
        self.assertEqual([(d.severity, d.line) for d in ds],
                         [("error", 12), ("warning", 25), ("fatal", 33), ("error", None), ("fatal", None)])
        self.assertEqual(ds[0].message, "Argument 2 of instruction 'cp.async': unexpected value '4', expected to be 16")
        self.assertTrue(ds[0].rejects and ds[2].rejects and ds[3].rejects)
        self.assertFalse(ds[1].rejects, "a warning is not a rejection")
        self.assertTrue(D.is_abort_notice(ds[4]))
        self.assertFalse(D.is_abort_notice(ds[2]))
        self.assertEqual(D.first_fatal_line(ds), 33)

    def test_file_name_with_comma_and_spaces(self):
        d = D.parse("ptxas /tmp/a, b/m x.ptx, line 7; error   : Unknown modifier '.zz'")[0]
        self.assertEqual((d.severity, d.line, d.message), ("error", 7, "Unknown modifier '.zz'"))

    def test_other_output_is_kept_as_info(self):
        ds = D.parse("ptxas info    : Compiling entry function 'k' for 'sm_90'\nsomething else\n")
        self.assertEqual([d.severity for d in ds], ["info", "info"])
        self.assertFalse(any(d.rejects for d in ds))


if __name__ == "__main__":
    unittest.main()
