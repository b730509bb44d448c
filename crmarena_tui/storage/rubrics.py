"""Rubrics kept by name (schema 19, `rubrics`): a question a scanner answers about each session,
the JSON Schema its answer must satisfy, and (schema 21) whether its transcripts show the task's
expected answer (`crmarena-tui scan --save-rubric NAME`, then
`--rubric NAME`), as searches are saved by name (storage/search.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crmarena_tui.storage import convert
from crmarena_tui.storage.errors import NotFound

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store


class NoRubric(NotFound):
    """No rubric is saved under the name asked for."""


@dataclass(frozen=True)
class Rubric:
    name: str
    question: str
    answer_schema: dict[str, Any]
    created_at: str = ""
    show_answer: bool = False  # its transcripts show the task's expected answer (schema 21)


def save(store: Store, rubric: Rubric) -> None:
    """Save (or replace) `rubric` under its name."""
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO rubrics (name, question, answer_schema, created_at, show_answer)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET question ="
            " excluded.question, answer_schema = excluded.answer_schema, created_at ="
            " excluded.created_at, show_answer = excluded.show_answer",
            (
                rubric.name,
                rubric.question,
                json.dumps(rubric.answer_schema),
                convert.iso(store.clock()),
                int(rubric.show_answer),
            ),
        )


def saved(store: Store) -> list[Rubric]:
    """Every saved rubric, by name."""
    rows = store.read(
        "SELECT name, question, answer_schema, created_at, show_answer FROM rubrics ORDER BY name"
    )
    return [Rubric(str(n), str(q), json.loads(s), str(t), bool(a)) for n, q, s, t, a in rows]


def named(store: Store, name: str) -> Rubric:
    found = [r for r in saved(store) if r.name == name]
    if not found:
        names = [r.name for r in saved(store)]
        listed = f" (saved: {', '.join(names)})" if names else " (none are saved)"
        raise NoRubric(f"no rubric named {name!r}{listed}")
    return found[0]
