"""ROUGE the way upstream's fuzzy_match metrics compute it: the `rouge` package, version 1.0.1.

Upstream pins `rouge==1.0.1` (not Google's `rouge-score`, which `text_metrics` follows for the
`workbench` protocol). Written here from that package's definitions, for white-space tokens of one
normalised sentence (normalisation leaves no `.` to split sentences on):

- ROUGE-N counts *distinct* n-grams: P = |shared| / |distinct n-grams of the prediction|,
  R = |shared| / |distinct n-grams of the ground truth|, F = 2PR / (P + R + 1e-8). So a repeated
  n-gram counts once: "w1 w2 w3 w4 w1 w5" against "w1 w2 w3 w4" gives ROUGE-1 0.889 here and
  0.8 under `rouge-score`.
- ROUGE-L (summary level) counts distinct words: m and n are the numbers of distinct words of
  the ground truth and the prediction, and the overlap is the number of distinct words on one
  longest common subsequence, found by the package's back-tracking (a tie goes towards the end of
  the prediction); F = 2PR / (P + R + 1e-8).
- An empty prediction or ground truth (after normalisation) makes the package raise: upstream's
  evaluation then failed and the task scored 0 (`EmptyText`).

Not reproduced: the package back-tracks recursively, so a prediction and ground truth of about a
thousand words together exceeded Python's recursion limit upstream (reward 0); here they score.
"""

from __future__ import annotations

EPSILON = 1e-8


class EmptyText(ValueError):
    """The prediction or the ground truth has no words: upstream's ROUGE raised."""


def _distinct_ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def _f(overlap: int, pred_count: int, gold_count: int) -> float:
    precision = overlap / pred_count if pred_count else 0.0
    recall = overlap / gold_count if gold_count else 0.0
    return 2.0 * (precision * recall) / (precision + recall + EPSILON)


def _check(pred_tokens: list[str], gold_tokens: list[str]) -> None:
    if not pred_tokens:
        raise EmptyText("Hypothesis is empty.")
    if not gold_tokens:
        raise EmptyText("Reference is empty.")


def rouge_n_distinct(pred_tokens: list[str], gold_tokens: list[str], n: int) -> float:
    """ROUGE-N F over distinct n-grams; raises `EmptyText` for an empty side."""
    _check(pred_tokens, gold_tokens)
    pred, gold = _distinct_ngrams(pred_tokens, n), _distinct_ngrams(gold_tokens, n)
    return _f(len(pred & gold), len(pred), len(gold))


def lcs_words(gold_tokens: list[str], pred_tokens: list[str]) -> set[str]:
    """The distinct words of the longest common subsequence the package's back-tracking finds."""
    rows, cols = len(gold_tokens), len(pred_tokens)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            if gold_tokens[i - 1] == pred_tokens[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    words: set[str] = set()
    i, j = rows, cols
    while i > 0 and j > 0:
        if gold_tokens[i - 1] == pred_tokens[j - 1]:
            words.add(gold_tokens[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return words


def rouge_l_distinct(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    """Summary-level ROUGE-L F over distinct words; raises `EmptyText` for an empty side."""
    _check(pred_tokens, gold_tokens)
    overlap = len(lcs_words(gold_tokens, pred_tokens))
    return _f(overlap, len(set(pred_tokens)), len(set(gold_tokens)))
