"""A `SessionSpec` for tests that create sessions straight in the store: the org named by its
kind and ref (a `DetachedOrg`, never opened)."""

from __future__ import annotations

from typing import Any

from crmarena_tui.orgs.detached_org import DetachedOrg
from crmarena_tui.storage.models import Participant, SessionSpec
from crmarena_tui.tasks.model import Task


def session_spec(
    participant: Participant,
    task: Task,
    org_kind: str = "local",
    org_ref: str = "demo",
    **fields: Any,
) -> SessionSpec:
    return SessionSpec(task, DetachedOrg(org_kind, org_ref, task.org_type), participant, **fields)
