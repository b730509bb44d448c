"""Which environment variable a model's provider key is read from, known without importing
litellm: a server checks at start that the simulated user's model can be called, instead of
failing a chat task at its first turn."""

from __future__ import annotations

import os

# litellm's provider prefixes and bare model families -> the variable litellm reads the key from
PREFIXES: dict[str, str] = {
    "openai/": "OPENAI_API_KEY",
    "gpt-": "OPENAI_API_KEY",
    "o1": "OPENAI_API_KEY",
    "o3": "OPENAI_API_KEY",
    "o4": "OPENAI_API_KEY",
    "chatgpt-": "OPENAI_API_KEY",
    "anthropic/": "ANTHROPIC_API_KEY",
    "claude-": "ANTHROPIC_API_KEY",
    "gemini/": "GEMINI_API_KEY",
    "mistral/": "MISTRAL_API_KEY",
    "groq/": "GROQ_API_KEY",
    "deepseek/": "DEEPSEEK_API_KEY",
    "openrouter/": "OPENROUTER_API_KEY",
    "together_ai/": "TOGETHERAI_API_KEY",
    "xai/": "XAI_API_KEY",
    "fireworks_ai/": "FIREWORKS_AI_API_KEY",
    "cohere/": "COHERE_API_KEY",
}


def key_variable(model: str) -> str | None:
    """The variable `model`'s key comes from (`gpt-4o` -> `OPENAI_API_KEY`); None when the
    provider is not one of `PREFIXES` (its own credentials, or no key at all)."""
    name = model.strip().lower()
    for prefix, variable in PREFIXES.items():
        if name.startswith(prefix):
            return variable
    return None


def missing_key(model: str, *, api_base: str | None = None) -> str | None:
    """The variable `model` needs that the environment lacks, or None (also for a model served
    at `api_base`: a local server may need no key)."""
    if api_base:
        return None
    variable = key_variable(model)
    if variable is None or os.environ.get(variable, "").strip():
        return None
    return variable
