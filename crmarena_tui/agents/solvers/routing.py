"""Routing workflows: case_routing and lead_routing (criteria applied in the policy's order).

case_routing finds the issue most similar to the new case by comparing it with the org's past
cases of each issue taken together, plus the issue's own name and description (product names
masked, so "Cannot sign in to X" matches "Cannot sign in to Y"): each word the new case shares
with an issue counts by how few issues use it (log of issues / issues using it, twice that when
the issue's name or description uses it), and words used by more than a third of the issues
("our team", "as soon as possible") count nothing, so the words of the problem decide. The
product is the one the case text names.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from crmarena_tui.agents.solvers.base import (
    Record,
    Solver,
    Steps,
    Workbench,
    counts,
    get,
    literal,
    quoted,
)
from crmarena_tui.agents.solvers.text import mask, words
from crmarena_tui.tasks.model import Task


def _tie_break(bench: Workbench, tied: list[str], soql: str, thought: str, fewest: bool) -> Steps:
    rows = yield from bench.run(soql, thought)
    found = counts(rows, "OwnerId", "n")
    scores = {a: found.get(a, 0) for a in tied}
    target = min(scores.values()) if fewest else max(scores.values())
    return sorted(a for a in tied if scores[a] == target), scores


@dataclass(frozen=True, slots=True)
class NewCase:
    subject: str
    description: str


class CaseRouting(Solver):
    task = "case_routing"

    def parse(self, text: str, task: Task) -> NewCase:
        subject = re.search(r"Case Subject:\s*(.+)", text)
        # the description runs to the end (in a dialogue, its sentences come one message each)
        description = re.search(r"Case Description:\s*(.+)", text, re.S)
        return NewCase(
            subject.group(1).strip() if subject else "",
            " ".join(description.group(1).split()) if description else "",
        )

    def missing(self, request: NewCase) -> str | None:
        if not request.subject and not request.description:
            return "the details of the new case (its subject and description)"
        return None

    def solve(self, bench: Workbench, request: NewCase) -> Steps:
        products = yield from bench.run(
            "SELECT Id, Name FROM Product2",
            "First, which product is the new case about? I list the catalogue to find the product "
            "named in its subject or description.",
        )
        text = f"{request.subject}\n{request.description}"
        named = [p for p in products if p.get("Name") and p["Name"].lower() in text.lower()]
        product = max(named, key=lambda p: len(p["Name"]), default=None)
        issues = yield from bench.run(
            "SELECT Id, Name, Description__c FROM Issue__c",
            f"The case is about {product['Name'] if product else 'no catalogue product'}. Next, the "
            "issues on record, to find the one most similar to this case.",
        )
        past = yield from bench.run(
            "SELECT Id, IssueId__c, Subject, Description, OrderItemId__r.Product2.Name FROM Case "
            "WHERE IssueId__c != null",
            "Past cases show how each issue is usually described; I compare the new case with them, "
            "leaving product names out.",
        )
        issue, score = self._most_similar(text, products, issues, past)
        if issue is None:
            bench.note("No issue on record resembles this case.")
            return "None"
        name = next((i.get("Name") for i in issues if i["Id"] == issue), issue)
        rows = yield from bench.run(
            f"SELECT OwnerId, COUNT(Id) n FROM Case WHERE Status = 'Closed' AND "
            f"IssueId__c = {literal(issue)} GROUP BY OwnerId ORDER BY COUNT(Id) DESC",
            f"The most similar issue is {name} ({issue}; the words it shares with the new case "
            f"outweigh the next issue's by {score:.1f}). Issue expertise: closed cases of that "
            "issue per agent.",
        )
        closed = counts(rows, "OwnerId", "n")
        if not closed:
            bench.note("Nobody has closed a case of this issue yet.")
            return "None"
        top = max(closed.values())
        tied = sorted(a for a, n in closed.items() if n == top)
        if len(tied) > 1 and product is not None:
            tied, scores = yield from _tie_break(
                bench,
                tied,
                f"SELECT OwnerId, COUNT(Id) n FROM Case WHERE Status = 'Closed' AND "
                f"OrderItemId__r.Product2Id = {literal(product['Id'])} AND OwnerId IN ({quoted(tied)}) "
                "GROUP BY OwnerId",
                f"{len(tied)} agents tie with {int(top)} closed cases of the issue. Product "
                f"expertise: their closed cases about {product['Name']}.",
                fewest=False,
            )
        if len(tied) > 1:
            tied, scores = yield from _tie_break(
                bench,
                tied,
                f"SELECT OwnerId, COUNT(Id) n FROM Case WHERE Status != 'Closed' AND "
                f"OwnerId IN ({quoted(tied)}) GROUP BY OwnerId",
                f"Still tied: {', '.join(tied)}. Workload: their cases that are not closed.",
                fewest=True,
            )
        bench.note(
            f"{tied[0]} is the agent to route this case to ({int(closed.get(tied[0], 0))} "
            "closed cases of the issue)"
            + (f" (still tied with {', '.join(tied[1:])})." if len(tied) > 1 else ".")
        )
        return tied[0]

    @staticmethod
    def _most_similar(
        text: str, products: list[Record], issues: list[Record], past: list[Record]
    ) -> tuple[str | None, float]:
        names = [p["Name"] for p in products if p.get("Name")]
        new = words(mask(text, names))
        named = {
            issue["Id"]: words(f"{issue.get('Name') or ''} {issue.get('Description__c') or ''}")
            for issue in issues
        }
        seen = {issue: set(found) for issue, found in named.items()}
        for case in past:
            own = get(case, "OrderItemId__r.Product2.Name")
            body = mask(
                f"{case.get('Subject') or ''}\n{case.get('Description') or ''}",
                [own] if own else names,
            )
            seen.setdefault(case["IssueId__c"], set()).update(words(body))
        using = Counter(w for found in seen.values() for w in found)
        weight = {
            w: math.log(len(seen) / n) if 3 * n <= len(seen) else 0.0 for w, n in using.items()
        }
        scores = {
            issue: sum(weight[w] * (2 if w in named.get(issue, ()) else 1) for w in new & found)
            for issue, found in seen.items()
        }
        if not scores:
            return None, 0.0
        ranked = sorted(scores, key=lambda k: (-scores[k], k))
        margin = scores[ranked[0]] - scores[ranked[1]] if len(ranked) > 1 else 0.0
        return ranked[0], margin


@dataclass(frozen=True, slots=True)
class NewLead:
    region: str | None


class LeadRouting(Solver):
    task = "lead_routing"

    def parse(self, text: str, task: Task) -> NewLead:
        for source in (text, task.metadata.required):
            match = re.search(r"Lead's region:\s*([A-Za-z][A-Za-z .'-]*?)\s*$", source or "", re.M)
            if match:
                return NewLead(match.group(1).strip())
        return NewLead(None)

    def missing(self, request: NewLead) -> str | None:
        return None if request.region else "the lead's region (state)"

    def solve(self, bench: Workbench, request: NewLead) -> Steps:
        region = request.region or ""
        territories = yield from bench.run(
            f"SELECT Id, Name, Description FROM Territory2 WHERE Description LIKE "
            f"{literal('%' + region + '%')}",
            f"Territory match: which territory's description lists the lead's region, {region}?",
        )
        matching = [
            t
            for t in territories
            if region.lower()
            in [s.strip().lower() for s in (t.get("Description") or "").split(",")]
        ]
        if not matching:
            bench.note(f"No territory lists {region}.")
            return "None"
        territory = matching[0]
        members = yield from bench.run(
            f"SELECT UserId FROM UserTerritory2Association WHERE Territory2Id = {literal(territory['Id'])}",
            f"{territory.get('Name')} ({territory['Id']}) covers {region}. Its agents:",
        )
        agents = sorted({m["UserId"] for m in members if m.get("UserId")})
        if not agents:
            bench.note("The territory has no agents assigned.")
            return "None"
        rows = yield from bench.run(
            "SELECT Opportunity.OwnerId, COUNT(Id) n FROM Quote WHERE Status = 'Accepted' AND "
            f"Opportunity.OwnerId IN ({quoted(agents)}) GROUP BY Opportunity.OwnerId",
            f"{len(agents)} agents. Quote success: accepted quotes per agent (a quote belongs to "
            "the owner of its opportunity).",
        )
        accepted = counts(rows, "OwnerId", "n")
        scores = {a: accepted.get(a, 0) for a in agents}
        top = max(scores.values())
        tied = sorted(a for a in agents if scores[a] == top)
        workload: dict[str, float] = {}
        if len(tied) > 1:
            tied, workload = yield from _tie_break(
                bench,
                tied,
                f"SELECT OwnerId, COUNT(Id) n FROM Lead WHERE IsConverted = false AND "
                f"OwnerId IN ({quoted(tied)}) GROUP BY OwnerId",
                f"{len(tied)} agents tie with {int(top)} accepted quotes. Workload balance: their "
                "open (unconverted) leads; fewest wins.",
                fewest=True,
            )
        fewest = f" and the fewest open leads ({int(workload[tied[0]])})" if workload else ""
        bench.note(
            f"{tied[0]} gets the lead: {int(top)} accepted quotes, the most in the territory"
            f"{fewest}" + (f" (still tied with {', '.join(tied[1:])})." if len(tied) > 1 else ".")
        )
        return tied[0]
