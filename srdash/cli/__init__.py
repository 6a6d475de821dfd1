"""The ``srdash`` command line: a thin layer over the public API.

Each subcommand family lives in its own module and is registered here.
"""

from __future__ import annotations

import click

from srdash._version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="srdash")
def main() -> None:
    """Judge symbolic-regression and other machine-learning competitions.

    Typical use: `srdash demo -o demo/` writes a demo competition with its
    competition.toml, `srdash score demo/competition.toml -o leaderboard.csv`
    judges it, `srdash serve demo/competition.toml` opens the dashboard, and
    `srdash init FOLDER` writes a competition file for your own files. Run `srdash COMMAND --help` for the inputs, outputs and defaults
    of each command.
    """


def _register() -> None:
    # Every command module is imported here so that `srdash --help` lists it.
    # Each module defines one click command or group; add yours here.
    from srdash.cli import (audit, complexity, datasets, demo, explain, init, predictions, qualify, report, review,
                            robustness, rules, score, sensitivity, serve)

    from srdash.cli import analyse, submitted  # SRBench-lineage analyses; SRBench 2023 track 1
    from srdash.cli import codabench  # srdash as a Codabench competition's judge
    from srdash.cli import diff, publish  # versions a reader can cite and compare

    main.add_command(analyse.analyse)
    main.add_command(submitted.score_models)
    main.add_command(codabench.codabench)
    for command in (
        score.score, init.init_command, complexity.complexity, demo.demo, serve.serve, rules.rules_command,
        datasets.datasets_command, qualify.qualify_command, review.review, review.trust,
        sensitivity.sensitivity, robustness.robustness_command, audit.audit_command,
        report.report_command, predictions.predictions, explain.explain_command, publish.publish_command,
        diff.diff_command,
    ):
        main.add_command(command)


_register()
