"""What the dashboard says about a verdict in words: its fingerprint and provenance, the significance
sentence, the options it was judged with, and a view that could not be computed."""

from __future__ import annotations

from srdash.errors import SrdashError
from srdash.figures.escape import html_text
from srdash.judging.ranking import Verdict
from srdash.judging.rules import Rules, load_rules  # noqa: F401 - load_rules: the doctests

__all__ = ["RANK_METHOD_LABELS", "options_note_html", "provenance_html", "significance_html", "view_failed_html"]

#: The "Ties" control's label of each rank method.
RANK_METHOD_LABELS = {
    "average": "average (shared mean position)",
    "min": "min (lowest shared position)",
    "max": "max (highest shared position)",
    "dense": "dense",
    "k-minus-dense": "K − dense rank (as run in 2022)",
    "dense-from-best": "K + 1 − dense rank (as run in 2023)",
}


def view_failed_html(title: str, error: BaseException) -> str:
    """What a view that could not be computed shows in its place."""
    detail = str(error) if isinstance(error, SrdashError) else f"{type(error).__name__}: see the log below"
    return (f"<div class='srdash-view-failed' style='color:#b00;white-space:pre-wrap'>The "
            f"{html_text(title.lower())} view could not be computed: {html_text(detail)}</div>")


def provenance_html(verdict: Verdict, result=None) -> str:
    """The verdict's fingerprint, and its provenance (versions, rules hash, input hashes) in a collapsed block."""
    rows = "".join(f"<tr><td>{html_text(str(key))}</td><td><code>{html_text(str(value))}</code></td></tr>"
                   for key, value in verdict.provenance.items())
    stamp = ""
    if result is not None and result.fingerprint:
        stamp = (f"<div class='srdash-fingerprint'>Verdict fingerprint: <code class='srdash-fingerprint-value'>"
                 f"{html_text(result.fingerprint[:12])}"
                 "</code> (the same in <code>srdash score</code>, the report and every app for the same verdict)"
                 "</div>")
    return (stamp + "<details class='srdash-note'><summary>Provenance: the versions, rules and inputs of this "
            f"verdict</summary><table class='srdash-table'>{rows}</table></details>")


def significance_html(verdict: Verdict) -> str:
    """The Friedman/Nemenyi sentence about the winner, or nothing when it cannot be tested."""
    from srdash.analysis.significance import significance  # lazy: scipy

    if verdict.n_methods < 2 or verdict.per_dataset["dataset"].nunique() < 2:
        return ""
    try:
        result = significance(verdict)
    except SrdashError as exc:
        return f"<div class='srdash-note' style='margin-top:4px'>{html_text(f'No significance test: {exc}')}</div>"
    return (f"<div class='srdash-note' style='margin-top:4px'>{html_text(result.statement)}</div>"
            f"<div class='srdash-note'>{html_text(result.beside_bootstrap)}</div>")


def options_note_html(declared: Rules, applied: Rules) -> str:
    """What the leaderboard is judged with, when the controls differ from the rules file's options.

    The title shows the rules file's own description; once "Runs combined by"
    or "Ties" is changed, that description no longer tells how the leaderboard
    was computed, and this note says what changed.

    Examples
    --------
    >>> rules = load_rules("srbench2022")
    >>> options_note_html(rules, rules)
    ''
    >>> print(options_note_html(rules, rules.with_options(run_aggregation="mean", rank_method="k-minus-dense")))
    <div class='srdash-note srdash-changed'>Judged with options changed from these rules: runs combined by the mean (the rules say: the median); ties ranked by K − dense rank (as run in 2022) (the rules say: average (shared mean position)).</div>
    """
    changes = []
    if applied.run_aggregation != declared.run_aggregation:
        changes.append(f"runs combined by {_aggregation_words(applied.run_aggregation)} "
                       f"(the rules say: {_aggregation_words(declared.run_aggregation)})")
    if applied.rank_method != declared.rank_method:
        changes.append(f"ties ranked by {RANK_METHOD_LABELS.get(applied.rank_method, applied.rank_method)} "
                       f"(the rules say: {RANK_METHOD_LABELS.get(declared.rank_method, declared.rank_method)})")
    if not changes:
        return ""
    return ("<div class='srdash-note srdash-changed'>Judged with options changed from these rules: "
            + html_text("; ".join(changes)) + ".</div>")


def _aggregation_words(aggregation: str) -> str:
    return {"median": "the median", "mean": "the mean",
            "rank-mean": "the mean of per-run ranks"}.get(aggregation, aggregation)
