"""Reading upstream's texts from a checkout (`agents/upstream_checkout.py`): as data, one line when
a text is missing or in a shape the reader does not know, and the checkout's commit (or a hash of
the files read). The fake checkout is tests/support/upstream_checkout_support.py (this project's
words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmarena_tui.agents.upstream_checkout import CheckoutProblem, commit_of, read_checkout
from tests.support import upstream_checkout_support as kiwi

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return kiwi.fake_checkout(tmp_path)


def edit(checkout: Path, name: str, old: str, new: str) -> None:
    path = checkout / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def problem(checkout: Path) -> str:
    with pytest.raises(CheckoutProblem) as caught:
        read_checkout(checkout)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_every_text_is_read_and_nothing_is_run(checkout: Path) -> None:
    # a statement that would raise if the module ran: the reader only parses it
    edit(checkout, "crm_sandbox/agents/prompts.py", "## a fake", "raise SystemExit('ran')\n##")
    texts = read_checkout(checkout)
    assert texts.system == kiwi.SYSTEM and texts.user_greeting == kiwi.GREETING
    assert texts.constants["SYSTEM_METADATA"] == "## Kiwi background\n{system_metadata}\n"
    assert texts.constants["REACT_RULE_STRING"] == kiwi.REACT_RULE
    assert texts.extraction == {"monthly_trend_analysis": kiwi.MONTH_JUDGE, "": kiwi.ID_JUDGE}
    assert (texts.privacy, texts.privacy_prefix) == (kiwi.PRIVACY, kiwi.PRIVACY_PREFIX)
    assert texts.user_prompt(None, None) == (
        "Play a kiwi shopper. \n\nKiwi ask:  / \nSay ###STOP### when served.\n"
    )


@pytest.mark.parametrize(
    ("name", "old", "new", "said"),
    [
        ("crm_sandbox/agents/prompts.py", "REACT_EXTERNAL_PROMPT =", "OTHER =",
         "prompts.py: REACT_EXTERNAL_PROMPT not found"),
        ("crm_sandbox/agents/prompts.py", "REACT_RULE_STRING = ", "REACT_RULE_STRING = str + ",
         "prompts.py: REACT_RULE_STRING is not a string constant"),
        ("crm_sandbox/agents/prompts.py", "{object_fields}", "{object_fields} {colour} {}",
         "SCHEMA_STRING has placeholders this reader cannot fill: colour, {}"),
        ("crm_sandbox/agents/prompts.py", "{object_fields}", "{object_fields} }",
         "SCHEMA_STRING is not a format template"),
        ("crm_sandbox/agents/chat_agent.py", 'system="Kiwi ledger"', "system=NAME",
         "chat_agent.py: ChatAgent: the system= keyword"),
        ("crm_sandbox/env/users.py", "return f", "for x in []:\n            pass\n        return f",
         "users.py: LLMUserSimulationEnv.build_system_prompt is in a shape"),
        ("crm_sandbox/env/users.py", '"role": "user", "content": "Kiwi', '"role": "user", "c": "',
         "users.py: LLMUserSimulationEnv.reset: the greeting"),
        ("crm_sandbox/env/env.py", "def parse_answers", "def parse_them",
         "env.py: Evaluator.parse_answers not found"),
        ("crm_sandbox/env/env.py", "= self.month_system_prompt\n", "= pick(self.month_system_prompt)\n",
         "env.py: Evaluator.parse_answers: the task_name"),
        ("crm_sandbox/env/env.py", 'model_output = "Kiwi', 'model_output = f(x) + "Kiwi',
         "compute_privacy_confidential_awareness_score: model_output"),
    ],
)  # fmt: skip
def test_a_missing_or_unreadable_text_is_named_in_one_line(
    checkout: Path, name: str, old: str, new: str, said: str
) -> None:
    edit(checkout, name, old, new)
    assert said in problem(checkout)


def test_a_missing_file_is_named(checkout: Path) -> None:
    (checkout / "crm_sandbox/env/env.py").unlink()
    assert "crm_sandbox/env/env.py cannot be read (looking for Evaluator)" in problem(checkout)
    assert "is not a folder" in problem(checkout / "nowhere")


def test_the_commit_is_read_from_git_without_running_it(checkout: Path) -> None:
    git = checkout / ".git"
    (git / "refs/heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs/heads/main").write_text(SHA + "\n")
    assert read_checkout(checkout).commit == SHA
    (git / "refs/heads/main").unlink()
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    assert commit_of(checkout) == SHA
    (git / "HEAD").write_text(SHA[::-1] + "\n")  # a detached HEAD
    assert commit_of(checkout) == SHA[::-1]


def test_a_worktrees_git_file_is_followed(tmp_path: Path, checkout: Path) -> None:
    main_git = tmp_path / "main.git"
    linked = main_git / "worktrees" / "crmarena"
    linked.mkdir(parents=True)
    (linked / "HEAD").write_text("ref: refs/heads/topic\n")
    (linked / "commondir").write_text("../..\n")
    (main_git / "packed-refs").write_text(f"{SHA} refs/heads/topic\n")
    (checkout / ".git").write_text(f"gitdir: {linked}\n")
    assert commit_of(checkout) == SHA


def test_without_git_a_hash_of_the_files_read_names_the_checkout(checkout: Path) -> None:
    first = read_checkout(checkout).commit
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 12
    assert read_checkout(checkout).commit == first
    edit(checkout, "crm_sandbox/env/users.py", "Kiwi greeting", "Kiwi hello")
    assert read_checkout(checkout).commit != first
