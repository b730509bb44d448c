"""How a duration reads, everywhere a person sees one (sessions list, compare, viewer, report):
`6.7 s`, `1 min 35 s`, `1 h 02 min`. The report's JSON keeps plain seconds."""

from __future__ import annotations


def format_duration(seconds: float | None) -> str:
    """A duration in the largest unit that keeps it short; "—" when there is none."""
    if seconds is None:
        return "—"
    seconds = max(0.0, float(seconds))
    if seconds < 59.5:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    whole = int(round(seconds))
    if whole < 3600:
        minutes, secs = divmod(whole, 60)
        return f"{minutes} min {secs:02d} s"
    hours, rest = divmod(whole, 3600)
    return f"{hours} h {rest // 60:02d} min"
