"""What the Python check scripts share: one line per labelled check ("ok
LABEL" or "FAILED LABEL", which the lit tests FileCheck), errors that must
be a GraphError printed with their message, and the failure count that
becomes the exit status."""
import sys


class Report:
    """`clean` rewrites an error message before it is printed (a temporary
    path replaced by a fixed word, so the expected text does not vary)."""

    def __init__(self, name, clean=lambda text: text):
        self.name, self.clean, self.failures = name, clean, 0

    def check(self, label, ok):
        self.failures += not ok
        print("%s %s" % ("ok" if ok else "FAILED", label))

    def error(self, label, action):
        """`action` must raise a GraphError: any other exception, or none,
        is a failure."""
        import graphpart
        try:
            action()
        except graphpart.GraphError as raised:
            print("error %s: %s" % (label, self.clean(str(raised))))
            return
        except Exception as raised:  # noqa: BLE001 - the bug a check finds
            self.failures += 1
            print("FAILED %s: %s: %s" % (label, type(raised).__name__, raised))
            return
        self.failures += 1
        print("FAILED no error for %s" % label)

    def exit(self):
        print("%s: %d failure(s)" % (self.name, self.failures))
        sys.exit(1 if self.failures else 0)
