"""A tiny TAP 14 producer: no pytest, no dependencies. Not a test itself (discovery runs only
test*.py / *_test.py files found in a walk)."""
import json
import sys


class Tap:
    def __init__(self, planned):
        self.count = 0
        self.failed = 0
        print("TAP version 14")
        print(f"1..{planned}")

    def ok(self, cond, name, directive=None):
        self.count += 1
        line = f"{'ok' if cond else 'not ok'} {self.count} - {name}"
        if directive:
            line += f" # {directive}"
        print(line)
        if not cond and not (directive or "").upper().startswith("TODO"):
            self.failed += 1
        return cond

    def skip(self, name, why):
        return self.ok(True, name, f"SKIP {why}")

    def equal(self, actual, expected, name):
        """Compares two values; on failure prints YAML diagnostics with expected/actual (JSON
        is valid YAML flow style, so nested dicts and lists keep their structure)."""
        if self.ok(actual == expected, name):
            return True
        print("  ---")
        print("  message: values differ")
        print(f"  expected: {json.dumps(expected, sort_keys=True)}")
        print(f"  actual: {json.dumps(actual, sort_keys=True)}")
        print("  ...")
        return False

    def done(self):
        sys.stdout.flush()
        sys.exit(1 if self.failed else 0)
