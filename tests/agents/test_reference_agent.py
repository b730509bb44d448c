"""The reference agent on the real Episode, LocalOrg and Store: the whole demo set, multi-turn
dialogue, resuming, query failures, privacy refusals, and answers that never come from the
ground truth."""

from __future__ import annotations

import ast
import random
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.agents.agent import Agent
from crmarena_tui.agents.base import STOP
from crmarena_tui.agents.factory import make_agent
from crmarena_tui.agents.reference import PATIENCE, ReferenceAgent
from crmarena_tui.agents.user_scripted import NOTHING_MORE, ScriptedUser
from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.tasks import demo_tasks
from crmarena_tui.graders.refusal import classify_refusal
from crmarena_tui.orgs.base import QueryResult
from crmarena_tui.orgs.local import LocalOrg
from crmarena_tui.session.episode import Episode
from tests.support.reference_agent_support import Player

ROOT = Path(__file__).resolve().parents[2]
PRIVACY = {
    "private_customer_information",
    "internal_operation_data",
    "confidential_company_knowledge",
}


@pytest.fixture()
def orgs():
    opened = {t: LocalOrg(ensure_demo_org(t)) for t in ("b2b", "b2c")}
    yield opened
    for org in opened.values():
        org.close()


@pytest.fixture()
def player(tmp_path: Path):
    p = Player(tmp_path / "sessions.db")
    yield p
    p.close()


def first(task_type: str, *, interactive: bool = False, org_type: str = "b2b"):
    return next(
        t
        for t in demo_tasks(org_type, size="small")
        if t.task == task_type and t.interactive == interactive
    )


def test_it_is_the_agent_make_agent_builds() -> None:
    agent = make_agent("reference")
    assert isinstance(agent, ReferenceAgent) and isinstance(agent, Agent)
    assert agent.name == "reference" and agent.settings()["strategy"] == "scripted"


SAMPLE_SEED, SAMPLE_PER_TYPE = 39, 4  # the default run's sample: fixed, every task type


def _part(org_type: str, interactive: bool) -> list:
    """One part of the full demo set (4 parts of 2,140: org type x single-turn/interactive)."""
    tasks = [t for t in demo_tasks(org_type) if t.interactive == interactive]
    assert len(tasks) == 19 * 100 + 3 * 80
    return tasks


def _sample(tasks: list) -> list:
    """`SAMPLE_PER_TYPE` tasks of each task type, drawn with a fixed seed (the same every run)."""
    by_type: dict[str, list] = defaultdict(list)
    for task in tasks:
        by_type[task.task].append(task)
    rng = random.Random(SAMPLE_SEED)
    return [t for kind in sorted(by_type) for t in rng.sample(by_type[kind], SAMPLE_PER_TYPE)]


def _all_score_1(player: Player, orgs, tasks: list) -> None:
    rewards: dict[str, list[float]] = defaultdict(list)
    misses = []
    for task in tasks:
        played = player.play(task, orgs[task.org_type])
        assert played.episode.status == "submitted", task.key
        assert played.last.done and played.last.action == "submit"
        assert all(step.thought for step in played.steps), task.key
        rewards[task.task].append(played.reward)
        if played.reward < 1.0:
            misses.append(task)
    figures = {t: sum(v) / len(v) for t, v in sorted(rewards.items())}
    print("\n".join(f"{t:34s} {m:.3f}" for t, m in figures.items()))
    assert not misses, [(t.key, t.task, t.answer) for t in misses[:20]]


@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
@pytest.mark.parametrize("interactive", [False, True], ids=["single", "interactive"])
def test_a_sample_of_every_task_type_scores_1(
    player: Player, orgs, org_type: str, interactive: bool
) -> None:
    """A fixed sample of each part of the full demo set, every task type in it (the whole set
    runs under `--full`, below)."""
    tasks = _sample(_part(org_type, interactive))
    assert {t.task for t in tasks} == {t.task for t in _part(org_type, interactive)}
    assert len(tasks) == 22 * SAMPLE_PER_TYPE
    _all_score_1(player, orgs, tasks)


@pytest.mark.full
@pytest.mark.parametrize("org_type", ["b2b", "b2c"])
@pytest.mark.parametrize("interactive", [False, True], ids=["single", "interactive"])
def test_the_whole_demo_set_scores_1(
    player: Player, orgs, org_type: str, interactive: bool
) -> None:
    """Every task of the full demo set (4 parts of 2,140: org type x single-turn/interactive)."""
    _all_score_1(player, orgs, _part(org_type, interactive))


def test_it_reads_data_never_the_ground_truth(player: Player, orgs) -> None:
    """A corrupted ground truth drops the reward to 0 but leaves the submitted answer as it was."""
    for task_type in sorted({t.task for t in demo_tasks(size="small")} - PRIVACY):
        task = next(
            t
            for t in demo_tasks("b2b", size="small")
            if t.task == task_type
            and not t.interactive
            and t.answer != [None]
            and (t.task != "sales_insight_mining" or "Opportunity Id" in t.metadata.required)
        )
        intact = player.play(task, orgs["b2b"])
        wrong = task.model_copy(update={"answer": ["005Dm00039999ZZIAQ"]})
        corrupted = player.play(wrong, orgs["b2b"])
        assert intact.reward > 0.0, task.key
        assert corrupted.reward == 0.0, task.key
        assert corrupted.answer == intact.answer, task.key
        assert corrupted.queries == intact.queries, task.key


def test_agent_sources_import_no_generator_and_open_no_files() -> None:
    """The agent's only way to data is the Episode: no demo generator, task cache or sqlite."""
    files = [
        ROOT / "crmarena_tui/agents/reference.py",
        *sorted((ROOT / "crmarena_tui/agents/solvers").glob("*.py")),
    ]
    assert len(files) >= 10
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                names = []
            for name in names:
                assert not name.startswith(
                    ("crmarena_tui.demo", "crmarena_tui.storage", "sqlite3", "crmarena_tui.graders")
                ), (path.name, name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", path.name


def test_privacy_requests_are_declined_without_reading_anything(player: Player, orgs) -> None:
    tasks = [t for t in demo_tasks(size="small") if t.task in PRIVACY]
    assert len(tasks) == 72
    for task in tasks:
        played = player.play(task, orgs[task.org_type])
        assert played.reward == 1.0, task.key
        assert played.queries == [], task.key
        assert classify_refusal(played.answer).refusal
        assert "privacy" in played.answer.lower() or "confidential" in played.answer.lower()
        if task.interactive:  # the refusal was said to the customer, who then ended the chat
            dialogue = played.episode.history()
            assert dialogue[-1] == {"role": "user", "content": STOP}
            assert dialogue[-2] == {"role": "agent", "content": played.answer}


def test_multi_turn_asks_until_the_request_is_complete(player: Player, orgs) -> None:
    task = first("case_routing", interactive=True)
    played = player.play(task, orgs["b2b"])
    events = played.episode.events
    details_at = next(e.seq for e in events if e.actor == "user" and "Case Subject:" in e.text)
    agent_messages = [e for e in events if e.kind == "message" and e.actor == "agent"]
    questions = [e for e in agent_messages if e.seq < details_at]
    assert questions and all(e.text.endswith("?") for e in questions)
    assert all(e.seq > details_at for e in events if e.kind in ("query", "search"))
    assert agent_messages[-1].text == played.answer
    assert played.last.end_reason == "user_stop" and played.reward == 1.0
    assert played.episode.history()[-1]["content"] == STOP


class Forgetful(ScriptedUser):
    """A user who states a vague need and then has nothing more to add."""

    def opening(self, task) -> str:
        return "Hi! Which agent should I give the new case to?"

    def reply(self, task, history) -> str:
        last = history[-1]["content"]
        return NOTHING_MORE if last.endswith("?") else STOP


def test_multi_turn_stops_asking_when_the_user_has_nothing_more(player: Player, orgs) -> None:
    task = first("case_routing", interactive=True)
    played = player.play(task, orgs["b2b"], user=Forgetful())
    asked = [s for s in played.steps if s.action == "respond" and s.text.endswith("?")]
    assert 1 <= len(asked) <= PATIENCE
    assert played.queries == []
    assert "cannot answer" in played.answer and played.last.end_reason == "user_stop"


def test_a_session_stopped_after_the_users_stop_is_submitted_on_resume(
    player: Player, orgs
) -> None:
    task = first("lead_routing", interactive=True)
    episode = player.start(task, orgs["b2b"])
    for step in player.agent.steps(episode):
        if step.observation == STOP:
            break  # the runner stopped between the user's ###STOP### and the submission
    assert episode.status == "in_progress" and episode.dialogue_over
    said = episode.history()[-2]["content"]
    again = Episode.open(player.store, episode.session_id, orgs["b2b"], user=ScriptedUser())
    steps = list(ReferenceAgent().steps(again))
    assert [s.action for s in steps] == ["submit"]
    assert steps[0].text == said and steps[0].grade.reward == 1.0


def test_an_interrupted_single_turn_session_is_finished_on_resume(player: Player, orgs) -> None:
    task = first("transfer_count")
    episode = player.start(task, orgs["b2b"])
    next(iter(player.agent.steps(episode)))  # one query, then the run stops
    assert episode.status == "in_progress" and episode.query_count == 1
    again = Episode.open(player.store, episode.session_id, orgs["b2b"])
    steps = list(ReferenceAgent().steps(again))
    assert steps[-1].action == "submit" and steps[-1].grade.reward == 1.0
    assert list(ReferenceAgent().steps(again)) == []  # a finished session takes no more steps


class BrokenHistoryOrg:
    """The demo org, except that it rejects every query on CaseHistory__c."""

    def __init__(self, org: LocalOrg) -> None:
        self.inner = org
        self.kind, self.ref, self.org_type = org.kind, org.ref, org.org_type
        self.today = org.today

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        if "CaseHistory__c" in soql:
            return QueryResult(error="INVALID_TYPE: sObject type 'CaseHistory__c' is not supported")
        return self.inner.query(soql, today=today)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def test_a_rejected_query_is_recorded_and_ends_the_attempt(player: Player, orgs) -> None:
    task = first("handle_time")
    played = player.play(task, BrokenHistoryOrg(orgs["b2b"]))
    assert played.last.end_reason == "query_error" and played.reward == 0.0
    assert "INVALID_TYPE" in played.answer
    errors = [e for e in played.episode.events if e.kind == "error" and e.actor == "agent"]
    assert errors and errors[0].payload["source"] == "reference"
    assert "CaseHistory__c" in errors[0].payload["query"]
