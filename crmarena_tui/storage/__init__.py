"""Sessions database: schema + migrations, domain models, conversions and the `Store` facade."""

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
