"""`srdash serve`: open the judging dashboard (a Voilà app) in the browser."""

# Local imports: keep the CLI's import path free of pandas, numpy and sympy (tests/test_serve.py).

from __future__ import annotations


import click

from srdash.apps import server as app
from srdash.cli._common import competition_input, fail_cleanly, serve_notebook
from srdash.cli._options import bounded


@click.command()
@competition_input(required=False)
@click.option("--view", type=click.Choice(["dashboard", "sensitivity"]), default="dashboard", show_default=True,
              help="The app to open: the judging dashboard, or the weight-sensitivity view alone (the "
                   "one for normalised, weighted rules such as evalrs2022).")
@click.option("--port", default=0, type=bounded("port"),
              help="Port to listen on. Default: a free port.")
@click.option("--preheat/--no-preheat", default=True, show_default=True,
              help="Keep kernels that have already opened the dashboard waiting for the next visitors "
                   "(each holds its memory while it waits: about 50-60 MB on the demo; see --visitors).")
@click.option("--visitors", type=bounded("visitors"), default=None,
              help="How many such kernels wait (visitors who arrive together beyond them wait for a kernel "
                   "to start). Default: one per core, within a quarter of the available memory.")
@click.option("--cull-idle", "cull_idle", type=bounded("cull-idle"), default=300, show_default=True,
              help="Seconds after which a kernel no page is connected to any more (its visitor left) is shut "
                   "down; 0: never.")
@click.option("--ip", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default serves this machine only; the dashboard has no "
                   "login, so only change it on a trusted network.")
@click.option("--print-command", is_flag=True,
              help="Print the environment and the Voilà command line instead of running them.")
def serve(competition, view, port, preheat, visitors, cull_idle, ip, print_command):
    """Open the dashboard on the competition in INPUT (a competition file, or results and options).

    INPUT is what `srdash score` reads. Without INPUT the dashboard judges the
    built-in demo competition (see `srdash demo`), with its dataset
    descriptions and qualification stage: the property and qualification views
    are under "More views".

    The competition is checked while Voilà starts, and a bad file is reported
    here and stops it. Then srdash prepares the competition once (simplifies,
    evaluates and checks the models, or reads them from its cache) for every
    visitor, and Voilà serves the dashboard notebook at http://IP:PORT/ (the
    URL is printed when it answers) until you press Ctrl-C. The app receives the competition
    as one serialised object (without INPUT it opens the demo's competition file itself)
    and judges it through the same pipeline as `srdash score`: the leaderboard and its
    verdict fingerprint are the same.
    """
    with fail_cleanly():
        _refuse_submissions(competition, view)
        # Checked, then prepared once for every visitor, in a child process: this one supervises Voilà until
        # Ctrl-C and stays small. Voilà starts while the child checks: it is
        # announced only once the check has passed, and a bad file stops both (it is reported here).
        checking = app.check_then_prepare(competition, prepare=not print_command,
                                          stage=lambda text: click.echo(text, err=True))
        try:
            if print_command:
                competition = checking.result()
            # Without INPUT, Voilà's pages open the built-in demo themselves (SRDASH_COMPETITION unset): the
            # same competition file the child checks and prepares, known before it is written.
            env = app.app_environment(competition=competition)
            serve_notebook("sensitivity.ipynb" if view == "sensitivity" else app.NOTEBOOK_NAME, env,
                           port=port, ip=ip, preheat=(visitors or app.default_visitors()) if preheat else 0,
                           cull_idle=cull_idle, print_command=print_command,
                           started=None if print_command else lambda: _refuse_submissions(checking.result(), view))
        finally:
            checking.stop()


def _refuse_submissions(competition, view) -> None:
    if competition is not None and competition.rules.rule_kind.judges_submissions and view != "sensitivity":
        raise click.UsageError(f"The rules '{competition.rules.name}' score submissions with weighted "
                               "meta-scores; open them with --view sensitivity.")
