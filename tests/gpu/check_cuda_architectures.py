#!/usr/bin/env python3
"""Checks which GPU architectures an executable's CUDA kernels were built for, without a GPU.

Reads the ELF section .nv_fatbin (one fat binary per CUDA translation unit) and lists, for each,
the SASS (cubin) architectures and the PTX it carries. Fails, naming what is missing, unless every
fat binary has SASS for every architecture in --sass and PTX for every one in --ptx.

usage: check_cuda_architectures.py BINARY --sass 75,86,89,90 --ptx 90
"""
import argparse
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_SASS = 1, 2


def section(path, name):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    for h in headers:
        start = names[4] + h[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return data[h[4]:h[4] + h[5]]
    return None


def fat_binaries(blob):
    """Yields, per fat binary, the set of (kind, arch) entries it holds."""
    offset = 0
    while offset + 16 <= len(blob):
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", blob, offset)
        if magic != FATBIN_MAGIC:
            offset += 8  # fat binaries are 8-byte aligned in the section
            continue
        entries, position, end = set(), offset + header_size, offset + header_size + fat_size
        while position < end:
            kind, _, entry_header_size, payload_size = struct.unpack_from("<HHIQ", blob, position)
            arch, = struct.unpack_from("<I", blob, position + 28)
            entries.add((kind, arch))
            position += entry_header_size + payload_size
        yield entries
        offset = end


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--sass", required=True, help="comma-separated architectures, e.g. 75,86,89,90")
    parser.add_argument("--ptx", default="", help="comma-separated architectures that must also carry PTX")
    args = parser.parse_args()
    want_sass = {int(a) for a in args.sass.split(",") if a}
    want_ptx = {int(a) for a in args.ptx.split(",") if a}

    blob = section(args.binary, ".nv_fatbin")
    if blob is None:
        sys.exit(f"FAIL: {args.binary} has no .nv_fatbin section: no CUDA kernels were linked in")
    binaries = list(fat_binaries(blob))
    if not binaries:
        sys.exit(f"FAIL: {args.binary}: .nv_fatbin holds no fat binary this script can read")
    failures = 0
    for index, entries in enumerate(binaries):
        sass = sorted(a for k, a in entries if k == KIND_SASS)
        ptx = sorted(a for k, a in entries if k == KIND_PTX)
        missing = sorted(want_sass - set(sass)), sorted(want_ptx - set(ptx))
        listed = lambda prefix, archs: ", ".join(f"{prefix}{a}" for a in archs) or "none"
        print(f"fat binary {index + 1}: SASS {listed('sm_', sass)}; PTX {listed('compute_', ptx)}")
        if missing[0] or missing[1]:
            failures += 1
            print(f"  missing: SASS {missing[0] or '-'}, PTX {missing[1] or '-'}")
    if failures:
        sys.exit(f"FAIL: {failures} of {len(binaries)} fat binaries lack an architecture asked for")
    print(f"ok: all {len(binaries)} fat binaries carry SASS for sm_{', sm_'.join(map(str, sorted(want_sass)))}"
          + (f" and PTX for compute_{', compute_'.join(map(str, sorted(want_ptx)))}" if want_ptx else ""))


if __name__ == "__main__":
    main()
