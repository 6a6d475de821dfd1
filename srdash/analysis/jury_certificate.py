"""What would change a jury's choice: the jury certificate (``srdash trust jury --explain``).

The jury's scores are combined again by :func:`srdash.judging.jury.jury_summary` under each
change (jurors left out, the other normalisation, the rubric without a criterion or with equal
weights); each finding says who would be first instead.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Mapping

import pandas as pd

from srdash.analysis.findings import Finding, group_text as _group
from srdash.errors import SrdashError
from srdash.judging.jury import NORMALISATIONS as JURY_NORMALISATIONS, Rubric, jury_summary

__all__ = ["JuryCertificate", "jury_certificate", "jury_certificate_text", "JURY_FAMILIES"]

#: The families of changes of a jury's verdict.
JURY_FAMILIES = ("jurors", "normalisation", "rubric")


@dataclass(frozen=True)
class JuryCertificate:
    """What would change a jury's choice on each dataset (:func:`jury_certificate`).

    Attributes
    ----------
    rubric : Rubric
    jurors : tuple of str
    winners : Mapping of str to tuple of str
        Per dataset, the entries ranked first by the jury (several: a tie).
    findings : tuple of Finding
        One per (dataset, family); ``scope`` is the dataset.
    summaries : int
        How many times the jury's scores were combined again.
    """

    rubric: object
    jurors: tuple[str, ...]
    winners: Mapping[str, tuple[str, ...]]
    findings: tuple[Finding, ...]
    summaries: int

    def finding(self, family: str, dataset: str) -> Finding:
        """The finding of ``family`` on ``dataset``."""
        for f in self.findings:
            if f.family == family and f.scope == dataset:
                return f
        raise SrdashError(f"No finding for family '{family}' on dataset '{dataset}'. Families: "
                          f"{', '.join(JURY_FAMILIES)}; datasets: {', '.join(self.winners)}.")


def _jury_winners(summary) -> dict[str, tuple[str, ...]]:
    """Per dataset, the entries with the best (smallest) jury rank."""
    table = summary.table
    best = table.groupby("dataset")["rank"].transform("min")
    first = table[table["rank"] == best]
    return {str(d): tuple(sorted(g["method"].astype(str))) for d, g in first.groupby("dataset", sort=True)}


def jury_certificate(scores: pd.DataFrame, rubric, *, models=None, max_removed: int = 2) -> JuryCertificate:
    """What would change the jury's first choice on each dataset.

    The jury's scores are combined by :func:`srdash.judging.jury.jury_summary` (the one
    implementation) again under each change:

    * **jurors**: the fewest jurors whose scores, left out, change the first choice
      (exact: every set of up to ``max_removed`` jurors, leaving at least one);
    * **normalisation**: ranking by the other score (mean score or mean per-juror z-score);
    * **rubric**: each criterion left out of the rubric, and equal weights when the
      weights differ.

    Parameters
    ----------
    scores : DataFrame
        ``judge``, ``dataset``, ``method``, ``criterion``, ``score`` (as for ``jury_summary``).
    rubric : Rubric
    models : optional
        The entries under review (see ``jury_summary``).
    max_removed : int
        The largest set of jurors left out.

    Returns
    -------
    JuryCertificate

    Examples
    --------
    Ann prefers a by 4 points, Bob and Cy prefer b by 1: the mean is a 3.33 against b 3;
    without Ann, b leads; ranked by z-scores (each juror's spread counts the same), b leads.

    >>> from srdash.judging.jury import Rubric, RubricCriterion
    >>> rubric = Rubric((RubricCriterion("insight"),), scale=(1, 5))
    >>> scores = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob", "cy", "cy"], "dataset": "d",
    ...                        "method": ["a", "b"] * 3, "criterion": "insight",
    ...                        "score": [5.0, 1.0, 3.0, 4.0, 2.0, 3.0]})
    >>> certificate = jury_certificate(scores, rubric)
    >>> dict(certificate.winners)
    {'d': ('a',)}
    >>> print(certificate.finding("jurors", "d").line())
    jurors    changes to b: without juror ann, b is first (b 3.5 against a 2.5).
    >>> certificate.finding("normalisation", "d").outcome
    'changes to b'
    """
    if max_removed < 1:
        raise SrdashError(f"max_removed must be >= 1. Got {max_removed!r}.")
    count = 0

    def combined(table: pd.DataFrame, chosen: Rubric):
        nonlocal count
        count += 1
        return jury_summary(table, chosen, models=models if models is not None else scores)

    official = combined(scores, rubric)
    winners = _jury_winners(official)
    jurors = tuple(sorted(scores["judge"].astype(str).unique()))
    per_family: dict[tuple[str, str], Finding] = {}

    def lead(summary, dataset, new, old) -> str:
        column = "score" if summary.rubric.normalisation == "none" else "score_z"
        table = summary.table[summary.table["dataset"].astype(str) == dataset].set_index("method")[column]
        shown = list(new[:1]) + [m for m in old if m not in new][:1]
        return "(" + " against ".join(f"{m} {table.get(m, float('nan')):.3g}" for m in shown) + ")"

    # jurors
    largest = min(max_removed, len(jurors) - 1)
    checked = 0
    for size in range(1, largest + 1):
        pending = [d for d in winners if ("jurors", d) not in per_family]
        if not pending:
            break
        for subset in itertools.combinations(jurors, size):
            checked += 1
            summary = combined(scores[~scores["judge"].astype(str).isin(subset)], rubric)
            after = _jury_winners(summary)
            for dataset in pending:
                new = after.get(dataset, ())
                if ("jurors", dataset) not in per_family and new != winners[dataset]:
                    plural = "juror" if size == 1 else "jurors"
                    per_family[("jurors", dataset)] = Finding(
                        "jurors", 1, winners[dataset], False, new, subset,
                        f"without {plural} {', '.join(subset)}, {_group(new)} "
                        f"{'is' if len(new) == 1 else 'are'} first {lead(summary, dataset, new, winners[dataset])}.",
                        f"exact: every set of up to {largest} of the {len(jurors)} jurors", scope=dataset)
    for dataset in winners:
        if ("jurors", dataset) not in per_family:
            reason = (f"no set of up to {largest} of the {len(jurors)} jurors changes it ({checked} sets checked)."
                      if largest else "one juror: nobody to leave out.")
            per_family[("jurors", dataset)] = Finding("jurors", 1, winners[dataset], True if largest else None, (),
                                                      (), reason, f"exact: up to {largest} jurors", scope=dataset)

    # normalisation and rubric: one variant each, combined again
    variants = [(f"normalisation = {other}", f"ranked by the {'mean score' if other == 'none' else 'mean z-score'}",
                 "normalisation", replace(rubric, normalisation=other))
                for other in JURY_NORMALISATIONS if other != rubric.normalisation]
    if len(rubric.criteria) > 1:
        variants += [(f"without {c.name}", f"the rubric without '{c.name}'", "rubric",
                      replace(rubric, criteria=tuple(x for x in rubric.criteria if x.name != c.name)))
                     for c in rubric.criteria]
        if len({c.weight for c in rubric.criteria}) > 1:
            variants.append(("equal weights", "every rubric criterion weighted the same", "rubric",
                             replace(rubric, criteria=tuple(replace(c, weight=1.0) for c in rubric.criteria))))
    for family in ("normalisation", "rubric"):
        mine = [v for v in variants if v[2] == family]
        results = [(name, words, combined(scores, chosen)) for name, words, _, chosen in mine]
        for dataset in winners:
            changed = [(name, words, summary, _jury_winners(summary).get(dataset, ()))
                       for name, words, summary in results]
            changed = [c for c in changed if c[3] != winners[dataset]]
            if not mine:
                per_family[(family, dataset)] = Finding(family, 1, winners[dataset], None, (), (),
                                                        "one rubric criterion: nothing to leave out.", "",
                                                        scope=dataset)
            elif not changed:
                per_family[(family, dataset)] = Finding(
                    family, 1, winners[dataset], True, (), (),
                    f"none of {', '.join(name for name, *_ in mine)} changes it.",
                    f"{len(mine)} variant(s), each combined again", scope=dataset)
            else:
                name, words, summary, new = changed[0]
                per_family[(family, dataset)] = Finding(
                    family, 1, winners[dataset], False, new, tuple(c[0] for c in changed),
                    f"with {name} ({words}), {_group(new)} {'is' if len(new) == 1 else 'are'} first "
                    f"{lead(summary, dataset, new, winners[dataset])}.",
                    f"{len(mine)} variant(s), each combined again", scope=dataset)
    findings = tuple(per_family[(family, dataset)] for dataset in winners for family in JURY_FAMILIES)
    return JuryCertificate(rubric=rubric, jurors=jurors, winners=MappingProxyType(winners), findings=findings,
                           summaries=count)


def jury_certificate_text(certificate: JuryCertificate) -> str:
    """The jury certificate as plain text (``srdash trust jury --explain`` prints it).

    Examples
    --------
    >>> from srdash.judging.jury import Rubric, RubricCriterion
    >>> scores = pd.DataFrame({"judge": ["ann", "ann"], "dataset": "d", "method": ["a", "b"],
    ...                        "criterion": "insight", "score": [5.0, 1.0]})
    >>> print(jury_certificate_text(jury_certificate(scores, Rubric((RubricCriterion("insight"),)))))
    Why the jury's choice, dataset d: a
      jurors    not applicable: one juror: nobody to leave out.
      normalisation stays: none of normalisation = z-score changes it.
      rubric    not applicable: one rubric criterion: nothing to leave out.
    """
    lines = []
    for dataset, winners in certificate.winners.items():
        lines.append(f"Why the jury's choice, dataset {dataset}: {_group(winners)}")
        lines += ["  " + f.line() for f in certificate.findings if f.scope == dataset]
    return "\n".join(lines)
