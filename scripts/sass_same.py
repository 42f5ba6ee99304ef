#!/usr/bin/env python3
"""Whether two builds compiled the same machine code, kernel by kernel, whatever the kernels are named.

    scripts/sass_same.py BASE_DIR NEW_DIR [SUBSTRING ...]

Each directory holds objects (NAME.cu.o, dumped here with cuobjdump) or listings (NAME.sass, from
`cuobjdump -sass`); objects of the same NAME are compared. Within an object, every kernel of BASE
is matched to a kernel of NEW with the same instructions and encodings (control bits included;
mangled names in call targets ignored), so a refactor that renames every kernel (a new template,
a new namespace) can still show that none of the code changed. With objects, the resource usage
(registers, stack, shared and local memory) of the two is compared too. SUBSTRING: only objects
whose name contains one. cuobjdump: $PIPEGEMM_CUOBJDUMP, else the one on PATH.

Prints `identical` or `DIFFERENT` per BASE kernel (NEW's unmatched kernels after it); for the
instruction-level differences of one kernel, scripts/sass_diff.py --map. Exit status 0 when every
kernel is identical.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_diff  # noqa: E402  (the listing parser)

CUOBJDUMP = os.environ.get("PIPEGEMM_CUOBJDUMP", "cuobjdump")
SYMBOL_RE = re.compile(r"_Z\w+")
RES_RE = re.compile(r"REG:\d+ STACK:\d+ SHARED:\d+ LOCAL:\d+")


def stems(d):
    return sorted({re.sub(r"\.(sass|cu\.o)$", "", n) for n in os.listdir(d) if n.endswith((".sass", ".cu.o"))})


def listing(d, stem, tmp):
    path = os.path.join(d, stem + ".sass")
    if os.path.exists(path):
        return path
    out = os.path.join(tmp, "%s.%d.sass" % (stem, abs(hash(d))))
    with open(out, "w") as f:
        subprocess.run([CUOBJDUMP, "-sass", os.path.join(d, stem + ".cu.o")], stdout=f, check=True)
    return out


def resources(d, stem):
    obj = os.path.join(d, stem + ".cu.o")
    if not os.path.exists(obj):
        return None
    text = subprocess.run([CUOBJDUMP, "-res-usage", obj], capture_output=True, text=True, check=True).stdout
    return sorted(RES_RE.findall(text))


def key(f):
    return (f.arch, tuple(SYMBOL_RE.sub("SYM", t) for t in f.text), tuple(f.words))


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    base, new, only = argv[0], argv[1], argv[2:]
    same = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for stem in stems(base):
            if only and not any(o in stem for o in only):
                continue
            if stem not in stems(new):
                print("missing    %s (not in %s)" % (stem, new))
                differ += 1
                continue
            pool = {}
            new_funcs = sass_diff.parse(listing(new, stem, tmp))
            for f in new_funcs:
                pool.setdefault(key(f), []).append(f)
            unmatched = list(new_funcs)
            for f in sass_diff.parse(listing(base, stem, tmp)):
                match = pool.get(key(f))
                if match:
                    unmatched.remove(match.pop())
                    same += 1
                    print("identical  %s  %s" % (stem, f.name))
                else:
                    differ += 1
                    print("DIFFERENT  %s  %s (%d instructions)" % (stem, f.name, len(f.text)))
            for g in unmatched:
                print("  new only %s  %s (%d instructions)" % (stem, g.name, len(g.text)))
            ra, rb = resources(base, stem), resources(new, stem)
            if ra is not None and rb is not None and ra != rb:
                differ += 1
                print("DIFFERENT  %s  resource usage: %s -> %s" % (stem, ra, rb))
    print("%d identical, %d different" % (same, differ))
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
