"""The sessions database: schema and migrations, domain models, the `Store` facade (the one
repository), bulk writes, the import of upstream result files, exports, search, leases, and the
report's SQL.
Layer: below `interchange | scans`, above `graders` and `llm` in the `layers` contract
(pyproject.toml): may import `graders`, `llm` and every layer under them, down to `errors`; never textual."""

from crmarena_tui.storage.errors import NotASessionsDatabase, NotFound, SchemaTooNew, StorageError
from crmarena_tui.storage.models import Annotation, Event, GradeRow, Participant, Session
from crmarena_tui.storage.store import Store

__all__ = [
    "Annotation",
    "Event",
    "GradeRow",
    "NotASessionsDatabase",
    "NotFound",
    "Participant",
    "SchemaTooNew",
    "Session",
    "StorageError",
    "Store",
]
