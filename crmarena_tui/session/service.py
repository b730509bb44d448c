"""The one place a session is set up, for any participant: a human, a model agent, the reference
agent, a fork of a session, or a human taking over from an agent.

Made once per process (a command, the app) from the settings loaded there, and passed down: the
judge (made once from `Settings.judge_model`), the protocol (`session/protocols.py`), the agents and
simulated users and the clock all come from it, so the same answer gets the same grade on every
path (the app, `run`, `grade`, a fork, a re-grade). A setting every session needs is one field of
`Settings` read here.

The service holds no database connection and no org: callers pass the `Store` (one per thread)
and the `Org` they opened, so batch workers, the app's workers and commands share one service.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crmarena_tui.session.sources import SessionSources

if TYPE_CHECKING:
    from crmarena_tui.agents.agent import Agent
    from crmarena_tui.agents.base import UserSimulator
    from crmarena_tui.agents.prompt_source import PromptSource
    from crmarena_tui.graders import Grade, GradingProtocol, Judge
    from crmarena_tui.orgs.base import Org
    from crmarena_tui.session.agent_driver import AgentDriver
    from crmarena_tui.session.episode import Clock, Episode
    from crmarena_tui.settings.config import Settings
    from crmarena_tui.storage.models import Participant, Session, SessionKind, SessionSpec
    from crmarena_tui.storage.store import Store
    from crmarena_tui.tasks.model import Task

SCRIPTED_USER = "scripted"
REFERENCE = "reference"


class SessionService:
    """Sets up Episodes; see the module docstring."""

    def __init__(
        self, settings: Settings, *, judge: Judge | None = None, clock: Clock = time.time
    ) -> None:
        """`judge` replaces the one `settings.judge_model` names (embedding, tests)."""
        self.settings = settings
        self.clock = clock
        self._judge = judge
        self._judge_ready = judge is not None
        self._lock = threading.Lock()
        self.sources = SessionSources(
            getattr(settings, "schema", None), getattr(settings, "upstream_prompts", None)
        )
        self.schemas = self.sources.schemas  # the agents' schema text (`schema`)

    # -- what the settings make -----------------------------------------------------------------

    @property
    def protocol(self) -> GradingProtocol:
        """The protocol (`protocol` setting) new sessions run under and grades follow; the
        reference agent's sessions run under `workbench` (`protocol_for`)."""
        return self.settings.protocol

    def protocol_for(self, agent: str | None) -> GradingProtocol:
        """The protocol a new session of `agent` (None: a human) runs under."""
        from crmarena_tui.session.protocols import protocol_for

        return protocol_for(agent, self.protocol)

    def fork_protocol(self, session: Session, agent: str | None = None) -> GradingProtocol:
        """The protocol a fork of `session` continued by `agent` (None: a human) runs under: the
        reference agent's is `workbench`, as always; anyone else continues `session`'s."""
        from crmarena_tui.session.protocols import session_protocol

        return "workbench" if agent == REFERENCE else session_protocol(session)

    def user_spec(self, spec: str | None = None, *, protocol: GradingProtocol | None = None) -> str:
        """Who plays the user in a chat task: `spec`, else the `user_model` setting, else the
        protocol's default (upstream's user model under `upstream`, the scripted user under
        `workbench`)."""
        from crmarena_tui.agents.upstream import UPSTREAM_USER_MODEL

        if spec or self.settings.user_model:
            return str(spec or self.settings.user_model)
        upstream = (protocol or self.protocol) == "upstream"
        return UPSTREAM_USER_MODEL if upstream else SCRIPTED_USER

    def check_agent_run(
        self,
        agent: str,
        *,
        strategy: str = "react",
        interactive: bool = False,
        org_type: str = "b2b",
        user: str | None = None,
        lenient: bool = False,
        protocol: GradingProtocol | None = None,
    ) -> None:
        """Raise `ProtocolRefused` (with what to change) when the protocol (default: the one a
        new session of `agent` gets; a fork passes its session's) does not allow this run of
        `agent`; `user` is who plays the user in a chat task (None: the default)."""
        from crmarena_tui.session.protocols import check_agent_run

        protocol = protocol or self.protocol_for(agent)
        check_agent_run(
            protocol,
            agent=agent,
            strategy=strategy,
            interactive=interactive,
            org_type=org_type,
            user=self.user_spec(user, protocol=protocol) if interactive else None,
            lenient=lenient,
        )

    def prompt_source(self, protocol: GradingProtocol | None = None) -> PromptSource:
        """Where the prompts of a session under `protocol` (default: the configured one) come
        from (`SessionSources.prompts`); raises `CheckoutProblem` (one line)."""
        return self.sources.prompts(protocol or self.protocol)

    def judge(self) -> Judge | None:
        """The judge every grade uses: made once from `judge_model`; None grades deterministically.
        Under `upstream` with `upstream_prompts` it carries upstream's instructions.

        Raises `LLMError` when the judge model cannot be set up (e.g. an unknown scripted model)."""
        instructions = self.prompt_source().judge_instructions()
        with self._lock:
            if not self._judge_ready:
                model = self.settings.judge_model
                if model:
                    from crmarena_tui.llm.judge import make_judge

                    self._judge = make_judge(
                        model,
                        self.settings.api_base,
                        settings=self.settings,
                        instructions=instructions,
                    )
                self._judge_ready = True
            return self._judge

    def load_model_client(
        self, *parts: object, on_loading: Callable[[], object] | None = None
    ) -> bool:
        """Load litellm (`llm.load_litellm`) when the agents or simulated users in `parts`, or the
        judge, call a model through it and it is not loaded yet; True when it was loaded now.
        Called before a session opens, so a model agent's session clock starts at its first
        model call, not seconds earlier at litellm's import. `on_loading` is told first (a
        progress display says "loading the model client...")."""
        from crmarena_tui.llm import client as llm

        if llm.litellm_loaded():
            return False
        clients = [getattr(part, "client", None) for part in parts]
        judge = self.judge()
        if not any(llm.calls_litellm(c) for c in [*clients, getattr(judge, "client", None)]):
            return False
        if on_loading is not None:
            on_loading()
        llm.load_litellm()
        return True

    def agent(
        self,
        spec: str,
        *,
        strategy: str = "react",
        api_base: str | None = None,
        aided: bool = False,
        privacy_aware: bool = False,
    ) -> Agent:
        """`reference`, or a model name (litellm, or a registered provider's prefix)."""
        from crmarena_tui.agents.factory import make_agent

        return make_agent(
            spec,
            strategy=strategy,
            api_base=api_base or None,
            aided=aided,
            privacy_aware=privacy_aware,
            settings=self.settings,
            schemas=self.schemas,
            prompt_source=self.prompt_source(self.protocol_for(spec)),
        )

    def user(
        self,
        spec: str | None = None,
        *,
        api_base: str | None = None,
        protocol: GradingProtocol | None = None,
    ) -> UserSimulator:
        """Who plays the user for a human in a multi-turn task: `spec`, else the configured
        `user_model`, else the scripted user (offline); a model plays it as `protocol` (default:
        the configured one) has it: upstream's way, or this project's."""
        from crmarena_tui.agents.user_llm import make_user

        model = spec or self.settings.user_model or SCRIPTED_USER
        protocol = protocol or self.protocol
        return make_user(
            model,
            api_base=api_base,
            settings=self.settings,
            protocol=protocol,
            prompt_source=self.prompt_source(protocol),
        )

    def agent_user(
        self,
        spec: str | None = None,
        *,
        api_base: str | None = None,
        protocol: GradingProtocol | None = None,
    ) -> UserSimulator:
        """Who plays the user for an agent running under `protocol` (`user_spec`)."""
        protocol = protocol or self.protocol
        return self.user(
            self.user_spec(spec, protocol=protocol), api_base=api_base, protocol=protocol
        )

    # -- starting sessions ----------------------------------------------------------------------

    def start(
        self,
        store: Store,
        spec: SessionSpec,
        *,
        user: UserSimulator | None = None,
        resume: bool = True,
    ) -> Episode:
        """A session of `spec` (its protocol: the configured one unless the caller chose, e.g.
        `protocol_for`), resuming its participant's in-progress attempt with the same settings
        unless `resume` is False; `user` plays the user in a chat task."""
        from crmarena_tui.session.episode import Episode

        return Episode.start(
            store,
            spec,
            user=user if spec.task.interactive else None,
            resume=resume,
            judge=self.judge(),
            clock=self.clock,
        )

    def spec(self, task: Task, org: Org, participant: Participant, **fields: Any) -> SessionSpec:
        """A `SessionSpec` under the configured protocol and org clock (the `org_today`
        setting: None, the protocol's own) unless `fields` name others; its settings record the
        prompts and, an agent's, the schema text shown (`SessionSources`)."""
        from crmarena_tui.storage.models import SessionSpec

        fields = {"protocol": self.protocol, "org_today": self.settings.org_today, **fields}
        fields["settings"] = self.sources.recorded(
            fields.get("settings"), org, fields["protocol"], agent=participant.kind == "agent"
        )
        return SessionSpec(task, org, participant, **fields)

    def resume_key(self, spec: SessionSpec, user: UserSimulator | None = None) -> str:
        """The key `start` resumes `spec`'s attempt by, and `find_attempt` finds it by
        (`episode_log.resume_key` of the spec as it is recorded)."""
        from crmarena_tui.session.episode_log import recorded, resume_key

        return resume_key(recorded(spec, user))

    def find_attempt(
        self, store: Store, spec: SessionSpec, *, user: UserSimulator | None = None
    ) -> Session | None:
        """The latest attempt `start` would resume or skip: `spec`'s participant's on its task
        with the same settings (`resume_key`), or None."""
        key = self.resume_key(spec, user)
        return store.find_session(spec.participant.id, spec.task.source, spec.task.idx, key)

    def agent_participant(self, store: Store, agent: Agent) -> Participant:
        """The agent's participant row: its name, model and the settings that tell runs apart,
        named by its configuration as imported runs are (`storage.configuration`:
        `<model>/<strategy>[/aided][/privacy-aware][/upstream-prompts]`)."""
        from crmarena_tui.storage.configuration import agent_participant

        model = getattr(agent, "model", None)
        return agent_participant(store, agent.name, model, agent.settings())

    def start_agent(
        self,
        store: Store,
        task: Task,
        org: Org,
        agent: Agent,
        *,
        user: UserSimulator | None = None,
        aided: bool = False,
        resume: bool = True,
    ) -> Episode:
        """The agent's session on `task` (its in-progress one resumes), under `protocol_for`; the
        model client is loaded first (`load_model_client`)."""
        self.load_model_client(agent, user)
        spec = self.spec(
            task,
            org,
            self.agent_participant(store, agent),
            aided=aided,
            settings=agent.settings(),
            protocol=self.protocol_for(agent.name),
        )
        return self.start(store, spec, user=user, resume=resume)

    def open(
        self, store: Store, session_id: int, org: Org, *, user: UserSimulator | None = None
    ) -> Episode:
        """Any stored session; an in-progress one continues where its log stops, under the
        protocol it started with."""
        from crmarena_tui.session.episode import Episode
        from crmarena_tui.session.protocols import session_protocol

        return Episode.open(
            store,
            session_id,
            org,
            user=user,
            judge=self.judge(),
            protocol=session_protocol(store.session(session_id)),
            clock=self.clock,
        )

    # -- forks and take-overs -------------------------------------------------------------------

    def fork(
        self,
        store: Store,
        session: Session,
        at_seq: int,
        org: Org,
        participant: Participant,
        *,
        user: UserSimulator | None = None,
        settings: dict[str, Any] | None = None,
        kind: SessionKind = "fork",
        protocol: GradingProtocol | None = None,
    ) -> Episode:
        """A new session for `participant` continuing `session` after its event `at_seq` (a
        `fork`, or a `takeover` when a human continues an agent's run), under `protocol`
        (default: the one `session` ran under: it continues the same conversation)."""
        from crmarena_tui.session.episode import Episode
        from crmarena_tui.session.protocols import session_protocol

        return Episode.fork(
            store,
            session.id,
            at_seq,
            org,
            participant,
            user=user if session.interactive else None,
            settings=settings,
            judge=self.judge(),
            protocol=protocol or session_protocol(session),
            clock=self.clock,
            kind=kind,
        )

    def fork_for_agent(
        self,
        store: Store,
        session: Session,
        at_seq: int,
        org: Org,
        agent: Agent,
        *,
        user: UserSimulator | None = None,
    ) -> Episode:
        """A fork that `agent` continues (under its own participant), under `fork_protocol`:
        the reference agent's fork runs and is graded under `workbench`. The model client is
        loaded first (`load_model_client`)."""
        self.load_model_client(agent, user)
        protocol = self.fork_protocol(session, agent.name)
        return self.fork(
            store,
            session,
            at_seq,
            org,
            self.agent_participant(store, agent),
            user=user,
            settings=self.sources.recorded(agent.settings(), org, protocol, agent=True),
            protocol=protocol,
        )

    def take_over(
        self,
        driver: AgentDriver,
        episode: Episode,
        participant: Participant,
        *,
        user: UserSimulator | None = None,
        timeout: float | None = None,
    ) -> Episode:
        """Stop the agent `driver` runs and continue its session as `participant` from its last
        step. Blocks until the step in flight has finished; the agent's session stays
        `in_progress` and records who took it over. Raises `EpisodeError` when the agent already
        submitted or did nothing yet."""
        from crmarena_tui.session.agent_driver import fork_point
        from crmarena_tui.session.episode import EpisodeError

        driver.stop()
        if not driver.wait_done(timeout):
            raise TimeoutError("the agent did not finish its current step in time")
        if episode.finished:
            raise EpisodeError(
                f"the agent's session is {episode.status}: there is nothing to take over"
            )
        at_seq = fork_point(episode, driver)
        if at_seq is None:
            raise EpisodeError("the agent has not done anything yet: start the task yourself")
        forked = self.fork(
            episode.store,
            episode.session,
            at_seq,
            episode.org,
            participant,
            user=user,
            kind="takeover",
        )
        episode.record(
            "system",
            {
                "event": "taken_over",
                "session": forked.session_id,
                "at_seq": at_seq,
                "participant_id": participant.id,
            },
            actor="system",
        )
        return forked

    # -- grading again --------------------------------------------------------------------------
    def regrade(self, store: Store, session_id: int, protocol: str | None = None) -> Grade:
        """Grade a submitted session's answer again with this service's judge (`Episode.regrade`;
        under `protocol`, default the service's); the new grade is stored beside the old ones and
        becomes the session's grade. Raises `EpisodeError` (no submitted answer), `NotFound`."""
        from crmarena_tui.graders.base import check_protocol
        from crmarena_tui.orgs.detached_org import DetachedOrg
        from crmarena_tui.session.episode import Episode, EpisodeError

        session = store.session(session_id)
        if session.status != "submitted":
            raise EpisodeError(f"session {session_id} is {session.status}: nothing to re-grade")
        org = DetachedOrg(session.org_kind, session.org_ref, session.task().org_type)
        chosen = check_protocol(protocol) if protocol else self.protocol
        return Episode(
            store, session, org, judge=self.judge(), protocol=chosen, clock=self.clock
        ).regrade()
