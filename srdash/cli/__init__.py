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

    Typical use: `srdash demo -o demo/` writes a demo competition, `srdash score
    demo/results.csv -o leaderboard.csv` judges it, `srdash serve` opens the
    dashboard. Run `srdash COMMAND --help` for the inputs, outputs and defaults
    of each command.
    """


def _register() -> None:
    # Every command module is imported here so that `srdash --help` lists it.
    # Each module defines one click command or group; add yours as one line.
    from srdash.cli import rules, score

    main.add_command(score.score)
    main.add_command(rules.rules_command)
    main.add_command(__import__("srdash.cli.predictions", fromlist=["predictions"]).predictions)
    main.add_command(__import__("srdash.cli.serve", fromlist=["serve"]).serve)
    main.add_command(__import__("srdash.cli.demo", fromlist=["demo"]).demo)
    main.add_command(__import__("srdash.cli.sensitivity", fromlist=["sensitivity"]).sensitivity)
    main.add_command(__import__("srdash.cli.review", fromlist=["review"]).review)
    main.add_command(__import__("srdash.cli.review", fromlist=["trust"]).trust)
    main.add_command(__import__("srdash.cli.robustness", fromlist=["robustness_command"]).robustness_command)
    main.add_command(__import__("srdash.cli.audit", fromlist=["audit_command"]).audit_command)
    main.add_command(__import__("srdash.cli.datasets", fromlist=["datasets_command"]).datasets_command)
    main.add_command(__import__("srdash.cli.qualify", fromlist=["qualify_command"]).qualify_command)
    main.add_command(__import__("srdash.cli.report", fromlist=["report_command"]).report_command)
    main.add_command(__import__("srdash.cli.complexity", fromlist=["complexity"]).complexity)


_register()
