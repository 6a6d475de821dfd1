"""`srdash rules`: list the rules presets or show one."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations

import click

from srdash.cli._common import fail_cleanly
from srdash.judging.rules import list_presets, load_rules


@click.command(name="rules")
@click.argument("name", required=False)
def rules_command(name):
    """List the rules presets, or print the rules file NAME (a preset or a path).

    A rules file is TOML; its format is documented in docs/rules.md. Copy a preset
    to start a new competition's rules.
    """
    with fail_cleanly():
        if name is None:
            for preset in list_presets():
                click.echo(f"{preset:28s} {load_rules(preset).title}")
            return
        click.echo(load_rules(name).text, nl=False)
