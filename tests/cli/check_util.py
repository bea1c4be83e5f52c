"""The want/finish bookkeeping of the cli check scripts (check_sm_resources.py, check_h100_mshr.py)."""
import sys

fails, checks = [], []


def want(cond, what):
    """Records one check; `what` says what was expected (and what came) when it fails."""
    checks.append(what)
    if not cond:
        fails.append(what)


def finish(name):
    """Prints the failures and exits 1, or one line with the number of checks passed."""
    if fails:
        print("FAIL:\n  " + "\n  ".join(fails))
        sys.exit(1)
    print("%s: all %d checks passed" % (name, len(checks)))
