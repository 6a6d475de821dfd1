"""What the dashboard's Rules dropdown offers, what a chosen preset needs, and what the page says instead of
a verdict it cannot show.

The dashboard judges a competition under the chosen rules as ``srdash score`` does with them: through
:func:`srdash.judging.pipeline.prepare_competition` (what the rules' criteria measure: tree nodes, rounded
nodes, R² on the data, ...) and :func:`~srdash.judging.pipeline.judge_prepared`. Rules whose criteria
measure the same things share one preparation (:func:`measures_key`). A preset that cannot judge the
results (a criterion given as a column the results do not have, or measured on model strings or data files
they lack: :func:`cannot_judge`) stays in the dropdown, labelled
(:func:`preset_options`); choosing it shows why where the leaderboard was (:func:`refusal_html`), with no
number of an earlier verdict left on the page.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from srdash.errors import CriterionWithoutData, SrdashError
from srdash.figures.escape import html_text
from srdash.judging.measures import measure
from srdash.judging.rules import Rules, list_presets, load_rules

__all__ = ["run_presets", "measures_key", "missing_columns", "cannot_judge", "preset_options", "refusal_html",
           "rules_set_note_html", "NOT_APPLICABLE_LABEL"]

#: Added to the dropdown label of a preset that cannot judge the prepared results.
NOT_APPLICABLE_LABEL = " (cannot judge these results)"


def run_presets() -> list[str]:
    """The presets that judge per-run results (the dashboard's kind); a broken preset is left out.

    Examples
    --------
    >>> names = run_presets()
    >>> "srbench2022" in names, "srbench2025" in names, "evalrs2022" in names
    (True, True, False)
    """
    names = []
    for name in list_presets():
        try:
            if load_rules(name).rule_kind.judges_runs:
                names.append(name)
        except SrdashError:
            continue
    return names


def measures_key(rules: Rules) -> tuple:
    """What preparing a competition computes for ``rules``: its criteria measured otherwise than as a
    given column. Rules with equal keys are judged from the same prepared competition.

    Examples
    --------
    >>> measures_key(load_rules("srbench2022")) == measures_key(load_rules("srbench2022-as-run"))
    True
    >>> measures_key(load_rules("srbench2025"))
    (('size', 'rounded-nodes'),)
    """
    return tuple(sorted((c.column, c.measure) for c in rules.criteria if c.measure != "column"))


def missing_columns(rules: Rules, runs: pd.DataFrame) -> list[str]:
    """The required criteria's columns that ``runs`` lack (absent or empty) and that no measure computes.

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5], "model": ["x1"]})
    >>> missing_columns(load_rules("srbench2023-track2"), runs)
    ['jury_score']
    >>> missing_columns(load_rules("srbench2025"), runs)
    []
    """
    missing = []
    for criterion in rules.criteria:
        if criterion.measure != "column" or criterion.optional:
            continue
        column = criterion.column
        if column not in runs.columns or runs[column].isna().all():
            missing.append(column)
    return missing


def cannot_judge(rules: Rules, runs: pd.DataFrame, *, data_files: bool) -> bool:
    """Whether ``rules`` cannot judge ``runs`` whatever is measured: a required column they lack, a criterion
    counted on the model strings without any (and without its column), or one measured on the data files
    without them (``data_files``: the competition's descriptions name them).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5], "components": [3.0]})
    >>> cannot_judge(load_rules("srbench2025"), runs, data_files=False)   # rounded nodes: no model strings
    True
    >>> cannot_judge(load_rules("srbench2025"), runs.assign(model="x1"), data_files=False)
    False
    >>> cannot_judge(load_rules("srbench2023-track1"), runs.assign(model="x1"), data_files=False)
    True
    """
    if missing_columns(rules, runs):
        return True
    has_models = "model" in runs.columns and runs["model"].notna().any()
    for criterion in rules.criteria:
        if criterion.optional:
            continue
        needs = measure(criterion.measure)
        given = criterion.column in runs.columns and runs[criterion.column].notna().any()
        if needs.needs_data and not (data_files and has_models):
            return True
        if needs.from_model and not has_models and not given and not (
                criterion.measure == "simplified-components" and "components" in runs.columns):
            return True
    return False


def preset_options(presets: Sequence[str], runs: pd.DataFrame | None, *,
                   data_files: bool = False) -> list[tuple[str, str]]:
    """``(label, name)`` of the dropdown: a preset that cannot judge ``runs`` (:func:`cannot_judge`) says so in
    its label; choosing it shows why.

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a"], "dataset": ["d"], "r2_test": [0.5], "model": ["x1"],
    ...                      "property": [1.0]})
    >>> preset_options(["srbench2022", "srbench2023-track2"], runs)
    [('srbench2022', 'srbench2022'), ('srbench2023-track2 (cannot judge these results)', 'srbench2023-track2')]
    """
    options = []
    for name in presets:
        label = name
        if runs is not None:
            try:
                if cannot_judge(load_rules(name), runs, data_files=data_files):
                    label += NOT_APPLICABLE_LABEL
            except SrdashError:
                label += NOT_APPLICABLE_LABEL
        options.append((label, name))
    return options


def refusal_html(rules_name: str, error: BaseException, *, realworld: bool = False) -> str:
    """What stands where the leaderboard was when the rules ``rules_name`` give no verdict: why, and what to do.

    ``realworld``: the competition has a real-world track (its trust comes from the trust store, not from a
    column of the results).

    Examples
    --------
    >>> error = SrdashError("Criterion 'jury' has no data.")
    >>> html = refusal_html("srbench2023-track2", error)
    >>> "No verdict under the rules &#x27;srbench2023-track2&#x27;." in html, "has no data" in html
    (True, True)
    """
    detail = str(error) if isinstance(error, SrdashError) else f"{type(error).__name__} (see the log)"
    advice = ""
    if isinstance(error, CriterionWithoutData) and realworld and "trust" in error.criteria:
        advice = ("<div>These rules rank the experts' trust as a column of the results. This competition's "
                  "real-world track judges the trust store's entries instead: open \"Real-world track (expert "
                  "trust)\" under More views with the competition's own rules.</div>")
    return ("<div class='srdash-refusal' style='border-left:4px solid #b00;padding:6px 10px;margin:4px 0;line-height:1.45'>"
            f"<b>No verdict under the rules {html_text(repr(rules_name))}.</b>"
            f"<div style='white-space:pre-wrap'>{html_text(detail)}</div>{advice}"
            "<div class='srdash-note'>No leaderboard, fingerprint or figure of another verdict is shown meanwhile: "
            "choose other rules above.</div></div>")


def rules_set_note_html(rules: Rules, changed: Sequence[tuple[str, str, str]]) -> str:
    """The note beside the controls when choosing ``rules`` set them: ``changed`` lists
    ``(control, new value, old value)``; empty: nothing to say.

    Examples
    --------
    >>> rules = load_rules("srbench2023-track1")
    >>> rules_set_note_html(rules, [])
    ''
    >>> print(rules_set_note_html(rules, [("Ties", "max", "average")]))
    <span class='srdash-note srdash-rules-set'>Set by the rules &#x27;srbench2023-track1&#x27;: Ties: max, was average.</span>
    """
    if not changed:
        return ""
    listed = "; ".join(f"{control}: {new}, was {old}" for control, new, old in changed)
    return (f"<span class='srdash-note srdash-rules-set'>{html_text(f'Set by the rules {rules.name!r}: {listed}.')}"
            "</span>")
