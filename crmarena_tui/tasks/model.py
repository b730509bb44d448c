"""The Task model: one benchmark row plus where it came from."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from crmarena_tui.tasks.rows import MAX_IDX

OrgType = Literal["b2b", "b2c", "original"]
RewardMetric = Literal["exact_match", "fuzzy_match", "privacy_rejection"]
TODAY = re.compile(r"Today's date:\s*(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
TODAY_GIVEN = re.compile(r"Today's date\s*:\s*(\S*)", re.IGNORECASE)  # what a row says it is


class TaskMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid")

    required: str = ""
    optional: str = ""

    @field_validator("required", "optional")
    @classmethod
    def _today_is_a_date(cls, text: str, info: ValidationInfo) -> str:
        """The task's "today" (read from here when it runs) is a real day as YYYY-MM-DD: in
        `required` every "Today's date: ..." must be one, in `optional` every date it gives."""
        pattern = TODAY_GIVEN if info.field_name == "required" else TODAY
        for match in pattern.finditer(text or ""):
            given = match.group(1).rstrip(".,;")
            try:
                if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", given):
                    raise ValueError(given)
                date.fromisoformat(given)
            except ValueError:
                raise ValueError(
                    f'"Today\'s date: {given}" is not a date; write it as YYYY-MM-DD'
                ) from None
        return text


class Task(BaseModel):
    """One CRMArena(-Pro) task row.

    `answer` is the ground truth exactly as the dataset stores it: a list of strings, where `[None]`
    means the right answer is "None". `source` is `demo`, `hf:<split>` or a file path.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    idx: int = Field(ge=0, le=MAX_IDX)
    task: str
    query: str
    answer: list[str | None]
    metadata: TaskMetadata = Field(default_factory=TaskMetadata)
    reward_metric: RewardMetric
    persona: str = ""
    source: str = "demo"
    org_type: OrgType = "b2b"
    interactive: bool = False

    @property
    def key(self) -> str:
        """A stable identifier of this task within its source: `<source>#<idx>`."""
        return f"{self.source}#{self.idx}"

    @property
    def gold(self) -> list[str]:
        """The ground truth as upstream grades it: `[None]` reads as `["None"]`."""
        return ["None" if a is None else a for a in self.answer]

    def row(self) -> dict:
        """The dataset fields plus source, org_type and interactive, as JSON-ready data."""
        return self.model_dump(mode="json")

    def today(self) -> date | None:
        """The task's "Today's date: YYYY-MM-DD" (required metadata first, then optional): the
        day relative periods and date literals count from."""
        for text in (self.metadata.required, self.metadata.optional):
            match = TODAY.search(text or "")
            if match:
                return date.fromisoformat(match.group(1))
        return None

    def redacted(self) -> Task:
        """A copy with the ground truth removed, for whoever works the task before submitting."""
        return self.model_copy(update={"answer": []})
