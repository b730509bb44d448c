"""`crmarena-tui scan --themes`: group the reasons and notes of the selected sessions into themes
(scans/themes.py), store them under a scan of kind `themes`, and print each theme with its
sessions per configuration and links to example steps (`SESSION:STEP`, as `view` opens them)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from crmarena_tui.errors import ExitCode, UserError

if TYPE_CHECKING:
    from crmarena_tui.llm.client import LLMClient
    from crmarena_tui.storage.store import Store
    from crmarena_tui.storage.themes import Theme

EXAMPLES = 3  # links printed per theme


def run_themes(
    store: Store,
    args: argparse.Namespace,
    sessions: list[int],
    selection: str,
    client: LLMClient,
) -> int:
    from crmarena_tui.scans import themes as grouping
    from crmarena_tui.storage import themes as stored

    scan_ids = None
    if args.of:
        scan_ids = [_scan_id(store, args.of)]
    members = grouping.collect(store, sessions, scan_ids)
    if not members:
        raise UserError(
            "no reason or note to group: scan the sessions first, or pick others (--where, --search)"
        )
    print(
        f"grouping {len(members)} reason(s) and note(s) of {len({m.session_id for m in members})} session(s)"
    )
    scan = store.suggestions.start(
        args.name or f"themes@{args.model}",
        kind="themes",
        model=args.model,
        prompt_version=grouping.THEMES_VERSION,
        selection=" ".join(p for p in (selection, f"of={args.of}" if args.of else "") if p),
        resume=False,
    )
    found, usage = grouping.group(client, members, retries=args.retries)
    stored.save(store, scan.id, found)
    store.suggestions.spend(scan.id, usage.tokens_in, usage.tokens_out, usage.cost, usage.seconds)
    store.suggestions.finish(scan.id)
    for theme in stored.of_scan(store, scan.id):
        print(theme_line(theme))
    cost = "unknown" if usage.cost is None else f"${usage.cost:.4f}"
    print(
        f"themes scan {scan.id}: {len(found)} theme(s); tokens {usage.tokens_in:,} in,"
        f" {usage.tokens_out:,} out; cost {cost}"
    )
    return 0


def theme_line(theme: Theme) -> str:
    """`NAME (N sessions: CONFIG n, ...): DESCRIPTION  e.g. 12:4 17 ...`."""
    configs = ", ".join(f"{c} {n}" for c, n in theme.per_configuration.items())
    links = " ".join(m.link for m in theme.members[:EXAMPLES])
    return (
        f"{theme.name} ({theme.sessions} session(s): {configs}): {theme.description}  e.g. {links}"
    )


def _scan_id(store: Store, text: str) -> int:
    if text.isdigit():
        return store.suggestions.scan(int(text)).id
    named = store.suggestions.named(text)
    if not named:
        raise UserError(f"--of: no scan named {text!r} (scan --list)", code=ExitCode.USAGE)
    return named[-1].id
