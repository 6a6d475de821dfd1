"""From loaded results to a verdict: the expensive step (model complexity) once,
then judging, which is cheap and can be repeated with other options.

The pipeline is four modules, their public names re-exported here: :mod:`srdash.judging.prepared`
(the frozen types handed from step to step), :mod:`srdash.judging.preparation` (the expensive step),
:mod:`srdash.judging.judgement` (the cheap step) and :mod:`srdash.judging.fingerprint` (the verdict's
identity).

Examples
--------
>>> import pandas as pd
>>> from srdash.io.loading import load_results
>>> from srdash.judging.rules import load_rules
>>> results = load_results(pd.DataFrame({
...     "method": ["a", "b"], "dataset": "d", "r2_test": [0.91, 0.95], "components": [3, 25],
...     "property": [1.0, 1.0]}))
>>> rules = load_rules("srbench2022")
>>> runs = prepare_runs(results, rules=rules)
>>> runs[["method", "components", "simplicity", "status"]]
  method  components  simplicity status
0      a         3.0        -0.7  given
1      b        25.0        -2.0  given
>>> judge(runs, rules).leaderboard[["method", "score"]].round(4)  # ranks (1, 2, 1.5) and (2, 1, 1.5)
  method   score
0      a  1.3846
1      b  1.3846
"""

from __future__ import annotations

from srdash.judging.fingerprint import (FINGERPRINTED_VERSIONS, competition_input_hashes, input_hashes,
                                        verdict_fingerprint)
from srdash.judging.judgement import (judge_competition, judge_prepared, realworld_inputs, realworld_track,
                                      with_qualification, with_track_problems)
from srdash.judging.prepared import (RUN_STATUSES, CompetitionResult, PreparedCompetition, PreparedTrack,
                                     RealWorldInputs, RealWorldTrackRefused)
from srdash.judging.preparation import (check_competition, load_competition_results, prepare_competition,
                                        prepare_runs, prepare_track, prepared_from_snapshot, property_stage,
                                        qualified_competition_results, qualified_results, results_under_review)
from srdash.judging.ranking import judge

__all__ = ["judge_competition", "RealWorldTrackRefused", "prepare_competition", "prepared_from_snapshot",
           "results_under_review", "qualified_competition_results", "judge_prepared", "PreparedCompetition",
           "CompetitionResult", "verdict_fingerprint", "competition_input_hashes", "realworld_track",
           "realworld_inputs", "RealWorldInputs", "prepare_runs", "prepare_track", "PreparedTrack",
           "input_hashes", "RUN_STATUSES", "property_stage", "qualified_results", "with_qualification", "with_track_problems"]
