"""Which sessions a report covers: `report --org-type --mode --participant --task-source
--protocol`. Every section of the report reads the same sessions (labels and agreement too: the
annotations of the sessions kept)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.reports.attempts import ran_under
from crmarena_tui.storage.configuration import mode_of, org_type_of, session_configuration
from crmarena_tui.storage.participant_names import names_configuration as names_participant

if TYPE_CHECKING:
    from crmarena_tui.storage.models import Participant, Session


@dataclass(frozen=True, slots=True)
class ReportFilter:
    """None or empty: no condition. `mode` is `single` or `chat`; `protocol` (`upstream` or
    `workbench`) the grading protocol the rows name: the grade's, else (ungraded sessions, grades
    from before protocols were recorded) the protocol the session ran under."""

    org_type: str | None = None
    mode: str | None = None
    participants: tuple[str, ...] = ()
    task_sources: tuple[str, ...] = ()
    protocol: str | None = None
    search: str = ""  # `--search QUERY` (its sessions: storage/search_sessions.only_sessions)

    @property
    def active(self) -> bool:
        return bool(
            self.org_type
            or self.mode
            or self.participants
            or self.task_sources
            or self.protocol
            or self.search
        )

    def keeps(self, participant: Participant, session: Session, graded: str | None = None) -> bool:
        """Whether the filter keeps `session`; `graded`: its grade's protocol, if known."""
        if self.org_type and org_type_of(session) != self.org_type:
            return False
        if self.mode and mode_of(session) != self.mode:
            return False
        if self.task_sources and session.task_source not in self.task_sources:
            return False
        if self.protocol and (graded or ran_under(session)) != self.protocol:
            return False
        if self.participants:
            configuration = session_configuration(participant, session)
            if not any(
                names_participant(w, configuration, participant.name) for w in self.participants
            ):
                return False
        return True

    def row(self) -> dict[str, Any]:
        """The filter as the report's JSON states it."""
        return {
            "org_type": self.org_type,
            "mode": self.mode,
            "participants": list(self.participants),
            "task_sources": list(self.task_sources),
            "protocol": self.protocol,
            "search": self.search or None,
        }


NO_FILTER = ReportFilter()
