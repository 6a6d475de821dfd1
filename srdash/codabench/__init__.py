"""srdash as the judge of a live Codabench competition.

Codabench (https://github.com/codalab/codabench) scores one submission at a time and sorts its
leaderboard by that submission's own columns; it cannot rank methods per dataset and combine the
ranks across submissions. This package lets srdash take part without re-implementing a rule:

- :mod:`~srdash.codabench.columns`: the leaderboard columns one submission can be scored on alone;
- :mod:`~srdash.codabench.bundle`: a competition file -> a Codabench v2 competition bundle;
- :mod:`~srdash.codabench.score`: the scoring program (``python -m srdash.codabench.score IN OUT``);
- :mod:`~srdash.codabench.collect`: the organiser's results download -> srdash results;
- :mod:`~srdash.codabench.validate`: an offline check of a bundle.

Every fact about the platform was read in Codabench's source at commit
c7dbc756b07b133f8e552ae626fab54817ed93f3 (2026-03-13), cited as ``codabench@c7dbc75``.
It sits above judging, analysis and figures, and below the CLI.
"""

#: The Codabench commit whose source these modules follow.
CODABENCH_COMMIT = "c7dbc756b07b133f8e552ae626fab54817ed93f3"
