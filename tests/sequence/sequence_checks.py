"""What the sequence check scripts share: a list of named checks that prints each outcome and
remembers the failures, and running a tool that must end with a given exit status and name the
problem in its messages (never a crash)."""
import subprocess


class Checks:
    def __init__(self, tool=None):
        self.tool = tool
        self.failures = []

    def check(self, name, condition, detail=""):
        print(("ok  " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
        if not condition:
            self.failures.append(name)
        return condition

    def expect(self, name, args, status, words=(), timeout=300):
        """Runs the tool with `args`; checks the exit status and that stderr says each of `words`."""
        done = subprocess.run([self.tool, *args], capture_output=True, text=True, timeout=timeout)
        problems = []
        if done.returncode < 0:
            problems.append(f"killed by signal {-done.returncode} (a crash)")
        elif done.returncode != status:
            problems.append(f"exit status {done.returncode}, expected {status}")
        problems += [f"stderr does not mention {w!r}" for w in words if w.lower() not in done.stderr.lower()]
        problems += [f"stderr shows {s!r}" for s in ("terminate called", "Segmentation", "core dumped") if s in done.stderr]
        self.check(name, not problems, "; ".join(problems) + f"\n      command: {' '.join(args)}\n"
                   f"      stderr: {done.stderr.strip()[-800:]}")
        return done

    def summary(self, what):
        if self.failures:
            print(f"{len(self.failures)} check(s) failed: {', '.join(self.failures)}")
            return 1
        print(f"all {what} checks passed")
        return 0
