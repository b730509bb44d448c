"""The fast encoders of bulk writes write exactly what the plain path writes: the secrets
dropped, the same JSON text (sorted keys, compact, not ASCII-escaped), whatever the payload."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from crmarena_tui.graders.base import GRADER_VERSION
from crmarena_tui.storage.convert import dumps, scrub_secrets, scrubbed_json
from crmarena_tui.storage.upstream_file import canonical_json
from crmarena_tui.storage.upstream_rows import encode_payload, grade_payload

KEYS = st.sampled_from(
    ["text", "reply", "turn", "observation", "answer", "api_key", "password", "prompt_tokens",
     "security_token", "cost", "per_call", "note", "ключ", 'quo"te']
)  # fmt: skip
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
PLAIN = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
VALUES = st.recursive(
    PLAIN,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_scrubbed_json_is_dumps_of_the_scrubbed_value(value: Any) -> None:
    assert scrubbed_json(value) == dumps(scrub_secrets(value))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=3) | st.fixed_dictionaries(
    {"reply": TEXT, "text": TEXT, "turn": st.integers() | st.booleans() | TEXT}
) | st.fixed_dictionaries(
    {"event": st.sampled_from(["system_prompt", "other"]), "text": TEXT | st.integers()}
) | st.fixed_dictionaries(
    {"event": st.just("system_prompt")}, optional={"text": TEXT, "note": TEXT}
))  # fmt: skip
def test_a_step_payload_encodes_as_the_plain_path_does(payload: dict[str, Any]) -> None:
    assert encode_payload(payload) == dumps(scrub_secrets(payload))


@settings(max_examples=300, deadline=None)
@given(
    TEXT,
    st.floats(),
    st.none() | st.lists(TEXT, max_size=3),
    st.dictionaries(KEYS, VALUES, max_size=4),
)
def test_the_grade_payload_made_from_its_parts_is_the_grade_record_encoded(
    metric: str, reward: float, parsed: list[str] | None, metrics: dict[str, Any]
) -> None:
    record = {
        "reward": reward,
        "parsed_answer": parsed,
        "grader": metric,
        "grader_version": GRADER_VERSION,
        "extraction": "imported",
        "imported": True,
        "protocol": "upstream",
        "metrics": metrics,
    }
    made = grade_payload(metric, reward, dumps(parsed), scrubbed_json(metrics))
    assert made == dumps(scrub_secrets(record))


def test_secrets_are_dropped_at_every_depth() -> None:
    usage = {"per_call": {"cost": [0.1], "api_key": ["sk-1"]}, "model": "m", "password": "p"}
    assert scrubbed_json(usage) == '{"model":"m","per_call":{"cost":[0.1]}}'
    assert encode_payload({"text": 'a "b"\n\u00e9'}) == '{"text":"a \\"b\\"\\n\u00e9"}'


MARK = "\x00crmarena-tui: the system prompt\x00"
PROMPT = st.text(min_size=250, max_size=400) | st.sampled_from(
    ["You work for a company.\n" * 20, "p" * 300 + MARK, MARK * 10]
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant"]), "content": TEXT | PROMPT | VALUES}
)
ITEM = st.fixed_dictionaries(
    {
        "traj": st.lists(MESSAGE, max_size=3)
        | st.tuples(st.fixed_dictionaries({"role": st.just("system"), "content": PROMPT}))
        .map(list)
        .flatmap(lambda head: st.lists(MESSAGE, max_size=3).map(lambda tail: head + tail))
        | VALUES
    },
    optional={"task_id": VALUES, "agent_info": VALUES, "note": st.just(MARK) | TEXT},
)


@settings(max_examples=300, deadline=None)
@given(ITEM | VALUES)
def test_an_items_canonical_json_is_dumps_of_it(raw: Any) -> None:
    """The import key's text, made with the system prompt escaped once per prompt, is the item's
    plain `dumps`, whatever the item holds (the marker's own text included)."""
    assert canonical_json(raw) == dumps(raw)
