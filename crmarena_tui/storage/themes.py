"""Themes (schema 19, `themes` and `theme_members`): the reasons (suggestions') and notes
(annotations') of a set of sessions, grouped by a `themes` scan (scans/themes.py) into named
themes; each text is a member of one theme, with the session and step it is about, so a theme
links to example steps (`SESSION:STEP`) and counts per configuration."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store
    from crmarena_tui.storage.suggestions import Scan


@dataclass(frozen=True)
class Member:
    """A text a theme holds: a suggestion's reason (`source` suggestion) or an annotation's note
    (`source` note), `source_id` its row, about `session_id` (and step `event_seq`)."""

    source: str
    source_id: int
    session_id: int
    event_seq: int | None
    text: str

    @property
    def link(self) -> str:
        """`SESSION:STEP` (or `SESSION` for the whole session), as `view` opens it."""
        return (
            str(self.session_id)
            if self.event_seq is None
            else f"{self.session_id}:{self.event_seq}"
        )


@dataclass(frozen=True)
class Theme:
    name: str
    description: str = ""
    members: tuple[Member, ...] = ()
    id: int = 0
    per_configuration: dict[str, int] = field(default_factory=dict)

    @property
    def sessions(self) -> int:
        return len({m.session_id for m in self.members})


def save(store: Store, scan_id: int, themes: Sequence[Theme]) -> None:
    """Store `themes` as the themes of scan `scan_id`, replacing any it had."""
    with store.transaction() as conn:
        conn.execute("DELETE FROM themes WHERE scan_id = ?", (scan_id,))
        for theme in themes:
            cursor = conn.execute(
                "INSERT INTO themes (scan_id, name, description) VALUES (?, ?, ?)",
                (scan_id, theme.name, theme.description),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO theme_members (theme_id, source, source_id, session_id,"
                " event_seq, text) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (cursor.lastrowid, m.source, m.source_id, m.session_id, m.event_seq, m.text)
                    for m in theme.members
                ],
            )


def latest(store: Store) -> Scan | None:
    """The newest finished themes scan (None: none was run)."""
    done = [s for s in store.suggestions.scans("themes") if s.finished_at is not None]
    return done[-1] if done else None


def of_scan(store: Store, scan_id: int) -> list[Theme]:
    """The themes of a scan, largest first, each with its members (by session and step) and
    its count of sessions per configuration (`storage/search.configurations`)."""
    from crmarena_tui.storage.search import configurations

    named = configurations(store)
    rows = store.read(
        "SELECT t.id, t.name, t.description, m.source, m.source_id, m.session_id, m.event_seq,"
        " m.text FROM themes t LEFT JOIN theme_members m ON m.theme_id = t.id"
        " WHERE t.scan_id = ? ORDER BY t.id, m.session_id, m.event_seq, m.source_id",
        (scan_id,),
    )
    found: dict[int, tuple[str, str, list[Member]]] = {}
    for tid, name, description, source, source_id, session_id, seq, text in rows:
        entry = found.setdefault(int(tid), (str(name), str(description), []))
        if source is not None:
            entry[2].append(Member(source, int(source_id), int(session_id), seq, str(text)))
    themes = []
    for tid, (name, description, members) in found.items():
        sessions = {m.session_id for m in members}
        counts = Counter(named.get(s, ("?", "?"))[0] for s in sessions)
        themes.append(Theme(name, description, tuple(members), tid, dict(counts.most_common())))
    return sorted(themes, key=lambda t: (-t.sessions, t.name))


def session_themes(store: Store, scan_id: int) -> dict[int, list[str]]:
    """{session id: the names of the themes its reasons and notes are in}, for the exports."""
    found: dict[int, list[str]] = {}
    for session_id, name in store.read(
        "SELECT DISTINCT m.session_id, t.name FROM theme_members m JOIN themes t"
        " ON t.id = m.theme_id WHERE t.scan_id = ? ORDER BY m.session_id, t.name",
        (scan_id,),
    ):
        found.setdefault(int(session_id), []).append(str(name))
    return found
