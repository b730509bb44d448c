"""fuzzy_match: normalisation, token F1 as the reward, BLEU and ROUGE checked by hand and by the libs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmarena_tui.graders import grade
from crmarena_tui.graders.text_metrics import (
    lcs_length,
    normalize_answer,
    rouge_l,
    rouge_n,
    sentence_bleu,
    token_f1,
)
from crmarena_tui.tasks.model import Task

SAMPLE = Path(__file__).parents[1] / "data" / "crmarenapro_b2b_sample.json"
ROWS = [Task(**row) for row in json.loads(SAMPLE.read_text(encoding="utf-8"))]
FUZZY = [t for t in ROWS if t.reward_metric == "fuzzy_match"]
KQA = next(t for t in FUZZY if t.gold == ["Advanced encryption and multi-factor authentication"])


def toks(text: str) -> list[str]:
    return normalize_answer(text).split()


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("The_Quick, brown \u2018fox\u2019!", "quick brown fox"),
        ("An apple a day keeps THE doctor away.", "apple day keeps doctor away"),
        ("theatre and anthem", "theatre and anthem"),
        ("A.B.C", "b c"),
        ("multi-factor\tauthentication\n", "multi factor authentication"),
        ("don\u00b4t `quote` me", "don t quote me"),
        ("   ", ""),
        ("caf\u00e9 \u2014 na\u00efve", "caf\u00e9 \u2014 na\u00efve"),
    ],
)
def test_normalize_answer(raw: str, normal: str) -> None:
    assert normalize_answer(raw) == normal


def test_f1_worked_example() -> None:
    # "it uses advanced encryption" vs 6 gold tokens: 2 shared, P = 2/4, R = 2/6, F1 = 0.4.
    result = grade(KQA, "It uses advanced encryption.")
    assert result.reward == pytest.approx(0.4)
    assert result.metrics["f1"] == pytest.approx(0.4)
    assert result.parsed_answer == ["it uses advanced encryption"]
    assert result.grader == "fuzzy_match" and result.extraction == "deterministic"


def test_f1_ignores_case_punctuation_and_articles() -> None:
    result = grade(KQA, "ADVANCED encryption & multi-factor authentication!")
    # 5 of the prediction's 5 tokens shared, 5 of gold's 6: F1 = 2 * 1 * 5/6 / (1 + 5/6).
    assert result.reward == pytest.approx(10 / 11)
    assert result.metrics["exact_match"] is False


def test_no_shared_token_scores_0() -> None:
    result = grade(KQA, "Please contact support.")
    assert (
        result.reward == 0.0 and result.metrics["bleu"] == 0.0 and result.metrics["rougeL"] == 0.0
    )


def test_empty_answer_scores_0() -> None:
    assert grade(KQA, "").reward == 0.0
    assert token_f1([], []) == 0.0


@pytest.mark.parametrize("task", FUZZY, ids=lambda t: f"{t.task}-{t.idx}")
def test_own_ground_truth_scores_1_on_every_metric(task: Task) -> None:
    result = grade(task, task.gold[0], protocol="workbench")
    assert result.reward == 1.0
    assert result.metrics["exact_match"] is True
    assert result.metrics["rouge1"] == result.metrics["rouge2"] == result.metrics["rougeL"] == 1.0
    # sacrebleu's default scorer (no effective order) gives 0 under four tokens.
    expected_bleu = 1.0 if len(toks(task.gold[0])) >= 4 else 0.0
    assert result.metrics["bleu"] == pytest.approx(expected_bleu)


@pytest.mark.parametrize("task", FUZZY, ids=lambda t: f"{t.task}-{t.idx}")
def test_near_misses_score_between_0_and_1(task: Task) -> None:
    answer = f"I believe the answer is: {task.gold[0].lower()}, according to the transcripts"
    result = grade(task, answer)
    assert 0.0 < result.reward < 1.0
    assert result.reward == pytest.approx(token_f1(toks(answer), toks(task.gold[0])))


def test_comma_list_ground_truth_in_other_order() -> None:
    task = next(t for t in FUZZY if "CircuitWave" in t.gold[0])
    result = grade(task, "AI Chip Design Corp and CircuitWave Technologies")
    # Order does not matter for F1; "and" is one extra token: P = 6/7, R = 1.
    assert result.reward == pytest.approx(2 * (6 / 7) / (1 + 6 / 7))


def test_bleu_worked_example() -> None:
    # 1-4 gram precisions 4/5, 3/4, 2/3, 1/2 and no brevity penalty: BLEU = 0.2 ** 0.25.
    assert sentence_bleu(["w", "x", "y", "z", "q"], ["w", "x", "y", "z", "r"]) == pytest.approx(
        0.2**0.25
    )


def test_bleu_exp_smoothing_and_brevity_worked_example() -> None:
    pred, gold = toks("It uses advanced encryption."), toks(KQA.gold[0])
    # 1-gram 2/4, 2-gram 1/3, 3- and 4-gram unmatched: 1/(2*2) and 1/(4*1); brevity exp(1 - 6/4).
    expected = math.exp(1 - 6 / 4) * (0.5 * (1 / 3) * 0.25 * 0.25) ** 0.25
    assert sentence_bleu(pred, gold) == pytest.approx(expected)


def test_bleu_is_0_below_four_tokens() -> None:
    assert sentence_bleu(["a", "b", "c"], ["a", "b", "c"]) == 0.0


def test_rouge_worked_examples() -> None:
    pred, gold = ["x", "y", "z"], ["x", "y", "w", "v"]
    assert rouge_n(pred, gold, 1) == pytest.approx(4 / 7)
    assert rouge_n(pred, gold, 2) == pytest.approx(0.4)
    assert lcs_length(pred, gold) == 2
    assert rouge_l(pred, gold) == pytest.approx(4 / 7)
    # Repeated tokens are clipped: "x x x" shares one "x" with "x y".
    assert rouge_n(["x", "x", "x"], ["x", "y"], 1) == pytest.approx(
        2 * (1 / 3) * 0.5 / (1 / 3 + 0.5)
    )


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "the", "a"])
SENTENCES = st.lists(WORDS, min_size=0, max_size=12).map(" ".join)


class _SpaceTokenizer:
    def tokenize(self, text: str) -> list[str]:
        return text.split()


@settings(max_examples=150, deadline=None)
@given(pred=SENTENCES, gold=SENTENCES)
def test_bleu_matches_sacrebleu(pred: str, gold: str) -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    scorer = sacrebleu.metrics.BLEU()
    p, g = normalize_answer(pred), normalize_answer(gold)
    expected = scorer.sentence_score(p, [g]).score / 100
    assert sentence_bleu(p.split(), g.split()) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(pred=SENTENCES, gold=SENTENCES)
def test_rouge_matches_rouge_score(pred: str, gold: str) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_SpaceTokenizer())
    p, g = normalize_answer(pred), normalize_answer(gold)
    scores = scorer.score(g, p)
    pt, gt = p.split(), g.split()
    assert rouge_n(pt, gt, 1) == pytest.approx(scores["rouge1"].fmeasure)
    assert rouge_n(pt, gt, 2) == pytest.approx(scores["rouge2"].fmeasure)
    assert rouge_l(pt, gt) == pytest.approx(scores["rougeL"].fmeasure)


def test_real_rows_match_the_libraries() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    bleu = sacrebleu.metrics.BLEU()
    rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_SpaceTokenizer())
    answers = [
        "Advanced encryption, plus multi-factor authentication for every device.",
        "Security protects data integrity and privacy for the IoT Duo Linker.",
        "Adaptive Design Solutions was referenced the most.",
        "CircuitWave Technologies and AI Chip Design Corp have an edge over us.",
    ]
    for task in FUZZY:
        for answer in answers:
            metrics = grade(task, answer).metrics
            p, g = normalize_answer(answer), normalize_answer(task.gold[0])
            assert metrics["bleu"] == pytest.approx(bleu.sentence_score(p, [g]).score / 100)
            scores = rouge.score(g, p)
            assert metrics["rouge1"] == pytest.approx(scores["rouge1"].fmeasure)
            assert metrics["rouge2"] == pytest.approx(scores["rouge2"].fmeasure)
            assert metrics["rougeL"] == pytest.approx(scores["rougeL"].fmeasure)
