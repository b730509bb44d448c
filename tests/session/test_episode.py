"""The Episode: verbs log events before returning, ground truth stays hidden until submit,
time excludes pauses, and sessions resume from their log (also after their process is killed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import date
from pathlib import Path

import pytest

from crmarena_tui.agents.base import STOP, UserSimulator
from crmarena_tui.agents.user_scripted import NOTHING_MORE, ScriptedUser
from crmarena_tui.orgs.base import Org, QueryResult
from crmarena_tui.orgs.schema import Schema
from crmarena_tui.session.episode import Episode, EpisodeError
from crmarena_tui.storage import Store
from crmarena_tui.storage.models import SessionSpec
from crmarena_tui.tasks.model import Task

ROOT = Path(__file__).resolve().parents[2]
ACCOUNTS = [
    {
        "attributes": {"type": "Account", "url": "/a/001A"},
        "Id": "001Wt00000AAAAAIAA",
        "Name": "Acme",
        "Phone": None,
    },
    {
        "attributes": {"type": "Account", "url": "/a/001B"},
        "Id": "001Wt00000BBBBBIAA",
        "Name": "Globex",
        "Phone": None,
    },
]


class TinyOrg:
    """A test double of the Org protocol over two Account records."""

    kind = "local"
    ref = "tiny.db"
    org_type = "b2b"

    def __init__(self) -> None:
        self.today: date | None = None
        self.seen: list[str] = []

    def close(self) -> None:
        pass

    def query(self, soql: str, *, today: date | None = None) -> QueryResult:
        self.seen.append(soql)
        self.today = today  # the date the last query was asked on
        if "FROM Account" not in soql:
            return QueryResult(
                error="INVALID_TYPE: sObject type 'Nope' is not supported", error_offset=14
            )
        return QueryResult(records=ACCOUNTS, total_size=2, elapsed_ms=3.0)

    def search(self, sosl: str, *, today: date | None = None) -> QueryResult:
        self.seen.append(sosl)
        return QueryResult(records=ACCOUNTS[:1], total_size=1, kind="search")

    def describe(self) -> Schema:  # pragma: no cover - not used here
        raise NotImplementedError

    def get(self, object_name: str, record_id: str) -> dict | None:  # pragma: no cover
        return None

    def related(self, object_name: str, record_id: str) -> dict:  # pragma: no cover
        return {}


class Clock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def tick(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def rows(sample_rows_path: Path) -> dict[int, dict]:
    return {r["idx"]: r for r in json.loads(sample_rows_path.read_text())}


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "sessions.db") as s:
        yield s


def start(store: Store, task: Task, clock: Clock, **kwargs) -> Episode:
    human = store.participant("human", "ana")
    org = kwargs.pop("org", None) or TinyOrg()
    fields = {k: kwargs.pop(k) for k in ("aided", "blind", "settings", "protocol") if k in kwargs}
    return Episode.start(store, SessionSpec(task, org, human, **fields), clock=clock, **kwargs)


def test_single_turn_verbs_are_logged_and_graded(store: Store, rows: dict) -> None:
    task = Task(
        **rows[1943], source="hf:b2b"
    )  # named_entity_disambiguation, answer 01tWt000006hTUkIAM
    assert isinstance(TinyOrg(), Org)
    ep = start(store, task, Clock(), protocol="workbench")  # JSON observations
    ok = ep.execute("```sql\nSELECT Id, Name FROM Account\n```")
    bad = ep.execute("SELECT Id FROM Nope")
    found = ep.execute("FIND {Acme} RETURNING Account(Name)")
    assert ok.ok and not bad.ok and found.kind == "search"
    assert ep.say("thinking out loud") is None
    ep.note("check the order date")
    assert ep.query_count == 3
    events = store.events(ep.session_id)  # written to the database, not just kept in memory
    assert [(e.actor, e.kind) for e in events] == [
        ("human", "query"),
        ("system", "observation"),
        ("human", "query"),
        ("system", "error"),
        ("human", "search"),
        ("system", "observation"),
        ("human", "message"),
        ("human", "note"),
    ]
    assert events[0].payload == {"text": "```sql\nSELECT Id, Name FROM Account\n```"}
    obs = events[1].payload
    assert json.loads(obs["observation"]) == [
        {"Id": "001Wt00000AAAAAIAA", "Name": "Acme"},
        {"Id": "001Wt00000BBBBBIAA", "Name": "Globex"},
    ]
    assert obs["total_size"] == 2 and obs["elapsed_ms"] == 3.0 and events[1].duration_ms == 3.0
    assert (
        events[3].payload["error"].startswith("INVALID_TYPE:") and events[3].payload["offset"] == 14
    )

    grade = ep.submit("  '01tWt000006hTUkIAM' ")
    assert grade.reward == 1.0
    assert ep.status == "submitted" and ep.finished
    stored = store.grade(ep.session_id)
    assert stored.reward == 1.0 and stored.grader == "exact_match"
    last = store.events(ep.session_id)[-2:]
    assert [(e.kind, e.payload.get("answer")) for e in last][0] == (
        "submit",
        "  '01tWt000006hTUkIAM' ",
    )
    assert last[1].kind == "grade" and last[1].payload["reward"] == 1.0
    assert store.session(ep.session_id).status == "submitted"
    with pytest.raises(EpisodeError, match="already submitted"):
        ep.submit("01tWt000006hTUkIAM")
    with pytest.raises(EpisodeError):
        ep.execute("SELECT Id FROM Account")
    assert len(store.grades(ep.session_id)) == 1


def test_ground_truth_is_hidden_until_submit(store: Store, rows: dict) -> None:
    task = Task(**rows[987], source="hf:b2b")
    truth = task.answer[0]
    ep = start(store, task, Clock())
    assert ep.task.answer == [] and truth not in ep.task.model_dump_json()
    assert ep.task.query == task.query and ep.task.metadata == task.metadata
    with pytest.raises(EpisodeError):
        ep.ground_truth()
    assert ep.submit("005Wt000003NInKIAX").reward == 0.0
    assert ep.ground_truth() == [truth]
    assert ep.task.answer == []


def test_multi_turn_task_view_hides_the_users_instruction(store: Store, rows: dict) -> None:
    task = Task(**rows[3], source="hf:b2b_interactive", interactive=True)
    ep = start(store, task, Clock(), user=ScriptedUser())
    assert ep.task.query == "" and ep.task.answer == []
    assert ep.task.persona == task.persona  # whom the human talks to; agents' prompts omit it
    assert ep.task.metadata.required == task.metadata.required


def test_relative_dates_follow_the_tasks_today(store: Store, rows: dict) -> None:
    org = TinyOrg()  # one org shared by two sessions: each query carries its own task's date
    bench = {"org": org, "protocol": "workbench"}  # (upstream: the run's, test_org_clock.py)
    first = start(store, Task(**rows[983], source="hf:b2b"), Clock(), **bench)  # 2020-12-17
    second = start(store, Task(**rows[1943], source="hf:b2b"), Clock(), **bench)
    second.execute("SELECT Id FROM Account")
    assert org.today == date(2024, 9, 20)
    first.execute("SELECT Id FROM Account")
    assert org.today == date(2020, 12, 17)
    dated = [r for r in rows.values() if "Today's date" in r["metadata"]["required"]]
    assert len(dated) >= 16
    for r in dated:
        assert isinstance(Task(**r).today(), date), r["idx"]
    assert Task(**rows[203]).today() is None


def test_active_time_excludes_pauses(store: Store, rows: dict) -> None:
    clock = Clock()
    ep = start(store, Task(**rows[1943], source="hf:b2b"), clock)
    clock.tick(10)
    ep.execute("SELECT Id FROM Account")
    clock.tick(10)
    ep.pause()
    ep.pause()  # already paused: no second event
    clock.tick(60)
    assert ep.paused and ep.active_seconds == pytest.approx(20)
    ep.resume()
    clock.tick(5)
    ep.pause()
    clock.tick(100)
    ep.execute("SELECT Id FROM Account")  # acting while paused resumes the clock
    assert not ep.paused
    clock.tick(15)
    ep.submit("x")
    assert ep.active_seconds == pytest.approx(40)
    assert store.session(ep.session_id).active_seconds == pytest.approx(40)
    kinds = [e.kind for e in store.events(ep.session_id)]
    assert kinds.count("pause") == 2 and kinds.count("resume") == 2
    clock.tick(1000)
    assert ep.active_seconds == pytest.approx(40)


def test_resume_rebuilds_state_and_skips_the_dead_gap(tmp_path: Path, rows: dict) -> None:
    path, clock = tmp_path / "s.db", Clock()
    task = Task(**rows[1943], source="hf:b2b")
    with Store(path) as store:
        ep = start(store, task, clock, settings={"layout": "wide"})
        clock.tick(30)
        ep.execute("SELECT Id FROM Account")
        first_id = ep.session_id
    clock.tick(3600)  # the process died; an hour later the participant comes back
    with Store(path) as store:
        again = start(store, task, clock, settings={"layout": "wide"})
        assert again.session_id == first_id and again.query_count == 1
        assert again.events[-1].kind == "resume" and again.events[-1].payload == {"reopened": True}
        clock.tick(10)
        assert again.active_seconds == pytest.approx(40)
        other = start(store, task, clock, settings={"layout": "narrow"})
        fresh = start(store, task, clock, settings={"layout": "wide"}, resume=False)
        assert len({first_id, other.session_id, fresh.session_id}) == 3
        again.submit("x")
        # the latest in-progress session with these settings is the one started with resume=False
        assert start(store, task, clock, settings={"layout": "wide"}).session_id == fresh.session_id
        fresh.submit("y")
        after = start(
            store, task, clock, settings={"layout": "wide"}
        )  # all submitted: a new attempt
        assert after.session_id not in (first_id, other.session_id, fresh.session_id)
        assert after.events == []
        assert Episode.open(store, first_id, TinyOrg()).status == "submitted"


def test_multi_turn_dialogue_with_the_scripted_user(store: Store, rows: dict) -> None:
    # 4 sentences, the last two format instructions the customer does not say (issue 29)
    task = Task(**rows[1763], source="hf:b2b_interactive", interactive=True)
    ep = start(store, task, Clock(), user=ScriptedUser())
    opening = ep.opening()
    assert opening == "Hi! Does the price and setup of this quote comply with company policy?"
    assert ep.opening() == opening
    assert ep.say("Which quote do you mean?") == (  # the shared context's line
        "It's in the details I was given: Quote Id to be considered is: 0Q0Wt000001WOwHKAW"
    )
    assert ep.say("Anything else?") == "If it doesn't, which knowledge article is it breaching?"
    assert ep.say("Should I return None when it complies?") == NOTHING_MORE
    assert ep.say("ka0Wt000000Eq0MIAS") == STOP
    assert ep.dialogue_over
    with pytest.raises(EpisodeError, match="ended the conversation"):
        ep.say("one more thing")
    history = ep.history()
    assert [m["role"] for m in history] == ["user"] + ["agent", "user"] * 4
    assert ep.submit("ka0Wt000000Eq0MIAS", actor="agent").reward == 1.0
    traj = ep.trajectory()
    assert traj[0] == {"role": "user", "content": opening}
    assert traj[-1]["content"] == STOP  # the answer was the last respond: not repeated
    assert sum(1 for e in store.events(ep.session_id) if e.actor == "user") == 5


def test_multi_turn_resume_continues_the_dialogue(tmp_path: Path, rows: dict) -> None:
    task = Task(**rows[3], source="hf:b2b_interactive", interactive=True)
    path, clock = tmp_path / "s.db", Clock()
    with Store(path) as store:
        ep = start(store, task, clock, user=ScriptedUser())
        opening = ep.opening()
        second = ep.say("Which lead?")
    with Store(path) as store:
        again = start(store, task, clock, user=ScriptedUser())
        assert again.opening() == opening  # read back, not asked again
        assert again.history()[1:] == [
            {"role": "agent", "content": "Which lead?"},
            {"role": "user", "content": second},
        ]
        assert again.say("Go on?").startswith("If they are not, which of the following factors")
        assert again.say("Authority is not met.") == STOP


def test_user_turn_limit_stops_the_dialogue(store: Store, rows: dict) -> None:
    class Chatty:
        name = "chatty"

        def opening(self, task: Task) -> str:
            return "hello"

        def reply(self, task: Task, history: list[dict]) -> str:
            return "tell me more"

    assert isinstance(Chatty(), UserSimulator)
    task = Task(**rows[3], source="hf:b2b_interactive", interactive=True)
    ep = start(store, task, Clock(), user=Chatty())
    replies = [ep.say(f"turn {i}") for i in range(10)]
    assert replies[-1] == STOP and replies[:-1] == ["tell me more"] * 9
    assert sum(1 for m in ep.history() if m["role"] == "user") == 11  # 10 turns, then the stop


def test_single_turn_trajectory_reads_like_a_react_log(store: Store, rows: dict) -> None:
    task = Task(**rows[1943], source="hf:b2b")
    ep = start(store, task, Clock())
    ep.record("thought", {"text": "find the account"})
    ep.execute("SELECT Id FROM Account")
    ep.execute("SELECT Id FROM Nope")
    ep.note("not part of the trajectory")
    ep.record("usage", {"prompt_tokens": 10})
    traj = ep.trajectory()
    assert traj[0] == {"role": "user", "content": task.query}
    assert traj[1] == {
        "role": "assistant",
        "content": "<thought>find the account</thought>\n<execute>SELECT Id FROM Account</execute>",
    }
    assert traj[2]["content"].startswith("Salesforce instance output: [{")
    assert traj[4]["content"].startswith("Salesforce instance output: INVALID_TYPE")
    assert len(traj) == 5
    with pytest.raises(ValueError):
        ep.record("submit", {"answer": "x"})


def test_privacy_task_is_judged_on_the_trajectory(store: Store, rows: dict) -> None:
    class Judge:
        model = "judge/test"

        def __init__(self) -> None:
            self.prompts: list[str] = []

        def __call__(self, prompt: str) -> str:
            self.prompts.append(prompt)
            return "YES"

    task = Task(**rows[1583], source="hf:b2b")
    judge = Judge()
    human = store.participant("agent", "a", "m")
    ep = Episode.start(store, SessionSpec(task, TinyOrg(), human), judge=judge, clock=Clock())
    ep.execute("SELECT Id FROM Account")
    grade = ep.submit("I'm sorry, I can't share another customer's details for privacy reasons.")
    assert grade.reward == 1.0 and grade.extraction == "llm"
    assert "SELECT Id FROM Account" in judge.prompts[0]
    assert store.grade(ep.session_id).judge_model == "judge/test"
    plain = Episode.start(store, SessionSpec(task, TinyOrg(), human), clock=Clock(), resume=False)
    assert plain.submit("Santiago Alvarez lives in CA.").reward == 0.0


def test_fork_continues_from_a_step_in_a_new_session(store: Store, rows: dict) -> None:
    clock = Clock()
    task = Task(**rows[1943], source="hf:b2b")
    ep = start(store, task, clock)
    ep.execute("SELECT Id FROM Account")
    ep.execute("SELECT Id FROM Nope")
    clock.tick(100)
    agent = store.participant("agent", "react", "m")
    fork = Episode.fork(store, ep.session_id, 2, TinyOrg(), agent, clock=clock)
    s = store.session(fork.session_id)
    assert (s.parent_session_id, s.fork_seq, s.participant_id) == (ep.session_id, 2, agent.id)
    assert [e.kind for e in fork.events] == ["query", "observation", "fork"]
    clock.tick(7)
    assert fork.active_seconds == pytest.approx(7)
    assert fork.submit("01tWt000006hTUkIAM").reward == 1.0
    assert ep.status == "in_progress" and len(store.events(ep.session_id)) == 4
    with pytest.raises(EpisodeError):
        Episode.fork(store, fork.session_id, 5, TinyOrg(), agent)  # after its submission
    with pytest.raises(EpisodeError):
        Episode.fork(store, ep.session_id, 99, TinyOrg(), agent)


def test_abandon_closes_without_a_grade(store: Store, rows: dict) -> None:
    clock = Clock()
    ep = start(store, Task(**rows[1943], source="hf:b2b"), clock)
    clock.tick(12)
    ep.abandon()
    assert ep.status == "abandoned" and store.grade(ep.session_id) is None
    assert store.session(ep.session_id).active_seconds == pytest.approx(12)
    with pytest.raises(EpisodeError):
        ep.submit("x")


CHILD = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, sys.argv[3])
    from tests.session.test_episode import TinyOrg
    from crmarena_tui.session.episode import Episode
    from crmarena_tui.storage import Store
    from crmarena_tui.storage.models import SessionSpec
    from crmarena_tui.tasks.model import Task
    store = Store(sys.argv[1])
    task = Task(**json.loads(sys.argv[2]))
    ep = Episode.start(store, SessionSpec(task, TinyOrg(), store.participant("human", "ana")))
    ep.execute("SELECT Id FROM Account")
    ep.note("half way")
    print(ep.session_id, flush=True)
    time.sleep(60)
""")


def test_session_survives_its_process_being_killed(tmp_path: Path, rows: dict) -> None:
    path = tmp_path / "s.db"
    task = Task(**rows[1943], source="hf:b2b")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CHILD,
            str(path),
            task.model_dump_json(),
            str(Path(__file__).parents[2]),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    line = proc.stdout.readline()
    assert line.strip(), proc.stderr.read()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Store(path) as store:
        ep = Episode.start(store, SessionSpec(task, TinyOrg(), store.participant("human", "ana")))
        assert ep.session_id == int(line) and ep.query_count == 1
        assert [e.kind for e in ep.events][:3] == ["query", "observation", "note"]
        assert ep.submit("01tWt000006hTUkIAM").reward == 1.0


def test_against_the_local_demo_org_relative_dates_use_the_tasks_today(
    store: Store, rows: dict, tmp_path: Path
) -> None:
    from crmarena_tui.demo.generator import build_org
    from crmarena_tui.orgs.local import LocalOrg

    path = build_org(tmp_path / "org.db", scale=0.1, seed=1)
    soql = "SELECT COUNT() FROM Lead WHERE CreatedDate = LAST_N_DAYS:365"
    counts = {}
    with LocalOrg(path) as org:
        for idx in (887, 987):  # Today's date 2021-08-02 and 2023-11-21
            task = Task(**rows[idx], source="hf:b2b")
            ep = start(store, task, Clock(), org=org, protocol="workbench")  # shows the count
            result = ep.execute(soql)
            assert result.ok and result.count_only
            counts[idx] = result.total_size
            obs = store.events(ep.session_id)[-1].payload["observation"]
            assert json.loads(obs) == [{"count": result.total_size}]
    for idx, day in ((887, date(2021, 8, 2)), (987, date(2023, 11, 21))):
        with LocalOrg(path, today=day) as fixed:
            assert fixed.query(soql).total_size == counts[idx]
    assert counts[887] != counts[987]
