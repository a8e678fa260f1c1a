# no_shell_test — no source of the harness starts a program through a shell:
# popen(), system() and wordexp() hand a command line to /bin/sh, where a path
# or a user's value (a PATH folder named q'$(touch X)'x) becomes a command.
# Programs are started with an argument vector (model/program_output.h, the
# run executor). A failure names the file, its line and the call.
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SOURCE = (".c", ".cc", ".cpp", ".h", ".hpp", ".inc")
SHELL_CALL = re.compile(r"\b(popen|system|wordexp)\(|\bpopen\b")


def shell_calls(top):
    """(file, line number, text) of every shell call under `top`."""
    found = []
    for folder, _, names in os.walk(os.path.join(ROOT, top)):
        for name in sorted(names):
            if not name.endswith(SOURCE):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if SHELL_CALL.search(line):
                        found.append((os.path.relpath(path, ROOT), number, line.strip()))
    return found


class NoShell(unittest.TestCase):
    def test_the_harness_starts_no_program_through_a_shell(self):
        found = shell_calls("harness")
        self.assertEqual(found, [], "a command line through /bin/sh (use program_output or the executor):\n" +
                         "\n".join(f"  {f}:{n}: {t}" for f, n, t in found))

    def test_the_pattern_finds_each_call(self):
        for line in ["FILE* p = popen(cmd, \"r\");", "std::system(\"ls\");", "::system(cmd.c_str());", "wordexp(s, &w, 0);",
                     "auto f = &::popen;"]:
            self.assertTrue(SHELL_CALL.search(line), line)
        for line in ["fs::filesystem(p)", "the file system (ext4)", "subsystem(x)", "ecosystem"]:
            self.assertFalse(SHELL_CALL.search(line), line)


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
