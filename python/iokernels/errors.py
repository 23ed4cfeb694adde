"""The one error type the command line reports: a message naming the problem
and a hint saying what to do next (the Python twin of iok::Error)."""
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._types import StrPath


class UsageError(Exception):
    def __init__(self, what: str, hint: str = "") -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint

    def __str__(self) -> str:
        return self.what + (f"\n  hint: {self.hint}" if self.hint else "")


def read_json(path: "StrPath", missing_hint: str, invalid_hint: str) -> Any:
    """The JSON document at `path`; a missing or malformed file is a UsageError."""
    import json
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist", missing_hint) from None
    except json.JSONDecodeError as e:
        raise UsageError(f"{path} is not valid JSON: {e}", invalid_hint) from e
