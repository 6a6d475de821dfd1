"""The trust review app: an expert judges each method's representative model by trust.

One dataset at a time, one card per representative model (see
:mod:`srdash.judging.representative`), shown blinded as "Model A, B, ..." in an order
shuffled per judge and dataset. Every change of a trust value or comment is
written at once to the :class:`~srdash.judging.trust.TrustStore`, and the card says
"saved" only once the store has committed it. Missing or repeated ranks are
shown on the cards while the judge fixes them; nothing is discarded.

At the top of each dataset, a :class:`ComparisonView` shows every model in one
view (formula, accuracy, simplicity, a small predicted-vs-actual plot) with one
row of rank buttons per model, the same entry as the card's box; long formulas
wrap inside their card. When the rules declare a ``[rubric]`` (a jury, see
:mod:`srdash.judging.jury`), each card has a row of score buttons per
criterion instead of the trust rank. On a served page, the cards below the overview
("Each model in detail") come into the page as the judge scrolls to them; each
stands as a short placeholder until then (:class:`~srdash.apps.panels.WhenNear`).

Roles: once the organiser issued access keys (``srdash trust issue-key``), the
visitor's key alone says who they are; a judge sees and changes only their own
entries; only the organiser's key shows the organiser's panel (completeness of
every judge, agreement and flags, revealing with a typed confirmation, and
reopening).

Everything a model or a judge wrote (formulas, raw model strings, comments,
method and dataset names) is shown as text: HTML-escaped, never interpreted.

``srdash review`` serves ``notebooks/review.ipynb``, which shows a
:class:`ReviewPage`: it prepares the representative models in the background
(with a progress bar) and then shows the :class:`ReviewApp`.

The package's modules, one idea each: ``card`` (:class:`ModelCard`), ``comparison``
(:class:`ComparisonView`), ``app`` (the judge's page, :class:`ReviewApp`), ``organiser`` (the organiser's
panel, a part of the app), ``environment`` (the served review's options and inputs), ``page``
(:class:`ReviewPage`), ``stamp`` (the line under the revealed leaderboard), ``letters`` (each judge's own
letters in the organiser's flags), ``typeset`` (a card's formula in lines), ``values`` (numbers and text as
shown), ``css`` (the stylesheet), ``kept`` (the cards' LaTeX, predictions and figures, computed once for every
judge).
"""

from srdash.apps.review.app import DEFAULT_RULES, ReviewApp
from srdash.apps.review.card import ModelCard
from srdash.apps.review.comparison import ComparisonView
from srdash.apps.review.environment import (DEMO_DATASETS, REVIEW_OPTIONS, demo_results, access_key_from_query,
                                            review_app_from_environment, review_inputs_from_environment,
                                            review_options)
from srdash.apps.review.organiser import REVEAL_CONFIRMATION
from srdash.apps.review.page import ReviewPage

__all__ = ["ReviewPage", "ReviewApp", "ModelCard", "ComparisonView", "DEFAULT_RULES", "REVEAL_CONFIRMATION",
           "access_key_from_query"]
