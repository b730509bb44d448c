"""Model prices without importing litellm or touching the network: litellm's own price map (the
`model_prices_and_context_window_backup.json` it ships), read as a file.

`litellm` itself, when imported, may fetch the newest map from the network first (tens of seconds
without one); a server that prices a reported usage (`report_usage` without a cost) must not
wait on that. `warm()` reads the map in a background thread at start, so the first price is
known at once; `cost(model, prompt, completion)` is None for a model the map does not know.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import threading
from pathlib import Path
from typing import Any

MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def price_map() -> dict[str, Any]:
    """litellm's bundled price map (empty when litellm is not installed or the file is absent)."""
    spec = importlib.util.find_spec("litellm")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / MAP_FILE
        if path.is_file():
            with path.open(encoding="utf-8") as fh:
                data = json.load(fh)
            return data if isinstance(data, dict) else {}
    return {}


def warm() -> threading.Thread:
    """Read the price map in a background thread (a server calls this at start)."""
    thread = threading.Thread(target=price_map, name="price-map", daemon=True)
    thread.start()
    return thread


def _entry(model: str) -> dict[str, Any] | None:
    prices = price_map()
    name = model.strip()
    for key in (name, name.split("/", 1)[-1], name.rsplit("/", 1)[-1]):
        entry = prices.get(key)
        if isinstance(entry, dict) and "input_cost_per_token" in entry:
            return entry
    return None


def cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price of `prompt_tokens` in and `completion_tokens` out on `model`, in US dollars;
    None when the map knows no price for it."""
    entry = _entry(model)
    if entry is None:
        return None
    try:
        return (
            float(entry.get("input_cost_per_token") or 0) * prompt_tokens
            + float(entry.get("output_cost_per_token") or 0) * completion_tokens
        )
    except (TypeError, ValueError):
        return None
