#!/usr/bin/env python3
"""Writes a C++ source file that holds the bytes of one file, so the binary needs no file beside it.

usage: embed_file.py INPUT OUTPUT SYMBOL
Defines gausslab::embedded::SYMBOL (the bytes plus a terminating 0, so text can be used as a C
string) and gausslab::embedded::SYMBOL_size (the file's size, without the terminating 0).
The output is rewritten only when its content changes, so unchanged files do not trigger rebuilds.
"""
import os
import re
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, output, symbol = sys.argv[1:4]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", symbol):
        print(f"embed_file.py: '{symbol}' is not a C++ identifier", file=sys.stderr)
        return 2
    with open(source, "rb") as f:
        data = f.read()
    rows = [",".join(str(b) for b in data[i:i + 32]) for i in range(0, len(data), 32)]
    text = (
        f"// Generated from {os.path.basename(source)} by render/cmake/embed_file.py; do not edit.\n"
        "#include <cstddef>\n\n"
        "namespace gausslab::embedded {\n"
        f"extern const unsigned char {symbol}[];\n"
        f"extern const std::size_t {symbol}_size;\n"
        f"alignas(16) const unsigned char {symbol}[] = {{\n"
        + ",\n".join(rows) + ("," if rows else "") + "0};\n"
        f"const std::size_t {symbol}_size = {len(data)};\n"
        "}  // namespace gausslab::embedded\n"
    )
    try:
        with open(output, "r", encoding="utf-8") as f:
            if f.read() == text:
                return 0
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
