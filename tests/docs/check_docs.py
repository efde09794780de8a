#!/usr/bin/python3
"""Checks every Markdown file of the repository:

  tables   each run of lines that starts with '|' renders as one table (markdown-it, GitHub's table
           rule), and no row has more or fewer cells than its header;
  links    every relative link and image (Markdown and HTML) names a file or folder that exists, and
           every '#anchor' names a heading (GitHub's slugs) or an id in the target file;
  paths    every docs/<path> that a source file, a script or a page names in its text exists;
  lengths  README.md has at most 300 lines;
  results  docs/results/ holds its README.md and one flat folder per GPU kind (a new run replaces the
           files of its kind's folder; the runs before are in the git history);
  numbers  no number of the results is written in more than two files (the place that owns it and
           one summary that quotes it, README.md for example); see RESULT_NUMBERS below for how a
           number of the results is told from a constant.

Only what git tracks or would add is read (build folders and other ignored files are not).

Usage: check_docs.py [--root DIR] [--numbers-report]
  --numbers-report  also lists every result number that is in two files (the quotes), for review.
Exit status 0 when all hold, 1 with one line per problem otherwise, 2 when markdown-it is missing.
"""
import argparse
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse
from collections import defaultdict

try:
    from markdown_it import MarkdownIt
except ImportError:
    print("check_docs.py needs python3-markdown-it (Debian): bash scripts/install-deps.sh", file=sys.stderr)
    sys.exit(2)

# Folders never scanned: build trees, VCS data and files that come from elsewhere.
SKIPPED_DIRS = {".git", "third_party", "node_modules", "__pycache__"}
SKIPPED_PREFIXES = ("build",)  # build, build-sanitize, build-x86, ...

# Markdown that a tool writes (the data of a run, not prose): its tables and links are checked, its
# numbers are the record the prose quotes and are not counted. gausslab-bench's reports open with
# "# gausslab-bench" (results.md, batch.md, whatever --out names them); the others by file name.
GENERATED_FIRST_LINE = "# gausslab-bench"
GENERATED_NAMES = {
    "gpu-accuracy.md",  # scripts/summarise_gpu_accuracy.py
}

# A file that stands for another one while it waits to replace it: checked as if it were at that
# path (its links resolved from there), and the file it will replace is not checked. The lead moves
# docs/_readme_next.md over README.md; once it is gone, README.md is checked again.
STAND_INS = {"docs/_readme_next.md": "README.md"}

# Pages other branches are writing while the index already links them: a link to one of these that
# does not exist yet is listed as pending, not failed. Remove a page from here once it has landed.
PENDING_PAGES = {"docs/batch.md", "docs/library.md"}

# Files the project keeps short, with their most lines.
MAX_LINES = {"README.md": 300}

# --- tables -------------------------------------------------------------------------------------

def split_cells(line):
    """The cells of a table row as GitHub splits them: on every '|' not escaped by a backslash
    (also inside code spans), the outer pipes optional."""
    s = line.strip()
    cells, cur, i = [], "", 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if c == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    cells.append(cur)
    if s.startswith("|"):
        cells = cells[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        cells = cells[:-1]
    return cells


def block_ranges(tokens, types):
    return [tuple(t.map) for t in tokens if t.type in types and t.map]


def in_ranges(line, ranges):
    return any(a <= line < b for a, b in ranges)


def check_tables(path, lines, tokens):
    problems = []
    tables = block_ranges(tokens, {"table_open"})
    verbatim = block_ranges(tokens, {"fence", "code_block", "html_block"})
    for n, line in enumerate(lines):
        s = line.strip()
        if not s.startswith("|") or s.count("|") < 2 or in_ranges(n, verbatim):
            continue
        if not in_ranges(n, tables):
            problems.append(f"{path}:{n + 1}: a table row that is not part of any table (a paragraph or "
                            f"a missing delimiter row breaks the table): {s[:60]}")
    for a, b in tables:
        header = len(split_cells(lines[a]))
        for n in range(a + 2, b):
            cells = len(split_cells(lines[n]))
            if cells != header:
                what = "the extra ones are not shown" if cells > header else "a cell is missing"
                problems.append(f"{path}:{n + 1}: {cells} cell{'s' if cells != 1 else ''} under a header of "
                                f"{header} ({what})")
    return problems

# --- links --------------------------------------------------------------------------------------

def github_slug(text):
    """GitHub's heading anchor: lower case, punctuation and symbols dropped (letters, marks, digits,
    '-', '_' and spaces kept), spaces turned into '-'."""
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LNM":
            out.append(ch)
    return "".join(out).replace(" ", "-")


def inline_text(token):
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


HTML_ID = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)
HTML_REF = re.compile(r"""<(?:img|a|source)\s[^>]*\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)


def anchors_of(tokens, text):
    anchors, seen = set(), defaultdict(int)
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            slug = github_slug(inline_text(tokens[i + 1]))
            anchors.add(slug if seen[slug] == 0 else f"{slug}-{seen[slug]}")
            seen[slug] += 1
    anchors.update(HTML_ID.findall(text))
    return anchors


def link_targets(tokens):
    """(line, target) for every link and image of the file, Markdown and HTML."""
    found = []

    def walk(tok_list, line):
        for t in tok_list:
            ln = t.map[0] + 1 if t.map else line
            if t.type == "link_open":
                found.append((ln, t.attrs.get("href", "")))
            elif t.type == "image":
                found.append((ln, t.attrs.get("src", "")))
            elif t.type in ("html_inline", "html_block"):
                found.extend((ln, ref) for ref in HTML_REF.findall(t.content))
            if t.children:
                walk(t.children, ln)

    walk(tokens, 1)
    return found


def check_links(path, root, tokens, parsed, as_path=None):
    problems = []
    here = os.path.dirname(as_path or path)
    for line, target in link_targets(tokens):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http:, https:, mailto:, ...
        file_part, _, anchor = urllib.parse.unquote(target).partition("#")
        file_part = file_part.split("?")[0]
        if file_part.startswith("/"):
            dest = os.path.normpath(os.path.join(root, file_part.lstrip("/")))
        elif file_part:
            dest = os.path.normpath(os.path.join(root, here, file_part))
        else:
            dest = os.path.join(root, as_path or path)
        rel = os.path.relpath(dest, root)
        if not os.path.exists(dest):
            if rel in PENDING_PAGES:
                PENDING.add(rel)
            else:
                problems.append(f"{path}:{line}: link to {target}: {rel} does not exist")
            continue
        if anchor and dest.endswith(".md"):
            if rel not in parsed:
                with open(dest, encoding="utf-8") as f:
                    text = f.read()
                parsed[rel] = (text, MD.parse(text))
            text, target_tokens = parsed[rel]
            if anchor not in anchors_of(target_tokens, text):
                problems.append(f"{path}:{line}: link to {target}: {rel} has no heading or id '#{anchor}'")
    return problems

# --- numbers of the results ---------------------------------------------------------------------
#
# RESULT_NUMBERS. A number of the results is a measured figure: a time, a rate, a share, a speed-up,
# an error, a count of tests. It is told from a constant (a size, a sigma, a year, a version) thus:
#   1. Code is left out: fenced blocks of commands or code (sh, bash, cpp, ...), inline code, link
#      targets and HTML tags; dates (2026-11-29), versions (580.159.04) and sizes (4096×4096, 4096²,
#      41×41) are removed before numbers are read. A bare number in a table cell takes the unit its
#      column's header names ("ms", "% copy", "µs", ...).
#   2. A number with three or more significant digits (0.0942, 4195, 1.17) is one fact wherever it
#      appears, whatever the words around it: "2973 GB/s", "(H100: 2973)" and a table cell "2973" are
#      the same fact. A decimal counts from its digits alone; an integer (which could be a size)
#      counts when it is written with a unit somewhere. Two occurrences with different units (51.1 µs
#      and 51.1 M instructions) are different facts; one without a unit may be either.
#   3. A number of one or two significant digits counts only with a unit (37 %, 0.51 levels; "2 ms"
#      and "8 %" are too common as round figures to tell one fact from another), and then its key is
#      the number, its unit and its subject: the last method id written before it on its line, else
#      the method of the page it is on (docs/methods/<id>.md), else none. So separable_int8's 37 % of
#      the copy bandwidth and multires's 37 % of issue are different facts.
#   4. A number right after a parameter's name (sigma, σ, radius, truncate, gamma, N, d, ...) is that
#      parameter's value, not a result.
#   5. ALLOWED_KEYS below lists the constants that still look like results (round shares such as
#      100 %, the rounding of 8-bit output, ...); each with the reason.
# A fact is counted once per file; a fact in more than two files fails.

UNITS = {
    "ms": "ms", "µs": "µs", "us": "µs", "ns": "ns", "ps": "ps", "s": "s",
    "GB/s": "GB/s", "TB/s": "TB/s", "MB/s": "MB/s", "Mpixel/s": "Mpixel/s", "Gpixel/s": "Gpixel/s",
    "images/s": "images/s", "frames/s": "frames/s", "fps": "frames/s",
    "%": "%", "dB": "dB", "×": "×", "level": "levels", "levels": "levels", "px": "px",
    "GB": "GB", "MB": "MB", "M": "M", "tests": "tests", "cases": "cases",
}
# Units that make a number a size or a count of the design (a tile's KiB, a kernel's registers), not
# a result: such a number is not counted at all.
DESIGN_UNITS = {"KiB", "MiB", "GiB", "TiB", "KB", "B", "bytes", "bits", "bit", "threads", "warps",
                "blocks", "rows", "columns", "lines", "pixels", "taps", "samples", "lanes", "SMs",
                "registers", "outputs", "channels", "files", "images", "frames", "runs", "steps"}
UNIT_RE = "|".join(sorted((re.escape(u) for u in list(UNITS) + list(DESIGN_UNITS)), key=len, reverse=True))
NUMBER = re.compile(
    r"(?<![\w.,/])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?![\w]|\.\d|,\d{3})"
    r"(?:\s?(" + UNIT_RE + r")(?![\w/]))?")
# A header's unit: a unit of measurement not followed by a number ("level 3" names a parameter).
HEADER_UNIT = re.compile(r"(?<![\w/])(" + "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
                         + r")(?![\w/])(?!\s*\d)")
PARAMETER_BEFORE = re.compile(
    r"(?:\bsigmas?|σ|\bradius|\bradii|\btruncate|\bgamma|γ|\bN|\bn|\bd|\br|\bdegree|\bhistory|"
    r"\bversion|\bCUDA|\bnvcc|\bdriver|\bImGui|\bPython|\bclang|\bgcc|\bsm_|\bcommit|=)\s*$", re.I)
ALLOWED_KEYS = {
    "100 %": "a whole, not a measurement",
    "50 %": "the issue's target share of the copy bandwidth",
    "0.50 levels": "the rounding of an 8-bit output (half a level)",
    "0.5 levels": "the rounding of an 8-bit output (half a level)",
    "0.51 levels": "the FIR class's bound (docs/methods/README.md)",
}
COMMAND_FENCES = {"sh", "bash", "shell", "console", "cpp", "c++", "c", "cmake", "python", "py", "cuda",
                  "json", "yaml", "text", "script"}
BARE_CELL = re.compile(r"^\s*\**\d[\d.,e+-]*\**(?:\s*/\s*\**\d[\d.,e+-]*\**)*\s*$")


def with_header_units(lines, tokens):
    """Table rows with the header's unit written after each bare numeric cell."""
    out = list(lines)
    for t in tokens:
        if t.type != "table_open" or not t.map:
            continue
        a, b = t.map
        units = []
        for cell in split_cells(lines[a]):
            m = HEADER_UNIT.search(re.sub(r"\d+(?:\.\d+)?\s?[×x]\s?\d+", " ", cell))
            units.append(m.group(1) if m else None)
        for n in range(a + 2, b):
            cells = split_cells(lines[n])
            for i, cell in enumerate(cells):
                if i < len(units) and units[i] and BARE_CELL.match(cell):
                    cells[i] = f"{cell.rstrip()} {units[i]} "
            out[n] = "|" + "|".join(cells) + "|"
    return out


def prose_of(lines, tokens):
    """The file's text with code, link targets, HTML, dates, versions and sizes blanked out."""
    keep = with_header_units(lines, tokens)
    for t in tokens:
        if t.type in ("fence", "code_block") and t.map:
            info = t.info.strip().split()[0].lower() if t.info.strip() else ""
            if t.type == "code_block" or info in COMMAND_FENCES:
                for n in range(t.map[0], t.map[1]):
                    keep[n] = ""
    text = "\n".join(keep)
    text = re.sub(r"`([^`\n]*)`", lambda m: f" {m.group(1)} " if re.fullmatch(r"[a-z][a-z0-9_]*", m.group(1))
                  else " ", text)                               # inline code, but a method's id
    text = re.sub(r"\]\([^)]*\)", "]", text)                    # link targets
    text = re.sub(r"<[^>\n]+>", " ", text)                      # HTML tags
    text = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", " ", text)          # dates
    text = re.sub(r"\b\d+(?:\.\d+){2,}\b", " ", text)           # versions
    text = re.sub(r"\d+(?:\.\d+)?\s?[×x]\s?\d+(?:\.\d+)?(?:\s?[×x]\s?\d+)*", " ", text)  # sizes
    text = re.sub(r"\d+(?:\.\d+)?[²³]", " ", text)              # 4096²
    text = re.sub(r"\b\d+(?:\.\d+)?\s*/\s*\d+(?:\.\d+)?\s*(?:B|bytes)\b", " ", text)
    return text


COMMON_SIZES = {720, 1080, 1200, 1280, 1440, 1800, 1920, 2160, 2304, 2736, 3648, 3840, 4099, 4263}


def is_constant_integer(numeral):
    """Sizes, powers of two (and one less), round thousands and years: never a result when bare."""
    if not numeral.replace(",", "").isdigit():
        return False
    v = int(numeral.replace(",", ""))
    return (v & (v - 1) == 0 or (v + 1) & v == 0 or v % 1000 == 0 or 1900 <= v <= 2099
            or v in COMMON_SIZES)


def significant_digits(numeral):
    mantissa = numeral.split("e")[0].replace(",", "")
    if "." in mantissa:
        return len(mantissa.replace(".", "").lstrip("0"))
    return len(mantissa.lstrip("0").rstrip("0")) or 1


def number_tokens(text, subject_re, default_subject):
    """(line, numeral, unit or None, subject) for each number that is not a parameter's value; the
    subject is the last method id written before the number on its line, else the file's own."""
    for m in NUMBER.finditer(text):
        before = text[max(0, m.start() - 24):m.start()]
        if PARAMETER_BEFORE.search(before) or m.group(2) in DESIGN_UNITS:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        named = subject_re.findall(text[line_start:m.start()])
        subject = named[-1] if named else default_subject
        yield (text.count("\n", 0, m.start()) + 1, m.group(1),
               UNITS.get(m.group(2)) if m.group(2) else None, subject)


def check_numbers(files, report, subjects):
    subject_re = re.compile(r"\b(" + "|".join(sorted(subjects, key=len, reverse=True)) + r")\b")
    per_file, with_unit_numerals = {}, set()
    for path, (lines, tokens) in files.items():
        stem = os.path.splitext(os.path.basename(path))[0]
        own = stem if path.startswith("docs/methods/") and stem in subjects else ""
        per_file[path] = list(number_tokens(prose_of(lines, tokens), subject_re, own))
        with_unit_numerals.update(numeral for _, numeral, unit, _ in per_file[path] if unit)
    long_facts = defaultdict(lambda: defaultdict(dict))  # numeral -> unit or None -> {file: line}
    short_facts = defaultdict(dict)                      # "37 % (subject)" -> {file: line}
    for path, toks in per_file.items():
        for line, numeral, unit, subject in toks:
            sig = significant_digits(numeral)
            if sig >= 3 and ("." in numeral or "e" in numeral or
                             (numeral in with_unit_numerals and not is_constant_integer(numeral))):
                if numeral not in ALLOWED_KEYS:
                    long_facts[numeral][unit].setdefault(path, line)
            elif unit and sig >= 2:
                key = f"{numeral} {unit}"
                if key not in ALLOWED_KEYS:
                    short_facts[key + (f" ({subject})" if subject else "")].setdefault(path, line)
    facts = dict(short_facts)
    for numeral, by_unit in long_facts.items():
        unknown = by_unit.get(None, {})
        units = [u for u in by_unit if u is not None] or [None]
        for unit in units:
            places = dict(unknown)
            places.update(by_unit.get(unit, {}))
            facts[numeral if unit is None else f"{numeral} {unit}"] = places
    problems, quoted = [], []
    for key in sorted(facts, key=lambda k: (-len(facts[k]), k)):
        places = facts[key]
        listing = ", ".join(f"{p}:{n}" for p, n in sorted(places.items()))
        if len(places) > 2:
            problems.append(f"'{key}' is written in {len(places)} files (at most 2: where it belongs and "
                            f"one summary that quotes it): {listing}")
        elif len(places) == 2 and report:
            quoted.append(f"'{key}' in 2 files: {listing}")
    return problems, quoted, len(facts)

# --- docs/ paths named in the sources -----------------------------------------------------------

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".sh", ".cmake", "CMakeLists.txt", ".script",
                   ".md")
DOCS_PATH = re.compile(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_/]")


def check_source_references(root, skipped=()):
    """A comment, message or sentence that names docs/<path> must name something that exists (a page
    moved or removed leaves the code pointing nowhere). Paths are from the repository's root."""
    problems = []
    for rel in repository_files(root):
        if (not rel.endswith(SOURCE_SUFFIXES) or rel in skipped or rel.startswith(("tests/data/", "tests/docs/"))
                or any(part in SKIPPED_DIRS for part in rel.split("/"))):  # tests/docs: made-up paths
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if rel.endswith(".md"):  # link targets are the link check's
            text = re.sub(r"\]\([^)\n]*\)|\b(?:src|href)=\"[^\"]*\"", lambda m: " " * len(m.group(0)), text)
        for m in DOCS_PATH.finditer(text):
            if m.start() > 0 and text[m.start() - 1] in "./":
                continue  # ../docs/x in a relative link: the link check resolves those
            target = m.group(0).rstrip("./")
            if not os.path.exists(os.path.join(root, target)) and target not in PENDING_PAGES:
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: names {target}, which does not exist")
    return problems


def method_ids(root):
    """The method ids the docs write about: one page each in docs/methods/, and the CPU methods."""
    ids = {"cpu_separable", "cpu_openmp", "auto_exact"}
    folder = os.path.join(root, "docs", "methods")
    if os.path.isdir(folder):
        ids.update(os.path.splitext(n)[0] for n in os.listdir(folder) if n.endswith(".md") and n != "README.md")
    return ids

# --- the results folders -------------------------------------------------------------------------

def check_results_layout(files):
    """docs/results/README.md, and docs/results/<kind>/<file> for the files of each kind's one run."""
    problems = []
    for rel in files:
        if not rel.startswith("docs/results/") or rel == "docs/results/README.md":
            continue
        parts = rel.split("/")[2:]
        if len(parts) == 1:
            problems.append(f"{rel}: a run's file belongs in its GPU kind's folder (docs/results/<kind>/)")
        elif len(parts) > 2:
            problems.append(f"{rel}: one run per GPU kind: replace the files of docs/results/{parts[0]}/ "
                            f"instead of adding the folder {'/'.join(parts[1:-1])}/ (older runs stay in git)")
    return problems

# --- the walk -----------------------------------------------------------------------------------

MD = MarkdownIt("commonmark").enable("table")
PENDING = set()  # the pending pages linked but not there yet


def repository_files(root):
    """The repository's files, relative to root: what git tracks or would add (so build outputs and
    other ignored files are left out); without git, a walk that skips build folders and dot folders."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout.decode("utf-8")
        files = sorted(f for f in out.split("\0") if f and os.path.isfile(os.path.join(root, f)))
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith(".")
                             and not d.startswith(SKIPPED_PREFIXES))
        files += [os.path.relpath(os.path.join(dirpath, n), root) for n in sorted(filenames)]
    return files


def markdown_files(root):
    return [f for f in repository_files(root)
            if f.endswith(".md") and not any(part in SKIPPED_DIRS for part in f.split("/"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--numbers-report", action="store_true")
    a = parser.parse_args()
    root = os.path.abspath(a.root)
    parsed, prose_files = {}, {}
    problems = {"tables": [], "links": [], "numbers": [], "lengths": [], "references": [], "results": []}
    paths = list(markdown_files(root))
    replaced = {target for stand_in, target in STAND_INS.items() if stand_in in paths}
    subjects = method_ids(root)
    for path in paths:
        if path in replaced:
            continue
        as_path = STAND_INS.get(path, path)
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        tokens = MD.parse(text)
        parsed[path] = (text, tokens)
        lines = text.split("\n")
        problems["tables"] += check_tables(path, lines, tokens)
        problems["links"] += check_links(path, root, tokens, parsed, as_path)
        line_count = len(text.rstrip("\n").split("\n"))
        if as_path in MAX_LINES and line_count > MAX_LINES[as_path]:
            problems["lengths"].append(f"{path}: {line_count} lines, more than the {MAX_LINES[as_path]} "
                                       f"that {as_path} may have")
        if not (text.startswith(GENERATED_FIRST_LINE) or os.path.basename(path) in GENERATED_NAMES):
            prose_files[path] = (lines, tokens)
    problems["numbers"], quoted, keys = check_numbers(prose_files, a.numbers_report, subjects)
    problems["references"] = check_source_references(root, replaced)
    problems["results"] = check_results_layout(repository_files(root))
    for line in quoted:
        print("quoted:", line)
    for page in sorted(PENDING):
        print(f"pending: {page} is linked and not written yet (PENDING_PAGES)")
    total = 0
    for kind, found in problems.items():
        for p in found:
            print(f"{kind}: {p}")
        total += len(found)
    print(f"check_docs: {len(parsed)} Markdown files; {len(problems['tables'])} table problems, "
          f"{len(problems['links'])} broken links, {len(problems['references'])} docs/ paths in the "
          f"sources that do not exist, {len(problems['lengths'])} files too long, "
          f"{len(problems['results'])} results files outside their GPU kind's one folder, "
          f"{len(problems['numbers'])} result numbers in more than two files (of {keys} result numbers)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
