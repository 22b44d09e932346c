#!/usr/bin/env python3
"""Runs the command blocks of README.md and docs/*.md and compares their output (SimGrid's tesh habit).

Usage: doc_blocks.py --source REPO --build BUILD_DIR [FILE.md ...]   (default: README.md and docs/*.md)

Convention (what a writer of the docs needs to know):
- Every ```sh block is run (a ```bash, ```shell or ```console block is an error: write ```sh, so it runs). Each command runs in its own `bash -c`, in a scratch copy of the repository (its
  files, without build folders) made per markdown file; `build` there is the real build folder, so
  ./build/dtsim is the binary under test, and `../shared` is the folder beside the repository when there is
  one. Blocks of one markdown file run in order in the same copy: a later block sees an earlier block's output
  files. `cd` and variables do not carry over from one command to the next.
- A line ending in `\\` continues on the next line. Blank lines and lines starting with `#` are not commands.
- Set-up commands are not run: a command starting with `bash .ci/install-deps` or `cmake` (the README's first
  two lines install and build; CI runs them, .ci/run). The tests run on the build they make. A command that
  names `../shared` is not run when there is no shared/ folder beside the repository (the validation data; the
  validation tests skip then too).
- Output is compared where it is shown, in one of two ways:
  * transcript: in a ```sh block whose commands start with `$ `, the lines after a `$ command` line, up to the
    next `$ `, are that command's expected output;
  * a ```sh block followed (after blank lines only) by a plain ``` block: that block is the expected output of
    the whole sh block, its commands' outputs one after the other.
  Elsewhere only the exit code is checked. Output is stdout and stderr together; trailing spaces and blank
  lines at the end are ignored.
- Tolerance, only where output legitimately varies (wall-clock times, long tables cut short): `...` inside a
  line matches any text within that line; a line that is only `...` matches any number of lines.
- Every command must exit 0, unless its expected output ends with the line `[exit N]`: then it must exit N.
- A command may take at most 60 s (a documented example that needs longer is too expensive for an example:
  make it cheaper).
- A ```toml block whose first line is a comment naming a file (`# scenarios/sweeps/scaling.toml ...`) must be
  that file's text, byte for byte: examples ship as files (and every file in scenarios/ is run by the tests).

Exit status: 0 when every block passes, 1 otherwise (each failure is reported with FILE:LINE).
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60
SETUP_PREFIXES = ("bash .ci/install-deps", "cmake ")
OTHER_SHELLS = ("bash", "shell", "console", "shell-session", "zsh")
EXIT_LINE = re.compile(r"^\[exit (\d+)\]$")


class Block:
    """A fenced block: its language, the markdown line of its first content line, its lines."""

    def __init__(self, lang, line, lines):
        self.lang, self.line, self.lines = lang, line, lines


class Command:
    """A command, where it is written, and its expected output (None: not shown; whole_block: the expected output
    is that of its whole block, of which it is the last command)."""

    def __init__(self, text, line, expected=None):
        self.text, self.line, self.expected, self.whole_block = text, line, expected, False


class DocError(Exception):
    """A block that does not follow the convention."""


def fenced_blocks(path):
    """A markdown file in order: a Block per fenced block (its line: the first line inside the fences), None per
    blank line outside blocks, "text" per other line (so a block can tell what follows it)."""
    blocks, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            line = raw.rstrip("\n")
            if current is None:
                m = re.match(r"^```([\w+-]*)\s*$", line)
                if m:
                    current = Block(m.group(1), number + 1, [])
                else:
                    blocks.append(None if line.strip() == "" else "text")
            elif line.rstrip() == "```":
                blocks.append(current)
                current = None
            else:
                current.lines.append(line)
    if current is not None:
        raise DocError(f"{current.line - 1}: the code block is not closed")
    return blocks


def logical_lines(lines, first_line, continues):
    """(text, line) per logical line: a line for which continues(text) holds, ending in a backslash, is joined
    with the next."""
    out = []
    for offset, line in enumerate(lines):
        if out and out[-1][0].endswith("\\") and continues(out[-1][0]):
            out[-1] = (out[-1][0] + "\n" + line, out[-1][1])
        else:
            out.append((line, first_line + offset))
    return out


def is_comment(text):
    return not text.strip() or text.lstrip().startswith("#")


def commands_of(block, output_block):
    """The commands of a sh block, with their expected outputs."""
    if any(line.startswith("$ ") for line in block.lines):
        commands = []
        for text, line in logical_lines(block.lines, block.line, lambda text: text.startswith("$ ")):
            if text.startswith("$ "):
                commands.append(Command(text[2:], line, []))
            elif commands:
                commands[-1].expected.append(text)
            elif not is_comment(text):
                raise DocError(f"{line}: output before the first `$ ` command")
        return commands
    commands = [Command(text, line) for text, line in logical_lines(block.lines, block.line, lambda text: True)
                if not is_comment(text)]
    if output_block is not None and commands:
        commands[-1].expected = list(output_block.lines)
        commands[-1].whole_block = True
    return commands


def line_pattern(expected):
    return re.compile("^" + ".*?".join(re.escape(part) for part in expected.split("...")) + "$")


def matches(expected, actual):
    """True if the actual lines match the expected lines (`...` within a line, a `...` line for many lines)."""
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and bool(line_pattern(expected[i]).match(actual[j])) and match(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return match(0, 0)


def normalised(lines):
    lines = [line.rstrip() for line in lines]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def shared_folder(source):
    """The shared/ folder beside the repository (validation data)."""
    return os.path.join(os.path.dirname(os.path.abspath(source)), "shared")


def scratch_copy(source, build, into):
    """The repository's files (tracked and untracked, not ignored; no build folders) under into/repo."""
    repo = os.path.join(into, "repo")
    try:
        listed = subprocess.run(["git", "-C", source, "ls-files", "-co", "--exclude-standard", "-z"],
                                check=True, capture_output=True).stdout.decode().split("\0")
        files = [f for f in listed if f and os.path.isfile(os.path.join(source, f))]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), source) for d, dirs, names in os.walk(source) for f in names
                 if not os.path.relpath(d, source).split(os.sep)[0].startswith(("build", ".git"))]
    for f in files:
        target = os.path.join(repo, f)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(source, f), target)
    if os.path.lexists(os.path.join(repo, "build")):
        raise SystemExit(f"{source}/build is a file of the repository; the runner needs that name for the build")
    os.symlink(os.path.abspath(build), os.path.join(repo, "build"))
    shared = shared_folder(source)
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(into, "shared"))
    return repo


def run(command, cwd):
    """(exit code, output lines, seconds) of one command."""
    start = time.monotonic()
    try:
        done = subprocess.run(["bash", "-c", command.text], cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace").split("\n"), TIMEOUT_S
    return done.returncode, done.stdout.decode(errors="replace").split("\n"), time.monotonic() - start


def check_command(where, command, cwd, block_output):
    """Runs a command; returns a failure message or None. block_output gathers a whole block's output."""
    expected = normalised(command.expected) if command.expected is not None else None
    want_code = 0
    if expected and EXIT_LINE.match(expected[-1]):
        want_code = int(EXIT_LINE.match(expected[-1]).group(1))
        expected = normalised(expected[:-1])
    code, output, seconds = run(command, cwd)
    print(f"  {where}:{command.line}: {command.text.splitlines()[0]}  ({seconds:.1f} s)", flush=True)
    if code is None:
        return f"{where}:{command.line}: `{command.text}` ran past {TIMEOUT_S} s; make the example cheaper"
    block_output.extend(normalised(output))
    if code != want_code:
        return (f"{where}:{command.line}: `{command.text}` exited {code}, expected {want_code}\n"
                + "\n".join(normalised(output)[-20:]))
    if expected is None:
        return None
    actual = block_output if command.whole_block else normalised(output)
    if matches(expected, actual):
        return None
    diff = difflib.unified_diff(expected, actual, "shown in the docs", "actual output", lineterm="")
    return f"{where}:{command.line}: output of `{command.text}` differs from the docs\n" + "\n".join(diff)


def check_file_block(where, block, source):
    """A toml block naming a file must be that file's text."""
    m = re.match(r"^#\s*(\S+\.toml)\b", block.lines[0]) if block.lines else None
    if not m:
        return None
    path = os.path.join(source, m.group(1))
    if not os.path.isfile(path):
        return f"{where}:{block.line}: the block names {m.group(1)}, which does not exist"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text == "\n".join(block.lines) + "\n":
        return None
    diff = difflib.unified_diff(block.lines, text.rstrip("\n").split("\n"), "shown in the docs", m.group(1),
                                lineterm="")
    return f"{where}:{block.line}: the block differs from {m.group(1)}\n" + "\n".join(diff)


def check_markdown(source, build, relative):
    """Failure messages of one markdown file."""
    where = relative
    try:
        items = fenced_blocks(os.path.join(source, relative))
    except DocError as e:
        return [f"{where}:{e}"]
    failures = []
    with tempfile.TemporaryDirectory(prefix="dtsim-docs-") as scratch:
        cwd = None
        for index, block in enumerate(items):
            if not isinstance(block, Block):
                continue
            if block.lang == "toml":
                failure = check_file_block(where, block, source)
                failures += [failure] if failure else []
                continue
            if block.lang in OTHER_SHELLS:
                failures.append(f"{where}:{block.line - 1}: a ```{block.lang} block is not run; write ```sh")
                continue
            if block.lang != "sh":
                continue
            following = next((b for b in items[index + 1:] if b is not None), None)
            output_block = following if isinstance(following, Block) and following.lang == "" else None
            try:
                commands = commands_of(block, output_block)
            except DocError as e:
                failures.append(f"{where}:{e}")
                continue
            block_output = []
            for command in commands:
                if command.text.startswith(SETUP_PREFIXES):
                    print(f"  {where}:{command.line}: skipped (set-up): {command.text.splitlines()[0]}")
                    continue
                if "../shared" in command.text and not os.path.isdir(shared_folder(source)):
                    print(f"  {where}:{command.line}: skipped (no {shared_folder(source)}): {command.text.splitlines()[0]}")
                    continue
                if cwd is None:
                    cwd = scratch_copy(source, build, scratch)
                failure = check_command(where, command, cwd, block_output)
                failures += [failure] if failure else []
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the repository")
    parser.add_argument("--build", required=True, help="the build folder (holds the dtsim binary)")
    parser.add_argument("files", nargs="*", help="markdown files relative to the repository")
    args = parser.parse_args()
    files = args.files or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(args.source, "docs")) if f.endswith(".md"))
    failures = []
    for relative in files:
        print(relative, flush=True)
        failures += check_markdown(args.source, args.build, relative)
    for failure in failures:
        print("\nFAILED " + failure)
    print(f"\n{len(failures)} failure(s) in {len(files)} file(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
