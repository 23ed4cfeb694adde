"""The one error a log can raise: one line for the user, exit status 2."""


class LogError(Exception):
    """A log that cannot be replayed; str() is the one-line message."""
