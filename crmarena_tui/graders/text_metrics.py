"""Text-overlap metrics for fuzzy_match, written from their definitions (no heavy imports).

All metrics work on `normalize_answer` output split on white space, as the benchmark does:

- `token_f1`: SQuAD-style bag-of-tokens F1; 0 when no token is shared (also when both are empty).
- `sentence_bleu`: the benchmark computed BLEU with sacrebleu's default `BLEU()` scorer, so this
  reproduces that scorer's sentence score divided by 100: n-grams up to 4, brevity penalty, the
  'exp' smoothing (NIST / Chen & Cherry method 3: the k-th n-gram order with no match gets
  precision 1 / (2**k * total)), and *no* effective order, so a prediction of fewer than four
  tokens scores 0. (After normalisation no ASCII punctuation is left, so sacrebleu's 13a
  tokenizer reduces to splitting on white space.)
- `rouge_n` / `rouge_l`: ROUGE-N F-measure over n-gram multisets and ROUGE-L F-measure over the
  longest common subsequence, as Google's `rouge_score` computes them (with white-space tokens).
  Upstream used the `rouge` package instead, which counts distinct n-grams and adds 1e-8 to the
  F denominator; the two agree unless a text repeats an n-gram.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

_PUNCTUATION = string.punctuation + "\u2018\u2019\u00b4`"
_PUNCT_TO_SPACE = str.maketrans({ch: " " for ch in _PUNCTUATION})
_ARTICLES = re.compile(r"\b(a|an|the)\b")
MAX_BLEU_ORDER = 4


def normalize_answer(text: str) -> str:
    """Lower case, `_` and punctuation (plus ‘ ’ ´ `) to spaces, drop a/an/the, collapse spaces."""
    text = text.replace("_", " ").lower().translate(_PUNCT_TO_SPACE)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    """Bag-of-tokens F1 between two token lists; 0 when they share no token."""
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def sentence_bleu(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    """Sentence BLEU in [0, 1] as sacrebleu's default scorer gives it (see the module notes)."""
    hyp_len, ref_len = len(pred_tokens), len(gold_tokens)
    correct: list[int] = []
    total: list[int] = []
    for n in range(1, MAX_BLEU_ORDER + 1):
        hyp, ref = _ngrams(pred_tokens, n), _ngrams(gold_tokens, n)
        correct.append(sum(min(count, ref[gram]) for gram, count in hyp.items() if gram in ref))
        total.append(max(hyp_len - n + 1, 0))
    if not any(correct):
        return 0.0
    log_sum = 0.0
    halvings = 1
    for n in range(MAX_BLEU_ORDER):
        if total[n] == 0:
            # No n-grams of this order: without effective order the precision stays 0.
            return 0.0
        if correct[n] == 0:
            halvings *= 2
            log_sum += math.log(1.0 / (halvings * total[n]))
        else:
            log_sum += math.log(correct[n] / total[n])
    brevity = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return brevity * math.exp(log_sum / MAX_BLEU_ORDER)


def _f_measure(overlap: int, pred_count: int, gold_count: int) -> float:
    if overlap == 0 or pred_count == 0 or gold_count == 0:
        return 0.0
    precision = overlap / pred_count
    recall = overlap / gold_count
    return 2 * precision * recall / (precision + recall)


def rouge_n(pred_tokens: list[str], gold_tokens: list[str], n: int) -> float:
    """ROUGE-N F-measure: clipped n-gram overlap over n-gram counts of each side."""
    hyp, ref = _ngrams(pred_tokens, n), _ngrams(gold_tokens, n)
    overlap = sum((hyp & ref).values())
    return _f_measure(overlap, sum(hyp.values()), sum(ref.values()))


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (O(len(a) * len(b)))."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for token in a:
        current = [0]
        for j, other in enumerate(b, start=1):
            if token == other:
                current.append(previous[j - 1] + 1)
            else:
                current.append(max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    """ROUGE-L F-measure: longest common subsequence over each side's length."""
    if not pred_tokens or not gold_tokens:
        return 0.0
    return _f_measure(lcs_length(pred_tokens, gold_tokens), len(pred_tokens), len(gold_tokens))


def all_metrics(prediction: str, gold: str) -> dict[str, float | bool]:
    """Every fuzzy_match figure for one prediction against one ground truth."""
    pred_norm, gold_norm = normalize_answer(prediction), normalize_answer(gold)
    pred, ref = pred_norm.split(), gold_norm.split()
    return {
        "f1": token_f1(pred, ref),
        "exact_match": pred_norm == gold_norm,
        "bleu": sentence_bleu(pred, ref),
        "rouge1": rouge_n(pred, ref, 1),
        "rouge2": rouge_n(pred, ref, 2),
        "rougeL": rouge_l(pred, ref),
    }
