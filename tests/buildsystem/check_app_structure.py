#!/usr/bin/env python3
"""The viewer's structure (issue 36): no class in app/ with more than 40 members, the comparison
mode's wiring at most 400 lines, Dear ImGui only in the panels and the frame loop (none in the
headless comparison core, the actions or the modes' wiring), and app/'s folders in layers: a file includes only from its own folder and the folders below it,
    actions < viewer < comparison < panels < modes   (main.cpp stands above them all).

How members are counted, for every class and struct defined in app/ (headers and sources; a class
nested in another is counted on its own, and counts as one member of its outer class):
  - each declaration at the class's top level counts: a member function (declared, defined inline,
    defaulted or deleted, constructors, destructors and operators included), a friend function, a
    type alias, a nested type, and each declarator of a data member (`int x = 0, y = 0;` is two);
  - access specifiers, static_asserts, comments and preprocessor lines do not count.
ComparisonMode's lines are those of every file under app/ that declares it or defines one of its
members (`ComparisonMode::`), blank lines and comments included.

    check_app_structure.py APP_DIR [--max-members 40] [--max-mode-lines 400] [--list N]
Exit status 0 when every rule holds, 1 otherwise (each broken rule named)."""
import argparse
import os
import re
import sys


def strip_comments_and_strings(text):
    """Comments, string and character literals replaced by spaces (line breaks kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    text = "".join(out)
    # Preprocessor lines (with their continuations) carry no members.
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.M)


def matching(text, i, open_c, close_c):
    """The index just past the bracket that closes text[i] (an open_c)."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_c:
            depth += 1
        elif text[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


CLASS_HEAD = re.compile(r"\b(class|struct|union)\s+(?:alignas\s*\([^)]*\)\s*)?([A-Za-z_][\w:]*)\s*(?:final\s*)?(?::[^;{()]*)?\{")


def top_level_commas(text):
    """Commas outside (), [], {} and template angle brackets."""
    depth, count = 0, 0
    for k, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and not text[max(0, k - 8):k].rstrip().endswith("operator"):
            depth += 1
        elif c == ">" and k > 0 and text[k - 1] != "-" and not text[max(0, k - 8):k].rstrip().endswith("operator"):
            depth -= 1
        elif c == "," and depth == 0:
            count += 1
    return count


def declaration_members(decl):
    """How many members one top-level declaration of a class body declares."""
    decl = decl.strip()
    decl = re.sub(r"^(?:public|private|protected)\s*:", "", decl).strip()
    while True:  # several access specifiers in a row
        stripped = re.sub(r"^(?:public|private|protected)\s*:", "", decl).strip()
        if stripped == decl:
            break
        decl = stripped
    if not decl or decl.startswith("static_assert"):
        return 0
    if re.match(r"friend\s+(class|struct)\b", decl):
        return 0
    decl = re.sub(r"^template\s*<.*?>\s*", "", decl, flags=re.S)
    if re.match(r"(using|typedef)\b", decl) or re.match(r"enum\b", decl):
        return 1
    head = re.split(r"(?<![=!<>])=(?!=)", decl, maxsplit=1)[0]  # before a default initializer
    if "(" in re.sub(r"<[^<>]*>", "", head) or re.search(r"\boperator\b", head):
        return 1  # a function (NSDMIs cannot use parentheses)
    return 1 + top_level_commas(decl)


def classes_in(text, path, found):
    """Appends (name, members, path, line) for each class defined in text."""
    for m in CLASS_HEAD.finditer(text):
        before = text[max(0, m.start() - 6):m.start()]
        if re.search(r"enum\s*$", before):
            continue
        open_i = m.end() - 1
        close_i = matching(text, open_i, "{", "}")
        body = text[open_i + 1:close_i - 1]
        members, i, start = 0, 0, 0
        while i < len(body):
            c = body[i]
            if c == "{":
                end = matching(body, i, "{", "}")
                prefix = body[start:i]
                # A nested type (counted as one member here, measured on its own by finditer) or an
                # inline function body; a brace initializer of a data member stays part of its line.
                if re.search(r"\b(class|struct|union|enum)\b[^;()]*$", prefix) or re.search(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->[^;{]*)?(:\s*[^;{]*)?$", prefix):
                    members += 1 if prefix.strip() else 0
                    k = end
                    while k < len(body) and body[k] in " \t\n;":
                        if body[k] == ";":
                            k += 1
                            break
                        k += 1
                    i = start = k
                    continue
                i = end
                continue
            if c == "(":
                i = matching(body, i, "(", ")")
                continue
            if c == ";":
                members += declaration_members(body[start:i])
                start = i + 1
            elif c == ":" and re.search(r"\b(public|private|protected)\s*$", body[start:i]) and body[i:i + 2] != "::":
                start = i + 1
            i += 1
        members += declaration_members(body[start:])
        line = text.count("\n", 0, m.start()) + 1
        found.append((m.group(2), members, path, line))


# The rules above on a few declarations (checked at every run, so the counts below are the rules'):
SELF_TEST = r"""
class Example final : public Base {
 public:
  Example(int x) : x_(x) {}            // a constructor defined inline: 1
  ~Example() override;                 // 1
  Example(const Example&) = delete;    // 1
  bool operator==(const Example& o) const { return x_ == o.x_; }  // 1
  friend bool operator!=(const Example& a, const Example& b) { return !(a == b); }  // 1
  using Work = std::function<void(int, int)>;  // 1
  template <class T> void visit(T&& t, std::map<int, int> m = {});  // 1
  static_assert(sizeof(int) == 4, "not counted");
 private:
  struct Nested {                      // 1 here, and 2 of its own
    int a = 0, b = 1;
  };
  int x_ = 0, y_ = 0;                  // 2
  std::map<std::string, std::pair<int, int>> table_;  // 1
  std::function<void(int, double)> callback_;  // 1
  bool flags_[2] = {false, true};      // 1
};
"""
SELF_TEST_COUNTS = {"Example": 13, "Nested": 2}


def self_test():
    found = []
    classes_in(strip_comments_and_strings(SELF_TEST), "self-test", found)
    counts = {name: members for name, members, _, _ in found}
    if counts != SELF_TEST_COUNTS:
        print(f"FAIL: the counting rules' self-test counted {counts}, not {SELF_TEST_COUNTS}")
        return False
    return True


# Besides app/panels/, the files that may use Dear ImGui: the frame loop and its ImGui session.
IMGUI_FRAME_LOOP = [os.path.join("viewer", "viewer.cpp"), os.path.join("viewer", "imgui_session.cpp"),
                    os.path.join("viewer", "imgui_session.hpp")]

# The folders of app/ from the ground up; a file may include from its own folder and those below.
LAYERS = ["actions", "viewer", "comparison", "panels", "modes"]


def layering_problems(app, sources):
    problems = []
    for path in sources:
        rel = os.path.relpath(path, app)
        folder = rel.split(os.sep)[0] if os.sep in rel else None
        if folder is None:
            continue  # main.cpp
        if folder not in LAYERS:
            problems.append(f"app/{rel}: the folder {folder}/ is in no layer (check_app_structure.py: LAYERS)")
            continue
        for line_number, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s*"([a-z_]+)/', line)
            if m and m.group(1) in LAYERS and LAYERS.index(m.group(1)) > LAYERS.index(folder):
                problems.append(f"app/{rel}:{line_number} includes {m.group(1)}/ from {folder}/, a lower layer")
    return problems


def main():
    if not self_test():
        return 1
    parser = argparse.ArgumentParser()
    parser.add_argument("app")
    parser.add_argument("--max-members", type=int, default=40)
    parser.add_argument("--max-mode-lines", type=int, default=400)
    parser.add_argument("--list", type=int, default=12, help="print the N classes with the most members")
    args = parser.parse_args()
    app = os.path.abspath(args.app)
    sources = []
    for folder, _, names in os.walk(app):
        sources += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".hpp", ".cpp", ".h"))]
    found, problems = [], []
    mode_files = []
    for path in sources:
        raw = open(path, encoding="utf-8").read()
        text = strip_comments_and_strings(raw)
        rel = os.path.relpath(path, os.path.dirname(app))
        classes_in(text, rel, found)
        if re.search(r"\bclass\s+ComparisonMode\b[^;]*\{", text) or "ComparisonMode::" in text:
            mode_files.append((rel, raw.count("\n")))
        inside = os.path.relpath(path, app)
        if re.search(r'#\s*include\s*[<"][^">]*imgui', raw) and not (
                inside.startswith("panels" + os.sep) or inside in IMGUI_FRAME_LOOP):
            problems.append(f"{rel} includes Dear ImGui: only app/panels/ and the frame loop "
                            f"({', '.join(IMGUI_FRAME_LOOP)}) draw with it")
    found.sort(key=lambda f: -f[1])
    print(f"{len(found)} classes and structs in {os.path.relpath(app)}; the most members:")
    for name, members, path, line in found[:args.list]:
        print(f"  {members:4d}  {name}  ({path}:{line})")
    for name, members, path, line in found:
        if members > args.max_members:
            problems.append(f"{name} ({path}:{line}) has {members} members, more than {args.max_members}")
    problems += layering_problems(app, sources)
    mode_lines = sum(lines for _, lines in mode_files)
    print(f"ComparisonMode: {mode_lines} lines in " + ", ".join(f"{p} ({n})" for p, n in mode_files))
    if not mode_files:
        problems.append("no file declares ComparisonMode")
    elif mode_lines > args.max_mode_lines:
        problems.append(f"ComparisonMode takes {mode_lines} lines, more than {args.max_mode_lines}")
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print("ok: every class has at most %d members, ComparisonMode %d lines of at most %d, "
              "Dear ImGui in app/panels/ and the frame loop only, no include the wrong way between %s"
              % (args.max_members, mode_lines, args.max_mode_lines, " < ".join(LAYERS)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
