#!/usr/bin/env python3
"""Tests of the docs runner (doc_blocks.py) on small markdown fixtures: what passes, and each kind of failure.

Environment: DTSIM_SOURCE_DIR (the repository) and DTSIM_BUILD_DIR (the build folder), set by ctest."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402

SOURCE = os.environ["DTSIM_SOURCE_DIR"]
BUILD = os.environ["DTSIM_BUILD_DIR"]
FIXTURES = "tests/docs/fixtures"


class Matching(unittest.TestCase):
    def test_lines_match_exactly_without_ellipsis(self):
        self.assertTrue(doc_blocks.matches(["a", "b"], ["a", "b"]))
        self.assertFalse(doc_blocks.matches(["a", "b"], ["a", "c"]))
        self.assertFalse(doc_blocks.matches(["a"], ["a", "b"]))
        self.assertFalse(doc_blocks.matches(["a.c"], ["abc"]))  # no regular expressions

    def test_ellipsis_in_a_line_matches_text_within_the_line(self):
        self.assertTrue(doc_blocks.matches(["took ... s"], ["took 1.5 s"]))
        self.assertFalse(doc_blocks.matches(["took ... s"], ["took 1.5 ms", "s"]))

    def test_ellipsis_line_matches_any_number_of_lines(self):
        self.assertTrue(doc_blocks.matches(["a", "  ...", "d"], ["a", "b", "c", "d"]))
        self.assertTrue(doc_blocks.matches(["a", "...", "d"], ["a", "d"]))
        self.assertFalse(doc_blocks.matches(["a", "...", "d"], ["a", "b", "e"]))


class Files(unittest.TestCase):
    def test_every_block_of_a_good_document_passes(self):
        self.assertEqual(doc_blocks.check_markdown(SOURCE, BUILD, f"{FIXTURES}/passes.md"), [])

    def test_each_failure_is_reported_with_its_line(self):
        doc_blocks.TIMEOUT_S = 1
        try:
            failures = doc_blocks.check_markdown(SOURCE, BUILD, f"{FIXTURES}/fails.md")
        finally:
            doc_blocks.TIMEOUT_S = 60
        first_lines = [f.split("\n")[0] for f in failures]
        md = f"{FIXTURES}/fails.md"
        self.assertEqual(first_lines, [
            f"{md}:4: output of `echo shown` differs from the docs",
            f"{md}:6: `exit 4` exited 4, expected 0",
            f"{md}:13: output of `echo block` differs from the docs",
            f"{md}:20: the block differs from tests/docs/fixtures/example.toml",
            f"{md}:25: the block names tests/docs/fixtures/missing.toml, which does not exist",
            f"{md}:29: `sleep 2` ran past 1 s; make the example cheaper",
            f"{md}:33: output before the first `$ ` command",
            f"{md}:38: a ```bash block is not run; write ```sh",
        ])
        self.assertIn(" whole\n+block", failures[2])

    def test_an_unclosed_block_is_an_error(self):
        self.assertEqual(doc_blocks.check_markdown(SOURCE, BUILD, f"{FIXTURES}/unclosed.md"),
                         [f"{FIXTURES}/unclosed.md:3: the code block is not closed"])


if __name__ == "__main__":
    unittest.main()
