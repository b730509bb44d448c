"""`Scanner`: a model reads each selected session once and its reading is stored as suggestions
(storage/suggestions.py), never as labels.

- Resumable: readings are committed as they arrive, a few at a time: at most `BATCH` together,
  the ones held at most `FLUSH_SECONDS`, and (reading several at once, stored in the order
  they finish) whenever none is ready; with a real model, each alone. A scan run again with the same
  name, model, question, prompt version and selection continues the unfinished scan and skips
  the sessions it has read. A session whose reading was under way when the process died was
  never stored, so it is read (once) by the resumed run.
- `concurrency` sessions are read at once (threads; the store serialises the writes).
- Two runs of one scan at once (two `scan` commands) share its sessions: a run claims the
  sessions it is about to read (storage/scan_claims.py), a few at a time (more while readings
  come fast, at most `BATCH`), and skips those the other has read or holds; its progress counts
  them (`by_others`, `left_to_others`, `others` naming the other runs' processes).
- A failed model call: the client retries it (`llm/client.py`: backoff on rate limits, timeouts,
  5xx, malformed replies); a reply that is not the JSON asked for is asked again (`retries`
  times) with what was wrong with it; what still fails is stored as a `failed` reading with its
  error and attempts (the next run tries it again). A refused key (`auth`) stops the scan.
- Tokens, cost and seconds of every call of a reading are summed onto it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crmarena_tui.errors import UserError
from crmarena_tui.llm.client import LLMClient, LLMError
from crmarena_tui.scans import prompts
from crmarena_tui.scans.transcript import Transcript, compact
from crmarena_tui.storage.scan_claims import ScanClaims
from crmarena_tui.storage.suggestions import Proposal, Reading, Scan

if TYPE_CHECKING:
    from crmarena_tui.storage.store import Store

STOPPING_KINDS = frozenset({"auth"})  # every session would fail the same way
BATCH = 50  # readings written per transaction, at most
FLUSH_SECONDS = 1.0  # and at least this often


@dataclass(frozen=True)
class Question:
    """What a scan asks of each session: labels from `taxonomy`, or a rubric's `question` and
    the JSON Schema of its answer (`answer_schema`; `rubric` its saved name). A labels scan is
    never shown the task's expected answer (it would read a failure off the difference, not
    off the steps); a rubric saved with `show_answer` is."""

    kind: str  # labels | rubric
    taxonomy: tuple[str, ...] = ()
    rubric: str | None = None
    question: str | None = None
    answer_schema: dict[str, Any] | None = None
    show_answer: bool = False  # the task's expected answer in the transcript (a rubric's choice)

    @property
    def prompt_version(self) -> str:
        """The prompt's version (scans/prompts.py); `+answer` when the transcript shows the
        task's expected answer (a different reading: a scan resumes only with the same)."""
        if self.kind == "labels":
            return prompts.LABELS_VERSION
        return prompts.RUBRIC_VERSION + ("+answer" if self.show_answer else "")

    def messages(self, transcript: Transcript) -> list[dict[str, Any]]:
        if self.kind == "labels":
            return prompts.labels_messages(transcript, self.taxonomy)
        return prompts.rubric_messages(transcript, self.question or "", self.answer_schema or {})

    def read(self, text: str, transcript: Transcript) -> list[Proposal]:
        if self.kind == "labels":
            return prompts.read_labels(text, transcript, self.taxonomy)
        return prompts.read_answer(text, transcript, self.answer_schema or {})


@dataclass
class ScanProgress:
    """What a run did: sessions to read, read now, skipped (read before), failed; totals."""

    selected: int = 0
    skipped: int = 0
    read: int = 0
    failed: int = 0
    suggestions: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    errors: list[str] = field(default_factory=list)
    by_others: int = 0  # read by another run of the scan while this one ran
    left_to_others: int = 0  # held by another run (not read yet) when this one ended
    others: set[str] = field(default_factory=set)  # those runs: `pid N` (`on HOST`)

    def add(self, reading: Reading) -> None:
        if reading.error:
            self.failed += 1
            self.errors.append(reading.error)
        else:
            self.read += 1
            self.suggestions += len(reading.proposals)
        self.tokens_in += reading.tokens_in
        self.tokens_out += reading.tokens_out
        if reading.cost is not None:
            self.cost = (self.cost or 0.0) + reading.cost


def session_header(store: Store, session_id: int, *, show_answer: bool = False) -> str:
    """The transcript's first lines: the session, its task (type, index and query), the
    participant and its reward; the task's expected answer only when `show_answer` (a rubric
    that asks for it: docs/research.md, "Scanners")."""
    found = session_headers(store, [session_id], show_answer=show_answer)
    if session_id not in found:
        raise UserError(f"no session {session_id}")
    return found[session_id]


def session_headers(
    store: Store, session_ids: Sequence[int], *, show_answer: bool = False
) -> dict[int, str]:
    """`session_header` of each of `session_ids` that exists, in one query (a scan reads the
    headers of the sessions it claims together)."""
    answer = "s.task_json -> '$.answer'" if show_answer else "NULL"
    marks = ",".join("?" * len(session_ids))
    rows = store.read(
        "SELECT s.id, s.task_type, s.task_idx, s.task_json ->> '$.query', p.name, s.status,"
        " (SELECT reward FROM grades g WHERE g.session_id = s.id ORDER BY g.id DESC LIMIT 1),"
        f" {answer}"
        f" FROM sessions s JOIN participants p ON p.id = s.participant_id WHERE s.id IN ({marks})",
        tuple(session_ids),
    )
    headers = {}
    for session_id, task_type, idx, query, who, status, reward, expected in rows:
        head = (
            f"Session {session_id}: participant {who}, {status}, reward {reward}\n"
            f"Task: {task_type} #{idx}\nQuery: {query or ''}"
        )
        headers[session_id] = (
            f"{head}\nExpected answer: {expected or 'null'}" if show_answer else head
        )
    return headers


def session_events(store: Store, session_id: int) -> list[tuple[int, str, str, str]]:
    """A session's events as `compact` reads them, in log order. What the transcript leaves out
    is not fetched (scans/transcript.py, rule 1): the payload of a `usage`, `pause` or `resume`
    event is empty. A system prompt's is read whole: `compact` decodes each distinct prompt once
    (its size computed here parsed the prompt's JSON for every session)."""
    return store.read(  # (the columns are INTEGER, TEXT, TEXT, TEXT: no copy to convert them)
        "SELECT seq, actor, kind, CASE kind WHEN 'usage' THEN '' WHEN 'pause' THEN ''"
        " WHEN 'resume' THEN '' ELSE payload END"
        " FROM events WHERE session_id = ? ORDER BY seq",  # (one CASE on kind: the cheapest)
        (session_id,),
    )


def transcript_of(
    store: Store, session_id: int, *, show_answer: bool = False, header: str | None = None
) -> Transcript:
    """A session's compacted transcript (scans/transcript.py); its task's expected answer in
    the header only when `show_answer`. `header`: the session's, read already."""
    if header is None:
        header = session_header(store, session_id, show_answer=show_answer)
    return compact(session_id, header, session_events(store, session_id))


class Scanner:
    """Reads `sessions` for `scan` with `client`, storing each reading as it arrives."""

    def __init__(
        self,
        store: Store,
        scan: Scan,
        question: Question,
        client: LLMClient,
        *,
        concurrency: int = 1,
        retries: int = 2,
        on_reading: Callable[[int, Reading], None] | None = None,
    ) -> None:
        self.store = store
        self.scan = scan
        self.question = question
        self.client = client
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.on_reading = on_reading
        self._stop: LLMError | None = None
        self._headers: dict[int, str] = {}  # of the sessions claimed, read together
        self._lock = threading.Lock()

    def run(
        self, sessions: Sequence[int], read_before: Iterable[int] | None = None
    ) -> ScanProgress:
        """Read every session of `sessions` the scan has not read and no other run of it holds;
        then finish the scan when every one is read. `read_before`: what the scan had read when
        its plan was printed (`skipped`; what was read since is `by_others`). Raises the
        `LLMError` that stopped it (a refused key)."""
        selected = list(dict.fromkeys(sessions))
        done = self.store.suggestions.read_sessions(self.scan.id)
        before = done if read_before is None else done & set(read_before)
        todo = [s for s in selected if s not in done]
        progress = ScanProgress(selected=len(selected), skipped=len(before & set(selected)))
        progress.by_others = len(selected) - progress.skipped - len(todo)
        claims = ScanClaims(self.store, self.scan.id)
        elsewhere: dict[int, str] = {}
        batch: list[tuple[int, Reading]] = []
        flushed = time.monotonic()
        try:
            for item in self._readings(self._claimed(claims, todo, progress, elsewhere)):
                if item is not None:
                    batch.append(item)
                    progress.add(item[1])
                    if self.on_reading is not None:
                        self.on_reading(*item)
                idle = item is None  # (the next reading is not ready: write what is)
                if batch and (
                    idle or len(batch) >= BATCH or time.monotonic() - flushed >= FLUSH_SECONDS
                ):
                    self.store.suggestions.record_many(self.scan.id, batch)
                    batch, flushed = [], time.monotonic()
        finally:
            self.store.suggestions.record_many(self.scan.id, batch)
            claims.release()
        if self._stop is not None:
            raise self._stop
        if elsewhere:  # (read by the other run by now, or still its to read)
            now = self.store.suggestions.read_sessions(self.scan.id)
            progress.left_to_others = len(set(elsewhere) - now)
            progress.by_others += len(elsewhere) - progress.left_to_others
            progress.others |= set(elsewhere.values())
        if not progress.failed and not progress.left_to_others:
            self.store.suggestions.finish(self.scan.id)
        return progress

    def _claimed(
        self,
        claims: ScanClaims,
        todo: list[int],
        progress: ScanProgress,
        elsewhere: dict[int, str],
    ) -> Iterator[int]:
        """The sessions of `todo` this run claims, in order, claimed a few at a time: twice the
        concurrency, doubled (up to `BATCH`) while each lot is read within `FLUSH_SECONDS`."""
        at, want, last = 0, 2 * self.concurrency, time.monotonic()
        while at < len(todo) and self._stop is None:
            found = claims.claim(todo, want, at)
            at += found.examined
            progress.by_others += len(found.read)
            elsewhere.update(found.others)
            if found.mine:
                show = self.question.show_answer
                self._headers.update(session_headers(self.store, found.mine, show_answer=show))
            yield from found.mine
            now = time.monotonic()
            if now - last < FLUSH_SECONDS:
                want = min(2 * want, BATCH)
            last = now

    def _readings(self, todo: Iterator[int]) -> Iterator[tuple[int, Reading] | None]:
        """Each session's reading as it is made (with `concurrency` above 1, in the order they
        finish); None before waiting for one when none is ready."""
        if self.concurrency == 1:
            for session_id in todo:
                if self._stop is not None:
                    return
                yield session_id, self.read(session_id)
            return
        queue = todo
        pending: dict[Future[Reading | None], int] = {}
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="scan") as pool:

            def top_up() -> None:  # (a few queued beyond those read: a kill loses no more)
                while len(pending) < 2 * self.concurrency and self._stop is None:
                    session_id = next(queue, None)
                    if session_id is None:
                        return
                    pending[pool.submit(self._guarded, session_id)] = session_id

            try:
                top_up()
                while pending:
                    done, _ = wait(pending, timeout=0, return_when=FIRST_COMPLETED)
                    if not done:
                        yield None
                        done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        session_id = pending.pop(future)
                        reading = future.result()
                        if reading is not None:
                            yield session_id, reading
                    top_up()
            finally:
                for future in pending:
                    future.cancel()

    def _guarded(self, session_id: int) -> Reading | None:
        return None if self._stop is not None else self.read(session_id)

    def read(self, session_id: int) -> Reading:
        """One session's reading: the model asked (and asked again on a bad reply)."""
        header = self._headers.pop(session_id, None)
        show = self.question.show_answer
        transcript = transcript_of(self.store, session_id, show_answer=show, header=header)
        messages = self.question.messages(transcript)
        started = time.perf_counter()
        tokens_in = tokens_out = attempts = 0
        cost: float | None = None
        problem = ""
        for _ in range(self.retries + 1):
            try:
                reply = self.client.complete(messages)
            except LLMError as exc:
                attempts += exc.attempts
                if exc.kind in STOPPING_KINDS:
                    with self._lock:
                        self._stop = self._stop or exc
                problem = str(exc)
                break
            attempts += reply.attempts
            tokens_in += reply.prompt_tokens
            tokens_out += reply.completion_tokens
            if reply.cost is not None:
                cost = (cost or 0.0) + reply.cost
            try:
                proposals = self.question.read(reply.text, transcript)
            except prompts.BadReply as exc:
                problem = f"the model's reply was not usable: {exc}"
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": f"{exc}. Reply again with the JSON object only."},
                ]
                continue
            seconds = time.perf_counter() - started
            return Reading(proposals, tokens_in, tokens_out, cost, seconds, attempts)
        seconds = time.perf_counter() - started
        return Reading((), tokens_in, tokens_out, cost, seconds, max(attempts, 1), problem)
