"""What the command-line check scripts share: a list of named checks that prints each one and
collects the failures (the scripts run from this folder, so `from check_kit import Checks`)."""


class Checks:
    def __init__(self):
        self.failures = []
        self.count = 0

    def check(self, name, condition, detail=""):
        """Records one check; prints 'ok' or 'FAIL' with the detail."""
        self.count += 1
        if condition:
            print(f"ok  {name}")
        else:
            self.failures.append(f"{name}: {detail}")
            print(f"FAIL {name}: {detail}")
        return condition

    def summary(self):
        """Prints the count and returns the exit status: 0 if every check passed."""
        print(f"{self.count - len(self.failures)} of {self.count} checks passed")
        return 1 if self.failures else 0
