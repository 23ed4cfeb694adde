"""The one error type the command line reports: a message naming the problem
and a hint saying what to do next (the Python twin of iok::Error)."""


class UsageError(Exception):
    def __init__(self, what, hint=""):
        super().__init__(what)
        self.what = what
        self.hint = hint

    def __str__(self):
        return self.what + (f"\n  hint: {self.hint}" if self.hint else "")
