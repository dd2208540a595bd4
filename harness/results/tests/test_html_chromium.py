"""The report pages in a real headless browser (Debian's chromium): they render, and the numbers in the rendered DOM
equal report.json and the results. Without chromium the test is skipped, saying why: run as a module
(`python3 -m results.tests.test_html_chromium`, as CTest does) it exits 77, CTest's SKIP_RETURN_CODE; under
unittest it is a skip.

The page has no script at all (test_report checks the file; this test checks the rendered DOM), so it reads the
same with JavaScript off; the browser itself is run with scripts on because headless --dump-dom and --screenshot
drive the page through the DevTools protocol and print nothing with scripts disabled."""
import os
import shutil
import struct
import subprocess
import unittest
import zlib

from . import dom
from .common import RUNS, TempDirTest
from .common import raw_docs
from .test_report import build_report, raw_rows, read_pages

SKIP = 77  # CTest SKIP_RETURN_CODE of results.html_chromium
NO_BROWSER = ("no chromium: chromium, chromium-browser or google-chrome on PATH, or PTXCTS_CHROMIUM=/path "
              "(./ptxcts setup installs Debian's chromium)")

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTH, HEIGHT = 1400, 2000


def browser():
    """PTXCTS_CHROMIUM (a path) if set, else the first of BROWSERS on PATH; None if there is none."""
    chosen = os.environ.get("PTXCTS_CHROMIUM")
    if chosen is not None:
        return chosen if os.access(chosen, os.X_OK) else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def png_stats(path):
    """(width, height, distinct byte values of the decompressed image data)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    return size[0], size[1], len(set(zlib.decompress(idat)))


class Chromium(TempDirTest):
    def chromium(self, *args):
        exe = browser()
        if exe is None:
            self.skipTest(NO_BROWSER)
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio",
               f"--user-data-dir={os.path.join(self.tmp, 'profile')}",
               *args]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        self.assertEqual(p.returncode, 0, f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
        return p.stdout

    def test_rendered_page_shows_the_json_numbers(self):
        runs = (os.path.join(RUNS, "compile"), os.path.join(RUNS, "h100/shard-0"), os.path.join(RUNS, "h100/shard-2"))
        out, rep, _ = build_report(self.tmp, *runs)
        url = "file://" + os.path.join(out, "report.html")
        rendered = self.chromium("--dump-dom", url)
        self.assertIn("<tbody>", rendered)  # the browser's own serialization, not the file echoed back
        self.assertNotIn("<script", rendered)
        _, pages = read_pages(out)
        rendered_pages = [self.chromium("--dump-dom", "file://" + os.path.join(out, "families", name))
                          for name in sorted(os.listdir(os.path.join(out, "families")))]
        self.assertEqual(len(rendered_pages), len(pages))
        shown = dom.numbers(rendered, rendered_pages)
        rows, findings = raw_rows(raw_docs(*runs))
        self.assertEqual(shown, dom.expected_from_json(rep, rows, findings))
        self.assertTrue(shown["summary"] and shown["rows"] and shown["groups"] and shown["missing_shards"])

        shot = os.path.join(out, "report.png")
        self.chromium("--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", url)
        width, height, distinct = png_stats(shot)
        self.assertEqual((width, height), (WIDTH, HEIGHT))
        self.assertGreater(distinct, 32, "the screenshot is (nearly) blank: the page did not render")
        keep = os.environ.get("PTXCTS_KEEP_SCREENSHOT")
        if keep:
            shutil.copy(shot, keep)


if __name__ == "__main__":
    if browser() is None:
        print(f"results.html_chromium: SKIPPED: {NO_BROWSER}")
        raise SystemExit(SKIP)
    unittest.main()
