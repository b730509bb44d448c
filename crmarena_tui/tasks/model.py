"""The Task model: one benchmark row plus where it came from."""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

OrgType = Literal["b2b", "b2c", "original"]
RewardMetric = Literal["exact_match", "fuzzy_match", "privacy_rejection"]
TODAY = re.compile(r"Today's date:\s*(\d{4}-\d{2}-\d{2})", re.IGNORECASE)


class TaskMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid")

    required: str = ""
    optional: str = ""


class Task(BaseModel):
    """One CRMArena(-Pro) task row.

    `answer` is the ground truth exactly as the dataset stores it: a list of strings, where `[None]`
    means the right answer is "None". `source` is `demo`, `hf:<split>` or a file path.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    idx: int
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
