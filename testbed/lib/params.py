#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The one params.json writer of the testbed's experiments (lib/common.sh).

    params.py write --out FILE --experiment E --algorithm NAME --spec SPEC
              [--module MOD] [--file KO] [--bpf LOADER] [--set "P=V P=V"]
              -- KEY=VALUE...
    params.py build-id MODULE|FILE.ko

write: FILE gets one JSON object, the same schema for every experiment:

    experiment, algorithm, algorithm_spec (the --cc given), kernel (uname -r),
    module: null if the algorithm has none (built into the kernel's core),
        else {name, builtin, file (the .ko loaded, or null), sha256 (of the
        file), build_id (GNU build id of the loaded module), srcversion,
        params (every parameter in force, read back from
        /sys/module/MOD/parameters), params_set (those --cc set)},
    bpf: null, or for the BPF struct_ops build (--bpf of the experiments)
        {loader (the powertcp-bpf that holds the BPF objects), sha256 (of
        it), params (in force, read back with 'LOADER get ALGORITHM'),
        params_set},
    then each KEY=VALUE in order: VALUE "bool:0|1" is a boolean,
    "json:TEXT" raw JSON, an integer or decimal a number, else a string.

build-id: prints the GNU build id of a loaded module or of a .ko file.
"""
import argparse
import hashlib
import json
import os
import platform
import re
import struct
import subprocess
import sys

NT_GNU_BUILD_ID = 3


def notes(data):
    """(name, type, desc) of each ELF note in @data."""
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, typ = struct.unpack_from("<III", data, off)
        off += 12
        name = data[off:off + namesz].rstrip(b"\0")
        off += (namesz + 3) & ~3
        desc = data[off:off + descsz]
        off += (descsz + 3) & ~3
        yield name, typ, desc


def build_id_of_notes(data):
    for name, typ, desc in notes(data):
        if name == b"GNU" and typ == NT_GNU_BUILD_ID:
            return desc.hex()
    return None


def build_id_of_elf(path):
    """The build id in the .note.gnu.build-id section of an ELF64 file."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
            for i in range(shnum)]
    strtab = secs[shstrndx]
    for s in secs:
        start = strtab[4] + s[0]
        name = elf[start:elf.index(b"\0", start)]
        if name == b".note.gnu.build-id":
            return build_id_of_notes(elf[s[4]:s[4] + s[5]])
    return None


def build_id(mod_or_file):
    if mod_or_file.endswith(".ko"):
        return build_id_of_elf(mod_or_file)
    note = "/sys/module/%s/notes/.note.gnu.build-id" % mod_or_file
    try:
        with open(note, "rb") as f:
            return build_id_of_notes(f.read())
    except OSError:
        return None


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def value(v):
    """A sysfs or command-line value as JSON: numbers, Y/N as booleans."""
    if v is None:
        return None
    if re.fullmatch(r"-?[0-9]+", v):
        return int(v)
    if v in ("Y", "N"):
        return v == "Y"
    return v


def module_info(mod, path, params_set):
    if not mod:
        return None
    sysdir = "/sys/module/" + mod
    pdir = os.path.join(sysdir, "parameters")
    params = {}
    if os.path.isdir(pdir):
        for p in sorted(os.listdir(pdir)):
            params[p] = value(read(os.path.join(pdir, p)))
    m = {"name": mod,
         "builtin": not os.path.exists(os.path.join(sysdir, "initstate")),
         "file": path or None, "sha256": None,
         "build_id": build_id(mod), "srcversion": read(sysdir + "/srcversion"),
         "params": params,
         "params_set": {k: value(v) for k, v in
                        (p.split("=", 1) for p in params_set.split())}}
    if path:
        with open(path, "rb") as f:
            m["sha256"] = hashlib.sha256(f.read()).hexdigest()
    return m


def bpf_info(loader, algorithm, params_set):
    if not loader:
        return None
    out = subprocess.run([loader, "get", algorithm], capture_output=True,
                         text=True, check=True).stdout
    with open(loader, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    return {"loader": loader, "sha256": sha,
            "params": {k: value(v) for k, v in
                       (ln.split("=", 1) for ln in out.split() if "=" in ln)},
            "params_set": {k: value(v) for k, v in
                           (p.split("=", 1) for p in params_set.split())}}


def parse_pair(kv):
    k, _, v = kv.partition("=")
    if not k:
        sys.exit("params.py: bad parameter '%s'" % kv)
    if v.startswith("bool:"):
        if v[5:] not in ("0", "1"):
            sys.exit("params.py: %s: '%s' is not 0 or 1" % (k, v[5:]))
        return k, v[5:] == "1"
    if v.startswith("json:"):
        return k, json.loads(v[5:])
    if re.fullmatch(r"-?[0-9]+", v):
        return k, int(v)
    if re.fullmatch(r"-?[0-9]+\.[0-9]+", v):
        return k, float(v)
    return k, v


def main():
    ap = argparse.ArgumentParser(
        prog="params.py", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True,
                            metavar="{write,build-id}")
    wr = sub.add_parser("write", help="write params.json: FILE gets one "
                        "JSON object, then each KEY=VALUE after --",
                        usage="%(prog)s --out FILE --experiment E "
                        "--algorithm NAME --spec SPEC [--module MOD] "
                        "[--file KO] [--bpf LOADER] [--set \"P=V P=V\"] "
                        "-- KEY=VALUE...")
    wr.add_argument("--out", required=True, metavar="FILE")
    wr.add_argument("--experiment", required=True)
    wr.add_argument("--algorithm", required=True, metavar="NAME")
    wr.add_argument("--spec", required=True, help="the --cc given")
    wr.add_argument("--module", default="", metavar="MOD")
    wr.add_argument("--file", default="", metavar="KO")
    wr.add_argument("--bpf", default="", metavar="LOADER")
    wr.add_argument("--set", default="", metavar='"P=V P=V"')
    bi = sub.add_parser("build-id", help="print the GNU build id of a "
                        "loaded module or of a .ko file (exit 1 if none)")
    bi.add_argument("target", metavar="MODULE|FILE.ko")
    argv = sys.argv[1:]
    # The KEY=VALUE pairs follow "--"; argparse parses what precedes it.
    pairs = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if a.cmd == "build-id":
        if pairs:
            ap.error("build-id takes no KEY=VALUE pairs")
        b = build_id(a.target)
        if not b:
            sys.exit(1)
        print(b)
        return
    p = {"experiment": a.experiment, "algorithm": a.algorithm,
         "algorithm_spec": a.spec, "kernel": platform.release(),
         "module": module_info(a.module, a.file, a.set),
         "bpf": bpf_info(a.bpf, a.algorithm, a.set)}
    for kv in pairs:
        k, v = parse_pair(kv)
        if k in p:
            sys.exit("params.py: %s given twice" % k)
        p[k] = v
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(p, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
