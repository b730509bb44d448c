"""The trajectory viewer's search part: `/` finds the steps whose text mentions a phrase (enter:
the next match), and `g` jumps to the next step a search across trajectories matched (the
sessions list's `?` opens the viewer with those events as `hits`). No worker: the steps' text is
in memory (`Step.haystack`); the viewer (screens/trajectory_viewer.py) moves its step list to
what this part finds and shows what it says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

if TYPE_CHECKING:
    from crmarena_tui.screens.viewer_feed import ViewerFeed
    from crmarena_tui.widgets.step_list import Step


class ViewerSearch:
    """Searches in the steps `feed` holds; `hits`: the events a search across trajectories
    matched (empty when the viewer was not opened from one)."""

    def __init__(self, feed: ViewerFeed, hits: frozenset[int]) -> None:
        self.feed = feed
        self.hits = hits
        self.text = ""  # what the search box holds

    def first_seq(self, focus_seq: int | None) -> int | None:
        """The event to open at: `focus_seq`, else the first hit."""
        return focus_seq if focus_seq is not None or not self.hits else min(self.hits)

    def is_hit(self, step: Step) -> bool:
        return any(ev.seq in self.hits for ev in step.events)

    def hit_steps(self) -> set[int]:
        return {s.index for s in self.feed.steps if self.is_hit(s)}

    def matches(self, text: str) -> list[int]:
        """The steps whose text mentions `text` (case-insensitive), in order."""
        needle = text.casefold().strip()
        return [s.index for s in self.feed.steps if needle and needle in s.haystack]

    def typed(self, text: str) -> tuple[list[int], str | None]:
        """The search box now holds `text`: its matches, and what the status line says (None
        for an empty box)."""
        self.text = text
        found = self.matches(text)
        if not text.strip():
            return found, None
        s = "s" if len(found) != 1 else ""
        return found, f"{len(found)} step{s} match “{escape(text.strip())}”"

    def next_match(self, text: str, cursor: int) -> tuple[int, str] | None:
        """The first match after `cursor` (wrapping round) with the status line's words, or
        None when no step matches."""
        found = self.matches(text)
        if not found:
            return None
        target = next((i for i in found if i > cursor), found[0])
        return target, f"match {found.index(target) + 1} of {len(found)} · / then enter: next"
