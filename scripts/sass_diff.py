#!/usr/bin/env python3
"""Compare the machine code of two `cuobjdump -sass` listings, function by function.

    scripts/sass_diff.py OLD.sass NEW.sass [--anon] [--map OLD_SUB=NEW_SUB ...] [--subset]
                         [--filter REGEX] [--arch sm_90a]

A listing (of a fatbin, an executable or a cubin) is split into functions per arch: the
`arch = sm_XX` / `code for sm_XX` headers set the arch, `Function : <mangled>` starts a function.
Each function is compared twice:
  bytes  the instruction words (the `/* 0x... */` encodings, control bits included) and the
         instruction text -- the machine code is identical;
  text   the instruction text only, without the `/*0000*/` address comments and encodings
         (whitespace collapsed: cuobjdump pads columns to the widest line of a listing).
For a function that differs: the first differing instruction and, per opcode, how many
instructions were removed (-) or added (+) by a difflib alignment of the two texts; then the same
count with register numbers and branch targets blanked, which separates a register-allocation or
placement change from a change in the instructions themselves.

Names are matched per arch after renaming OLD's names: --map OLD_SUB=NEW_SUB replaces a substring
(mangled names carry length prefixes: map `20k4_f16_256x128x64_s3=27k4_f16_...`, not the bare tag);
--anon replaces each anonymous namespace (`<n>_GLOBAL__N__<hash>_<n>_<file>_cu_<hash>`: it names
the translation unit, so it changes with the file's name and path) in both listings by `@anon`.
--subset: NEW holds a few functions (one cubin); OLD's functions missing from NEW are only counted.

Exit status: 0 every compared function is byte-identical, 1 something differs or is missing,
2 bad arguments or unreadable input.
"""

import argparse
import collections
import difflib
import re
import sys

ARCH_RE = re.compile(r"^\s*(?:arch =|code for)\s+(sm_\w+)")
FUNC_RE = re.compile(r"^\s*Function\s*:\s*(\S+)")
# `/*0a30*/   @!P0 IMAD.WIDE R2, R3, R4, R2 ;   /* 0x0000000403027825 */`
INSN_RE = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*/\*\s*(0x[0-9a-f]+)\s*\*/\s*$")
ENC_RE = re.compile(r"^\s*/\*\s*(0x[0-9a-f]+)\s*\*/\s*$")
END_RE = re.compile(r"^\s*\.{6,}\s*$")


class Function:
    def __init__(self, arch, name):
        self.arch, self.name = arch, name
        self.flags = ""
        self.text = []  # instruction text, whitespace collapsed, no address
        self.words = []  # encodings in order (2 per instruction on sm_70+)
        self.addrs = []  # the address comments, for the report only


def parse(path):
    """Returns [Function] in listing order."""
    funcs, arch, cur = [], "?", None
    with open(path, errors="replace") as f:
        for line in f:
            m = ARCH_RE.match(line)
            if m:
                arch, cur = m.group(1), None
                continue
            m = FUNC_RE.match(line)
            if m:
                cur = Function(arch, m.group(1))
                funcs.append(cur)
                continue
            if cur is None:
                continue
            if END_RE.match(line):
                cur = None
                continue
            m = INSN_RE.match(line)
            if m:
                cur.text.append(" ".join(m.group(2).split()))
                cur.addrs.append(m.group(1))
                cur.words.append(m.group(3))
                continue
            m = ENC_RE.match(line)
            if m:
                cur.words.append(m.group(1))
                continue
            if line.strip().startswith(".headerflags"):
                cur.flags = " ".join(line.split())
    return funcs


ANON_RE = re.compile(r"(\d+)_GLOBAL__N__[0-9a-f]+_(\d+)_")


def strip_anon(name):
    """Replaces every length-prefixed anonymous namespace component by '@anon'."""
    out, pos = [], 0
    for m in ANON_RE.finditer(name):
        if m.start() < pos:
            continue
        seg_start = m.start(1) + len(m.group(1))  # where `_GLOBAL__N__` starts
        file_end = m.end() + int(m.group(2))  # after `<file>_cu`
        digits = m.group(1)
        # The component's length prefix is the suffix of the digit run after which the
        # component ends in `_<hash>` (its hash may be followed by the next length prefix).
        for i in range(len(digits)):
            seg_end = seg_start + int(digits[i:])
            if seg_end <= len(name) and re.fullmatch(r"_[0-9a-f]+", name[file_end:seg_end]):
                out.append(name[pos:m.start(1) + i])
                out.append("@anon")
                pos = seg_end
                break
    out.append(name[pos:])
    return "".join(out)


def opcode(insn):
    toks = insn.replace(";", " ").split()
    if toks and toks[0].startswith("@"):
        toks = toks[1:]
    return toks[0] if toks else "?"


REG_RE = re.compile(r"\b(U?R|U?P|B|SB)\d+\b")
TARGET_OPS = ("BRA", "BSSY", "BREAK", "CALL", "JMP", "SSY", "PBK", "WARPSYNC")


def canonical(insn):
    """The instruction without register numbers and branch targets: what is left when two
    listings differ only in register allocation and code placement."""
    s = REG_RE.sub(lambda m: m.group(1), insn)
    if opcode(insn).startswith(TARGET_OPS):
        s = re.sub(r"0x[0-9a-f]+", "@", s)
    return s


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b)) if len(a) != len(b) else None


def opcode_delta(a, b):
    """Per opcode: instructions of OLD not matched in NEW (-) and of NEW not matched in OLD (+)."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    minus, plus = collections.Counter(), collections.Counter()
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        minus.update(opcode(x) for x in a[i1:i2])
        plus.update(opcode(x) for x in b[j1:j2])
    ops = sorted(set(minus) | set(plus))
    return " ".join(f"{op}:-{minus[op]}+{plus[op]}" for op in ops)


def compare(old, new):
    """Returns (status, detail lines)."""
    bytes_same = old.words == new.words and old.text == new.text
    text_same = old.text == new.text
    lines = [f"    instructions {len(old.text)} -> {len(new.text)}"]
    if old.flags != new.flags:
        lines.append(f"    headerflags: {old.flags!r} -> {new.flags!r}")
    if bytes_same:
        return "identical (bytes and text)", []
    if text_same:
        wi = first_diff(old.words, new.words)
        lines.append(f"    first differing encoding word {wi} (instruction {wi // 2}: {old.text[wi // 2]!r}):"
                     f" {old.words[wi]} -> {new.words[wi]}")
        return "differs in encodings only (text identical)", lines
    i = first_diff(old.text, new.text)
    o = old.text[i] if i < len(old.text) else "<end>"
    n = new.text[i] if i < len(new.text) else "<end>"
    addr = old.addrs[i] if i < len(old.addrs) else "end"
    lines.append(f"    first differing instruction {i} (/*{addr}*/): {o!r} -> {n!r}")
    lines.append(f"    changed, by opcode: {opcode_delta(old.text, new.text)}")
    ca, cb = [canonical(x) for x in old.text], [canonical(x) for x in new.text]
    if ca == cb:
        lines.append("    modulo register numbers and branch targets: identical (register allocation only)")
    else:
        lines.append(f"    modulo register numbers and branch targets: {opcode_delta(ca, cb)}")
    return "differs (text and bytes)", lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--map", action="append", default=[], metavar="OLD_SUB=NEW_SUB",
                    help="rename a substring of OLD's names (repeatable)")
    ap.add_argument("--anon", action="store_true", help="ignore anonymous namespaces (the TU's name) in names")
    ap.add_argument("--subset", action="store_true", help="NEW is a subset: do not list OLD-only functions")
    ap.add_argument("--filter", metavar="REGEX", help="compare only functions whose (renamed) name matches")
    ap.add_argument("--arch", help="compare only this arch, e.g. sm_90a")
    args = ap.parse_args(argv)

    maps = []
    for m in args.map:
        if "=" not in m:
            ap.error(f"--map {m!r}: expected OLD_SUB=NEW_SUB")
        maps.append(tuple(m.split("=", 1)))
    try:
        old_funcs, new_funcs = parse(args.old), parse(args.new)
    except OSError as e:
        print(f"sass_diff: {e}", file=sys.stderr)
        return 2

    def key_of(f, is_old):
        name = f.name
        if is_old:
            for a, b in maps:
                name = name.replace(a, b)
        if args.anon:
            name = strip_anon(name)
        return (f.arch, name)

    def index(funcs, is_old):
        d, seen = {}, collections.Counter()
        for f in funcs:
            k = key_of(f, is_old)
            if args.arch and k[0] != args.arch:
                continue
            if args.filter and not re.search(args.filter, k[1]):
                continue
            seen[k] += 1
            d[k + (seen[k],)] = f  # the same name twice in one listing: compared in order
        return d

    old_ix, new_ix = index(old_funcs, True), index(new_funcs, False)
    if not new_ix:
        print("sass_diff: no function in NEW (after --arch/--filter)", file=sys.stderr)
        return 2

    n_same = n_diff = n_missing = 0
    for k, nf in new_ix.items():
        arch, name, dup = k
        label = f"[{arch}] {name}" + (f" (#{dup})" if dup > 1 else "")
        of = old_ix.get(k)
        if of is None:
            print(f"only in NEW  {label}")
            n_missing += 1
            continue
        status, lines = compare(of, nf)
        print(f"{status:<44} {label}")
        for line in lines:
            print(line)
        if status.startswith("identical"):
            n_same += 1
        else:
            n_diff += 1
    old_only = [k for k in old_ix if k not in new_ix]
    if not args.subset:
        for arch, name, dup in old_only:
            print(f"only in OLD  [{arch}] {name}")
        n_missing += len(old_only)
    print(f"summary: {n_same} identical, {n_diff} differ, {n_missing} unmatched"
          + (f" ({len(old_only)} OLD functions not in NEW, --subset)" if args.subset else ""))
    return 0 if n_diff == 0 and n_missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
