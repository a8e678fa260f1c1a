# tm_block_copies_test — no transactional program calls a libitm block copy
# between two transactional regions (_ITM_memcpyRtWt, _ITM_memmoveRtWt and
# their aR/aW variants). ml_wt restarts such a copy on every attempt when its
# source and destination share an ownership record, which depends on where the
# stack and the allocator's blocks happen to lie: the transactional counts of
# a run at one thread would then change from run to run
# (docs/stamp-fidelity.md, "Block copies inside transactions").
# Usage: tm_block_copies_test.py BIN_DIR (the build's bin/).
import os
import re
import subprocess
import sys
import unittest

BIN_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else None
# Source transactional (Rt, RtaR, RtaW) and destination transactional (Wt, WtaR, WtaW).
BLOCK_COPY = re.compile(r"^_ITM_mem(cpy|move)Rt(aR|aW)?Wt(aR|aW)?$")


def imported_symbols(path):
    out = subprocess.run(["nm", "-D", "--undefined-only", path], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def transactional_programs(bin_dir):
    """{name: imported symbols} of the executables in bin_dir that use libitm."""
    programs = {}
    for name in sorted(os.listdir(bin_dir)):
        path = os.path.join(bin_dir, name)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            continue
        symbols = imported_symbols(path)
        if "_ITM_beginTransaction" in symbols:
            programs[name] = symbols
    return programs


class BlockCopies(unittest.TestCase):
    def test_the_pattern_names_exactly_the_transactional_copies(self):
        for name in ("_ITM_memcpyRtWt", "_ITM_memmoveRtWt", "_ITM_memcpyRtaRWtaW", "_ITM_memmoveRtaWWt"):
            self.assertRegex(name, BLOCK_COPY)
        for name in ("_ITM_memcpyRnWt", "_ITM_memcpyRtWn", "_ITM_memsetW", "_ITM_RU8"):
            self.assertNotRegex(name, BLOCK_COPY)

    def test_no_transactional_program_copies_a_block_between_transactional_regions(self):
        self.assertTrue(BIN_DIR and os.path.isdir(BIN_DIR), f"no bin directory: {BIN_DIR}")
        programs = transactional_programs(BIN_DIR)
        # The STAMP apps and intset are transactional: the scan must see them.
        self.assertIn("stamp", programs)
        self.assertIn("intset", programs)
        for name, symbols in programs.items():
            copies = sorted(s for s in symbols if BLOCK_COPY.match(s))
            self.assertEqual(copies, [], f"{name} calls {', '.join(copies)}: copy the shared "
                             "structure field by field inside the transaction")


if __name__ == "__main__":
    unittest.main()
