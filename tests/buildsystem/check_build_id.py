#!/usr/bin/env python3
"""cuda/build_id.cmake names the checked-out commit at every build: in a scratch git repository it
writes GAUSSLAB_BUILD_ID as VERSION+commit, leaves the header untouched (same bytes, same mtime) when
the commit is the same, and names the new commit after another one is made (a pull without
reconfiguring CMake). Usage: check_build_id.py --cmake CMAKE --script cuda/build_id.cmake"""
import argparse
import os
import subprocess
import sys
import tempfile


def run(*args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--script", required=True)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        repo = os.path.join(work, "repo")
        os.mkdir(repo)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        run("git", "init", "-q", repo)
        run(*git, "commit", "-q", "--allow-empty", "-m", "one", cwd=repo)
        out = os.path.join(work, "gen", "gausslab", "build_id.h")

        def build():
            run(a.cmake, f"-DSOURCE_DIR={repo}", "-DVERSION=9.8.7", f"-DOUT={out}", "-P", a.script)
            with open(out) as f:
                return f.read()

        def expect_commit(text):
            commit = run("git", "rev-parse", "--short=12", "HEAD", cwd=repo)
            want = f'#define GAUSSLAB_BUILD_ID "9.8.7+{commit}"'
            if want not in text:
                sys.exit(f"FAIL: the header does not say {want}:\n{text}")

        expect_commit(build())
        before = os.stat(out).st_mtime_ns
        os.utime(out, ns=(before - 10**9, before - 10**9))  # so that a rewrite would show
        marked = os.stat(out).st_mtime_ns
        expect_commit(build())
        if os.stat(out).st_mtime_ns != marked:
            sys.exit("FAIL: the header was rewritten for the same commit (every build would recompile)")
        run(*git, "commit", "-q", "--allow-empty", "-m", "two", cwd=repo)
        expect_commit(build())
        print("build id follows the commit: ok")


if __name__ == "__main__":
    main()
