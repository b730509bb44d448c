"""The demo org's free text reads like real CRM text: varied multi-speaker call transcripts, email
threads and chats, case descriptions of several sentences, knowledge articles with sections; the
planted facts still appear as whole phrases, and the filler around them never imitates them."""

from __future__ import annotations

import re
import sqlite3
import statistics
from collections import Counter
from pathlib import Path

import pytest

from crmarena_tui.demo.generator import ensure_demo_org
from crmarena_tui.demo.names import COMPANY_HEADS, COMPANY_TAILS, FIRST_NAMES, LAST_NAMES
from crmarena_tui.demo.orggen import casetext, talk, texts, transcripts
from crmarena_tui.demo.taskgen import opportunity_tasks
from crmarena_tui.demo.theme import theme_for

ROOT = Path(__file__).resolve().parents[2]
NUMBER_WORDS = re.compile(
    r"\b(two|three|four|five|six|eight|twelve|fifteen|twenty|thirty|forty|sixty|hundred)\b"
)
DAY_WORDS = re.compile(r"\b(first|second|third|fourth|fifth|ninth|tenth|twelfth|twentieth)\b|th\b")


@pytest.fixture(scope="module")
def b2b() -> sqlite3.Connection:
    conn = sqlite3.connect(ensure_demo_org("b2b"))
    yield conn
    conn.close()


def without_names(text: str, org_type: str = "b2b") -> str:
    """`text` with people, companies, products and speakers' names replaced by "X"."""
    theme = theme_for(org_type)
    names = {*FIRST_NAMES, *LAST_NAMES, *COMPANY_HEADS, *COMPANY_TAILS, theme.company}
    names |= {p.name for p in theme.products} | set(theme.competitors)
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b", "X", text)
    return text


def test_twenty_transcripts_are_varied(b2b: sqlite3.Connection) -> None:
    bodies = [
        r[0]
        for r in b2b.execute(
            "SELECT Body__c FROM VoiceCallTranscript__c WHERE LeadId__c IS NOT NULL "
            "ORDER BY Id LIMIT 10"
        )
    ] + [
        r[0]
        for r in b2b.execute(
            "SELECT Body__c FROM VoiceCallTranscript__c WHERE OpportunityId__c IS NOT NULL "
            "ORDER BY Id LIMIT 10"
        )
    ]
    masked = [without_names(b) for b in bodies]
    assert len(set(masked)) == 20  # no two alike once names are removed
    openings = [
        next(line for line in m.splitlines() if not line.startswith("Call summary:"))
        for m in masked
    ]
    assert len(set(openings)) >= 15, openings
    lengths = [len(b.splitlines()) for b in bodies]
    assert max(lengths) - min(lengths) >= 6 and statistics.pstdev(lengths) >= 2, lengths
    speakers = [
        len({line.split(":")[0] for line in b.splitlines()} - {"Call summary"}) for b in bodies
    ]
    assert max(speakers) >= 3 and min(speakers) == 2  # sometimes a colleague or an engineer joins
    assert sum(bool(NUMBER_WORDS.search(b)) for b in bodies) >= 5  # numbers in words
    assert sum(bool(re.search(r"\.\.\. ", b)) for b in bodies) >= 5  # hesitations


def test_planted_bant_facts_sit_at_varied_places(b2b: sqlite3.Connection) -> None:
    lines, at_start = Counter(), Counter()
    for (body,) in b2b.execute(
        "SELECT Body__c FROM VoiceCallTranscript__c WHERE Body__c LIKE '%a budget of $%' LIMIT 80"
    ):
        turns = body.splitlines()
        n, said = next(
            (n, t.split(": ", 1)[1]) for n, t in enumerate(turns) if "a budget of $" in t
        )
        lines[min(n, 8)] += 1
        sentence = next(s for s in texts.BUDGET if s.split("{")[0] in said)
        at_start[said.startswith(sentence.split("{")[0])] += 1
    assert len(lines) >= 4  # the fact is said early or late in the call
    assert at_start[True] >= 10 and at_start[False] >= 10  # first in the turn, or after small talk


def test_case_text(b2b: sqlite3.Connection) -> None:
    descriptions = [r[0] for r in b2b.execute('SELECT Description FROM "Case"')]
    assert statistics.mean(map(len, descriptions)) >= 280  # about twice the old one-liners
    assert all(len(re.findall(r"[.?!](\s|$)", d)) >= 4 for d in descriptions)
    threads = b2b.execute(
        "SELECT ParentId, COUNT(DISTINCT FromAddress) FROM EmailMessage "
        "WHERE ParentId IS NOT NULL GROUP BY ParentId"
    ).fetchall()
    assert max(n for _, n in threads) >= 3  # a colleague or a second-line agent writes too
    chats = [r[0] for r in b2b.execute("SELECT Body FROM LiveChatTranscript")]
    assert any(len({line.split(":")[0] for line in c.splitlines()}) >= 3 for c in chats)
    first = b2b.execute(
        "SELECT TextBody FROM EmailMessage WHERE ParentId IS NOT NULL ORDER BY MessageDate LIMIT 1"
    ).fetchone()[0]
    assert first.count("\n\n") >= 2  # greeting, description, sign-off


def test_knowledge_articles_have_sections(b2b: sqlite3.Connection) -> None:
    bodies = [r[0] for r in b2b.execute("SELECT FAQ_Answer__c FROM Knowledge__kav")]
    assert all(body.startswith("## ") and body.count("\n## ") >= 1 for body in bodies)
    policy = b2b.execute(
        "SELECT FAQ_Answer__c FROM Knowledge__kav WHERE Title = 'Refund Approval Policy'"
    ).fetchone()[0]
    assert policy.startswith("## Policy\n") and "## Scope\n" in policy


FILLER = (
    *talk.SMALL_TALK,
    *talk.AGREEMENT,
    *transcripts.OPENERS,
    *transcripts.REPLIES,
    *transcripts.COLLEAGUE_JOINS,
    *transcripts.ENGINEER_JOINS,
    *transcripts.GENERAL_QUESTIONS,
    *transcripts.ANSWERS,
    *transcripts.OPP_PROMPTS,
    *transcripts.WRAP_UPS,
    *transcripts.GOODBYES,
    *[q for qs in transcripts.LEAD_QUESTIONS.values() for q in qs],
    *texts.AGENT_FOLLOW_UP,
    *texts.CUSTOMER_DETAIL,
    *texts.COLLEAGUE_NOTE,
    *texts.SECOND_LINE,
    *texts.CHAT_HELLO,
    *texts.STAFF_OPENERS,
    *texts.CUSTOMER_OPENERS,
    *casetext.DETAIL,
    *[s for pool in casetext.CONTEXT.values() for s in pool],
    *[s for pool in casetext.IMPACT.values() for s in pool],
    *casetext.ASK,
)
PLANTED = (
    r"a budget of|purchase within|final decision|no specific need|we need to",
    r"closing this case|that solved it|that fixed it|it works now|issue is resolved",
    r"issued a refund|manager approved|discount on your next order|free replacement",
    r"confirm the email address|Your order|has the edge|stronger offer",
    r"could not match|well ahead of|We also spoke to",
)


def test_filler_never_imitates_a_planted_phrase() -> None:
    patterns = [
        *opportunity_tasks.NEGATIVE,
        *opportunity_tasks.POSITIVE,
        *opportunity_tasks.EDGE,
        *opportunity_tasks.BEHIND,
        *opportunity_tasks.NEUTRAL,
        *(re.compile(p, re.I) for p in PLANTED),
        re.compile(r"\bThe "),  # would open a "The <subtopic> is a real concern" capture early
    ]
    for text in FILLER:
        for pattern in patterns:
            assert not pattern.search(text), (text, pattern.pattern)


def test_the_same_seed_writes_the_same_text(tmp_path: Path) -> None:
    from crmarena_tui.demo.generator import build_org

    def texts_of(path: Path) -> list[tuple]:
        conn = sqlite3.connect(path)
        try:
            return (
                conn.execute(
                    "SELECT Body__c FROM VoiceCallTranscript__c ORDER BY Id LIMIT 50"
                ).fetchall()
                + conn.execute('SELECT Description FROM "Case" ORDER BY Id').fetchall()
            )
        finally:
            conn.close()

    first = build_org(tmp_path / "a.db", org_type="b2c", seed=3, scale=0.1)
    again = build_org(tmp_path / "b.db", org_type="b2c", seed=3, scale=0.1)
    other = build_org(tmp_path / "c.db", org_type="b2c", seed=4, scale=0.1)
    assert texts_of(first) == texts_of(again) != texts_of(other)


def test_demo_generator_modules_stay_under_450_lines() -> None:
    demo = ROOT / "crmarena_tui" / "demo"
    paths = [*demo.glob("theme*.py"), *demo.glob("orggen/*.py"), *demo.glob("taskgen/*.py")]
    assert len(paths) >= 20
    for path in sorted(paths):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines < 450, (path.name, lines)
