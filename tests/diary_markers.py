#!/usr/bin/env python3
"""Fails when the repository reads like a lab notebook instead of a product.

Code, tests, scripts, docs and the README speak of what the code does and why, with the measured
number, the GPU and the report it comes from -- not of who ran what when. This check lists the
repository's files (`git ls-files`; without a git checkout, every file under the root but hidden
and build directories) and reports each line that carries

  - a run marker, in any file: "session" or "sessions" followed by a number, a run name such as
    <name>_s<N>_call<M>, "call" followed by a number, or a step of the seed notes
    (case-insensitive); CHANGELOG.md, the reports under bench/results/ (their metadata record the
    date and the command) and the tune tables data/tune/*.json are exempt;
  - a dated provenance (YYYY-MM-DD) in a source or documentation file (*.cpp *.cu *.cuh *.hpp *.h
    *.py *.sh *.md *.txt *.cmake *.def, CMakeLists.txt); CHANGELOG.md, bench/results/, data/ and
    tests/data/ are exempt.

usage: tests/diary_markers.py [ROOT]   (default: the repository this file is in)
Prints FILE:LINE: TEXT for every hit and exits 1 if there is any, 0 otherwise; 2 on bad usage.
Where a comment needs a measured reason, write the number, the GPU and the doc page or evidence
file (bench/results/evidence/...) instead; history belongs in git and CHANGELOG.md.
"""
import os
import re
import subprocess
import sys

# Written so that this file does not match itself.
RUN_MARKERS = re.compile(
    r"sessions? [0-9]"          # a session and its number
    r"|_s[0-9]+_call"           # a run name: <what>_s<N>_call<M>_<what>
    r"|\bcall [0-9]"            # a call and its number
    r"|seed 00[4] step",        # a step of the seed notes
    re.IGNORECASE,
)
DATE = re.compile(r"20[0-9][0-9]-[01][0-9]-[0-3][0-9]")

SOURCE_SUFFIXES = (".cpp", ".cu", ".cuh", ".hpp", ".h", ".py", ".sh", ".md", ".txt", ".cmake", ".def")
SKIP_DIRS = {"build", "node_modules", "__pycache__"}


def run_marker_exempt(path):
    return (path == "CHANGELOG.md" or path.startswith("bench/results/")
            or (path.startswith("data/tune/") and path.endswith(".json")))


def date_checked(path):
    if path == "CHANGELOG.md" or path.startswith(("bench/results/", "data/", "tests/data/")):
        return False
    name = os.path.basename(path)
    return name == "CMakeLists.txt" or name.endswith(SOURCE_SUFFIXES)


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        files = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []  # not a git checkout (a source tarball): every file but hidden and build directories
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in SKIP_DIRS and not x.startswith("build"))
        for n in sorted(names):
            files.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return files


def scan(root):
    hits = []
    for path in tracked_files(root):
        markers = not run_marker_exempt(path)
        dates = date_checked(path)
        if not (markers or dates):
            continue
        full = os.path.join(root, path)
        if not os.path.isfile(full):  # deleted in the work tree, not yet committed
            continue
        with open(full, "rb") as f:
            data = f.read()
        if b"\0" in data[:8192]:  # binary
            continue
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if (markers and RUN_MARKERS.search(line)) or (dates and DATE.search(line)):
                text = line.strip()
                hits.append(f"{path}:{n}: {text[:160]}{' ...' if len(text) > 160 else ''}")
    return hits


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(__file__), ".."))
    if not os.path.isdir(root):
        print(f"diary_markers: {root}: not a directory", file=sys.stderr)
        return 2
    hits = scan(root)
    for h in hits:
        print(h)
    if hits:
        files = len({h.split(":", 1)[0] for h in hits})
        print(f"diary_markers: {len(hits)} line(s) in {files} file(s) carry session/call numbers, run names or "
              "dated provenance: state the number, the GPU and the doc page or evidence file instead "
              "(history: git and CHANGELOG.md)", file=sys.stderr)
        return 1
    print("diary_markers: none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
