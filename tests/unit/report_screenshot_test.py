# report_screenshot_test — the README's picture of a report's first screen
# (docs/report-first-screen.png) is current: the tables it was drawn from,
# kept beside it, drawn again by this bench give the bottom line kept with it
# (docs/report-first-screen.txt). A change of the report's bottom line, its
# legend or its findings makes it stale: run scripts/report-screenshot --redraw.
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_loader = importlib.machinery.SourceFileLoader("report_screenshot", os.path.join(ROOT, "scripts", "report-screenshot"))
_spec = importlib.util.spec_from_loader("report_screenshot", _loader)
report_screenshot = importlib.util.module_from_spec(_spec)
_loader.exec_module(report_screenshot)
BENCH = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "allocstamp")


class Picture(unittest.TestCase):
    def test_the_kept_tables_give_the_kept_bottom_line(self):
        with open(report_screenshot.TEXT) as f:
            kept = f.read()
        with tempfile.TemporaryDirectory() as scratch:
            folder = report_screenshot.draw(BENCH, report_screenshot.KEPT, scratch, figures_needed=False)
            now = report_screenshot.bottom_line(folder)
        self.assertEqual(now, kept, "docs/report-first-screen.png is stale: run scripts/report-screenshot --redraw")

    def test_the_bottom_line_is_what_the_picture_shows_first(self):
        with open(report_screenshot.TEXT) as f:
            kept = f.read()
        self.assertTrue(kept.startswith("## Bottom line\n\n| workload | threads | jemalloc |"), kept[:200])
        self.assertIn("- vacation-low at 1 thread:", kept)
        self.assertNotIn("![", kept, "the text ends where the figures begin")
        self.assertGreater(os.path.getsize(report_screenshot.PICTURE), 50000)


if __name__ == "__main__":
    unittest.main()
