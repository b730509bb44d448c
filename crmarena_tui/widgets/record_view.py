"""One record in full: every field with its whole value (long text wrapped), then each related
list with its records. `enter` on a field holding an Id, or on a related record, opens it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from crmarena_tui.widgets.result_rows import full_text, looks_like_id

_LABELS = ("Name", "Subject", "Title", "CaseNumber")


def child_label(child: dict[str, Any]) -> str:
    return next((" ".join(str(child[k]).split()) for k in _LABELS if child.get(k)), "")


class RecordView(OptionList):
    """A record's fields and related lists, one option each (wrapped to the width)."""

    @dataclass
    class IdChosen(Message):
        view: RecordView
        record_id: str

        @property
        def control(self) -> RecordView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.targets: list[str | None] = []  # the Id each option opens
        self.related_start = 0  # the first option of the related lists

    def show(
        self,
        record: dict[str, Any],
        related: dict[str, list[dict[str, Any]]],
        id_prefixes: set[str] | None,
    ) -> None:
        options: list[Option] = []
        targets: list[str | None] = []
        for name, value in record.items():
            if name == "attributes":
                continue
            text = full_text(value)
            opens = value if looks_like_id(value, id_prefixes) else None
            shown = Text.assemble((f"{name}: ", "bold"), text or ("—", "dim"))
            if opens:
                shown.append("  ↵ opens", style="dim")
            options.append(Option(shown))
            targets.append(opens)
        self.related_start = len(options)
        for name, children in related.items():
            options.append(
                Option(Text(f"── {name} ({len(children)})", style="bold"), disabled=True)
            )
            targets.append(None)
            for child in children:
                child_id = child.get("Id")
                label = child_label(child)
                options.append(
                    Option(Text.assemble("   ", (str(child_id), "underline"), f"  {label}"))
                )
                targets.append(child_id if isinstance(child_id, str) else None)
        self.clear_options()
        self.add_options(options)
        self.targets = targets
        if options:
            self.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        target = self.targets[index] if 0 <= index < len(self.targets) else None
        if target:
            self.post_message(self.IdChosen(self, target))
