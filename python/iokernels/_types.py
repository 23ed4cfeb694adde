"""Type aliases shared by the modules (for type checking; nothing at run time)."""
import os
from typing import Any

# A JSON document as read or written: an iokernels-result/1 run, an index,
# a ceiling, a suite table.  Its shape is the schema's, not Python's.
Doc = dict[str, Any]
# A flattened result row (results.rows: keys results.FIELDS and a few more).
Row = dict[str, Any]
# A path given by a caller: text or a Path.
StrPath = str | os.PathLike[str]
