"""`srdash serve` and its helpers (srdash.apps.server), without starting a server.

The real start and stop of the server is in tests/browser/.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import sys
import time
from pathlib import Path

import child_processes  # tests/ is on sys.path (pytest prepends it)
import pytest
from child_processes import descendants
from click.testing import CliRunner

import srdash.apps.server as app
from srdash.cli import main
from srdash.errors import SrdashError

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """`srdash serve` of the demo writes the demo's files while Voilà starts: into this test's folder."""
    monkeypatch.setenv("SRDASH_CACHE_DIR", str(tmp_path / "srdash-cache"))


@pytest.fixture
def served(monkeypatch):
    """Record what `srdash serve` would run (once the check has passed, as Voilà is announced) instead of
    running it."""
    calls = []

    def fake_serve(command, env, *, url, stage, **kwargs):
        if kwargs.get("started") is not None:  # Voilà has started: wait for the check (an error stops it)
            kwargs["started"]()
        calls.append({"command": list(command), "env": dict(env), "url": url})
        return 0

    monkeypatch.setattr(app, "serve_dashboard", fake_serve)
    return calls


def competition_of(call):
    """The competition the app receives: one serialised object, no other SRDASH_* variable."""
    from srdash.judging.competition import competition_from_json

    assert sorted(k for k in call["env"] if k.startswith("SRDASH_") and k != "SRDASH_CACHE_DIR") == [
        "SRDASH_COMPETITION"]
    return competition_from_json(call["env"]["SRDASH_COMPETITION"])


@pytest.fixture
def results_csv(tmp_path) -> Path:
    path = tmp_path / "results.csv"
    # srbench2022 (the default rules) ranks the property too
    path.write_text("method,dataset,run,r2_test,components,property\na,d1,0,0.9,3,0.5\nb,d1,0,0.8,5,0.5\n")
    return path


def test_help_explains_inputs_outputs_and_defaults():
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for expected in ["[INPUT]", "built-in demo competition", "competition file", "--rules", "default srbench2022",
                     "--port", "Default: a free port", "--jobs", "--timeout", "--datasets", "127.0.0.1", "Ctrl-C",
                     "fingerprint"]:
        assert expected in text, expected
    assert "--kernels" not in text  # every kernel is a fresh Python: no zygote to choose (docs/scaling.md)


def test_no_preheat_serves_without_a_waiting_kernel(served):
    assert CliRunner().invoke(main, ["serve", "--port", "8999", "--no-preheat"]).exit_code == 0
    assert not any("preheat" in part for part in served[0]["command"])


def test_serve_prepares_the_competition_once_for_every_visitor(results_csv, monkeypatch):
    # While Voilà runs, `srdash serve` prepares the competition once, in a child process of its own; the
    # visitors' kernels then read it whole from the cache (srdash.judging.snapshot) instead of preparing it
    # again. The process that supervises Voilà stays small: it never imports pandas (which it would keep for
    # the server's whole life), and what the child says is printed by the parent.
    import subprocess

    from srdash.judging.competition import competition_from_json
    from srdash.judging.kept_verdict import load_kept_verdict
    from srdash.judging.pipeline import judge_prepared, prepared_from_snapshot

    seen = {}

    def voila_runs(command, env, *, url, stage, started, **kwargs):  # Voilà runs until it is prepared
        started()  # the check has passed
        competition = competition_from_json(env["SRDASH_COMPETITION"])
        deadline = time.monotonic() + 60
        while prepared_from_snapshot(competition) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        seen["found"] = prepared_from_snapshot(competition)
        # then the verdict is kept with it (srdash.judging.kept_verdict): no visitor's kernel judges it again
        cache = competition.simplification.open_cache()
        while (load_kept_verdict(seen["found"].prepared, cache, refused_realworld="warn") is None
               and time.monotonic() < deadline):
            time.sleep(0.1)
        seen["kept"] = load_kept_verdict(seen["found"].prepared, cache, refused_realworld="warn")
        cache.close()
        return 0

    monkeypatch.setattr(app, "serve_dashboard", voila_runs)
    result = CliRunner().invoke(main, ["serve", str(results_csv), "--port", "8999"])
    assert result.exit_code == 0, result.output
    found = seen["found"]
    assert found is not None and list(found.prepared.runs["method"]) == ["a", "b"]
    assert seen["kept"] is not None
    assert seen["kept"].fingerprint == judge_prepared(found.prepared, refused_realworld="warn").fingerprint
    assert "results.csv: 2 runs of 2 methods on 1 datasets." in result.output  # said by the child
    assert "Competition prepared for every visitor (2 runs" in result.output
    # A fresh `srdash serve` process, once the competition is checked: it has imported neither pandas nor sympy.
    probe = ("import sys, time\nimport srdash.apps.server as app\n"
             "def voila(command, env, *, started, **kwargs):\n"
             "    started()\n"
             "    print('HEAVY', sorted(m for m in ('pandas', 'numpy', 'sympy') if m in sys.modules))\n"
             "    return 0\n"
             "app.serve_dashboard = voila\n"
             "from srdash.cli import main\n"
             "sys.argv = ['srdash', 'serve', sys.argv[1], '--port', '8999']\n"
             "main()\n")
    run = subprocess.run([sys.executable, "-c", probe, str(results_csv)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "HEAVY []" in run.stdout, run.stdout + run.stderr


def test_serve_is_listed_in_the_main_help():
    assert "serve" in CliRunner().invoke(main, ["--help"]).output


def test_the_demo_is_served_on_localhost(served):
    result = CliRunner().invoke(main, ["serve", "--port", "8999"])
    assert result.exit_code == 0, result.output
    (call,) = served
    assert call["url"] == "http://127.0.0.1:8999/"
    command = call["command"]
    assert command[1:3] == ["-m", "srdash.apps.voila_main"] and command[3] == str(app.notebook_path())
    assert "--no-browser" in command and "--port=8999" in command
    assert "--Voila.ip=127.0.0.1" in command and not any("0.0.0.0" in part for part in command)
    # kernels that have already opened the dashboard wait for the next visitors: one per core here
    assert "--preheat_kernel=True" in command
    assert f"--VoilaConfiguration.default_pool_size={app.default_visitors()}" in command
    # No INPUT: Voilà starts while the demo is checked, so its pages open the demo's competition file themselves
    # (no SRDASH_COMPETITION: Dashboard.from_environment's demo), the file the child checked and prepared.
    assert "SRDASH_COMPETITION" not in call["env"]
    from srdash.demo.competition import cached_demo
    from srdash.judging.competition import load_competition

    source = cached_demo()["competition"]
    assert f"No INPUT: the built-in demo competition ({source})." in result.output
    competition = load_competition(source)
    assert competition.source.endswith("competition.toml") and competition.rules.name == "srbench2022"
    assert competition.qualification is not None and competition.descriptions is not None
    assert competition.simplification.timeout == 10.0


def test_options_reach_the_notebook_through_the_environment(served, results_csv, tmp_path, monkeypatch):
    datasets = tmp_path / "datasets.csv"
    datasets.write_text("dataset,features\nd1,x1 x2\n")
    monkeypatch.chdir(tmp_path)  # relative paths must become absolute: Voilà runs in the notebook's folder
    result = CliRunner().invoke(main, ["serve", "results.csv", "--rules", "srbench2022-as-run",
                                       "--datasets", "datasets.csv", "--jobs", "2", "--timeout", "3"])
    assert result.exit_code == 0, result.output
    competition = competition_of(served[0])
    assert competition.results == (results_csv,)
    assert competition.datasets == datasets
    assert competition.rules.name == "srbench2022-as-run" and competition.simplification.jobs == 2
    assert competition.simplification.timeout == 3.0
    assert "results.csv: 2 runs of 2 methods on 1 datasets." in result.output


def test_how_many_kernels_wait_for_visitors_is_an_option(served):
    assert CliRunner().invoke(main, ["serve", "--visitors", "3"]).exit_code == 0
    command = served[0]["command"]
    assert "--preheat_kernel=True" in command and "--VoilaConfiguration.default_pool_size=3" in command
    # the replacement of a kernel a visitor took starts later, not while a burst of visitors is being served
    assert f"--VoilaKernelManager.fill_delay={app.FILL_DELAY}" in command


def test_default_visitors_follow_cores_and_memory(monkeypatch):
    # 2 cores, 8000 MB available: a quarter (2000 MB) holds 11 kernels of 180 MB -> 2 (the cores)
    monkeypatch.setattr(app.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(app, "_available_memory_mb", lambda: 8000)
    assert app.default_visitors() == 2
    # 16 cores, 2000 MB available: a quarter (500 MB) holds 2 kernels of 180 MB -> 2 (the memory)
    monkeypatch.setattr(app.os, "cpu_count", lambda: 16)
    monkeypatch.setattr(app, "_available_memory_mb", lambda: 2000)
    assert app.default_visitors() == 2
    # too little memory for even one: still 1 (a visitor needs a kernel anyway)
    monkeypatch.setattr(app, "_available_memory_mb", lambda: 300)
    assert app.default_visitors() == 1


def test_a_free_port_is_chosen_by_default(served):
    assert CliRunner().invoke(main, ["serve"]).exit_code == 0
    port = int(served[0]["url"].rsplit(":", 1)[1].strip("/"))
    assert 0 < port < 65536 and f"--port={port}" in served[0]["command"]


def test_a_rules_file_is_passed_as_an_absolute_path(served, tmp_path, monkeypatch):
    from srdash.judging.rules import load_rules

    (tmp_path / "mine.toml").write_text(load_rules("srbench2022").text)
    monkeypatch.chdir(tmp_path)
    # every criterion of srbench2022 has its column (a missing one is refused before anything is served)
    (tmp_path / "results.csv").write_text("method,dataset,r2_test,components,property\na,d1,0.9,3,1\n")
    assert CliRunner().invoke(main, ["serve", "results.csv", "--rules", "mine.toml"]).exit_code == 0
    assert competition_of(served[0]).rules.source == str(tmp_path / "mine.toml")


def test_a_missing_input_is_refused(served):
    result = CliRunner().invoke(main, ["serve", "nowhere.csv"])
    assert result.exit_code == 2
    assert "Invalid value for '[INPUT]': Path 'nowhere.csv' does not exist." in result.output
    assert served == []


def test_an_input_that_does_not_load_is_refused_before_serving(served, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("method,dataset,r2_test,components\na,d1,high,3\n")
    result = CliRunner().invoke(main, ["serve", str(bad)])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "bad.csv" in result.output and "r2_test" in result.output
    assert served == []


def test_unknown_rules_are_refused(served):
    result = CliRunner().invoke(main, ["serve", "results.csv", "--rules", "nope"])
    assert result.exit_code == 2
    assert "Invalid value for '--rules': No rules preset or file called 'nope'." in result.output
    assert served == []


def test_datasets_without_input_is_refused(served, tmp_path):
    datasets = tmp_path / "datasets.csv"
    datasets.write_text("dataset,features\nd1,x1\n")
    result = CliRunner().invoke(main, ["serve", "--datasets", str(datasets)])
    assert result.exit_code == 2
    assert "--datasets only apply to an INPUT" in result.output


def test_voila_runs_without_rfc3987_syntax_and_never_a_voila_py_of_the_current_folder(tmp_path):
    """srdash.apps.voila_main is Voilà's command line: it answers --help, having imported jupyter_server but not
    rfc3987_syntax (its 1.5 s import is skipped), and a voila.py where it was started is not what runs."""
    import subprocess

    (tmp_path / "voila.py").write_text("raise SystemExit('the voila.py of the current folder ran')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(app.__file__).parents[2]),
                                                                     os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", app.VOILA_MODULE, "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "voila [OPTIONS] NOTEBOOK_FILENAME" in done.stdout, \
        done.stdout[-2000:] + done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "jupyter_server.serverapp" in imported and "jsonschema" in imported
    # -X importtime also lists the refused attempt ("rfc3987_syntax", a few µs); what costs 1.5 s is its grammar
    assert "rfc3987_syntax.syntax_helpers" not in imported


def test_print_command_shows_what_would_run(served):
    result = CliRunner().invoke(main, ["serve", "--port", "9001", "--print-command"])
    assert result.exit_code == 0
    assert "SRDASH_COMPETITION={" in result.output
    assert "-m srdash.apps.voila_main" in result.output and "--port=9001" in result.output
    assert served == []


def test_a_failing_server_is_an_error(monkeypatch):
    monkeypatch.setattr(app, "serve_dashboard", lambda *a, **k: 3)
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 1 and "Voilà stopped with exit code 3." in result.output


def test_voila_command_never_listens_on_all_interfaces_by_default():
    command = app.voila_command("nb.ipynb", port=1234, python="py")
    assert command[:7] == ["py", "-m", "srdash.apps.voila_main", "nb.ipynb", "--no-browser", "--port=1234",
                           "--Voila.ip=127.0.0.1"]


def test_voila_culls_kernels_whose_visitor_left():
    command = app.voila_command("nb.ipynb", port=1234, python="py", cull_idle_timeout=120, cull_interval=30)
    culling = [part for part in command if "cull" in part]
    assert culling == ["--MappingKernelManager.cull_idle_timeout=120", "--MappingKernelManager.cull_interval=30"]
    assert not any("cull" in part for part in app.voila_command("nb.ipynb", port=1, cull_idle_timeout=0))


def test_environment_drops_stale_variables_and_keeps_the_rest():
    from srdash.judging.competition import competition_from_options

    competition = competition_from_options("r.csv", jobs=1)
    env = app.app_environment(competition=competition,
                              base={"PATH": "/bin", "SRDASH_COMPETITION": "{}", "SRDASH_CACHE_DIR": "/c"})
    assert env == {"PATH": "/bin", "SRDASH_CACHE_DIR": "/c", "SRDASH_COMPETITION": competition.to_json()}


def test_notebook_found_in_an_editable_checkout():
    assert app.notebook_path() == REPO / "notebooks" / "dashboard.ipynb"


def test_notebook_found_in_an_installed_wheel(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "srdash"
    (package / "notebooks").mkdir(parents=True)
    (package / "notebooks" / "dashboard.ipynb").write_text("{}")
    monkeypatch.setattr(app, "__file__", str(package / "apps" / "server.py"))
    assert app.notebook_path() == package / "notebooks" / "dashboard.ipynb"


def test_missing_notebook_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(app, "__file__", str(tmp_path / "srdash" / "apps" / "server.py"))
    with pytest.raises(SrdashError, match=r"Cannot find the notebook 'dashboard.ipynb': looked in .* "
                                          r"Reinstall srdash\."):
        app.notebook_path()


def test_wait_until_ready_stops_when_the_server_dies():
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(4)"])
    with pytest.raises(SrdashError, match=r"Voilà stopped before serving \(exit code 4\)"):
        app.wait_until_ready(f"http://127.0.0.1:{app.free_port()}/", timeout=30, process=process)


def test_the_notebook_only_assembles():
    """Import, construct, display: no definitions, no control flow, outputs cleared."""
    notebook = json.loads((REPO / "notebooks" / "dashboard.ipynb").read_text())
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code
    for cell in code:
        assert cell["outputs"] == [] and cell["execution_count"] is None
        tree = ast.parse("".join(cell["source"]))
        for node in ast.walk(tree):
            assert not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                                         ast.For, ast.While, ast.If, ast.Try, ast.With)), ast.dump(node)
    source = "".join("".join(cell["source"]) for cell in code)
    assert "Dashboard.from_environment()" in source


def test_serve_view_sensitivity_serves_the_sensitivity_notebook():
    from click.testing import CliRunner

    from srdash.cli import main

    result = CliRunner().invoke(main, ["serve", "--view", "sensitivity", "--print-command"])
    assert result.exit_code == 0, result.output
    assert "sensitivity.ipynb" in result.output and "dashboard.ipynb" not in result.output


def test_weighted_rules_need_the_sensitivity_view():
    from click.testing import CliRunner

    from srdash.cli import main

    result = CliRunner().invoke(main, ["serve", __file__, "--rules", "evalrs2022", "--print-command"])
    assert result.exit_code != 0
    assert "open them with --view sensitivity" in result.output


def test_descriptions_and_qualification_reach_the_notebook(served, tmp_path, monkeypatch):
    from srdash.io.datasets import write_property_datasets

    write_property_datasets(tmp_path / "data", seed=0)
    (tmp_path / "results.csv").write_text("method,dataset,run,model\na,exact_easy,0,x1\nb,exact_easy,0,x2\n")
    (tmp_path / "q.csv").write_text("method,dataset,run,r2_test\nLinearRegression,q,0,0.5\na,q,0,0.9\n")
    (tmp_path / "qdata").mkdir()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["serve", "results.csv", "--descriptions", "data/datasets.yaml",
                                       "--qualification", "q.csv", "--qualification-data", "qdata"])
    assert result.exit_code == 0, result.output
    competition = competition_of(served[0])  # paths made absolute: Voilà runs in the notebook's folder
    assert competition.descriptions == tmp_path / "data" / "datasets.yaml"
    assert competition.qualification.results == tmp_path / "q.csv"
    assert competition.qualification.data == tmp_path / "qdata"


@pytest.mark.parametrize("arguments, message", [
    (["--descriptions", "d.yaml"], "--descriptions only apply to an INPUT"),
    (["results.csv", "--qualification-data", "."], "--qualification-data and --keep-unqualified need --qualification"),
    (["results.csv", "--qualification", "bad.csv"], "the required column is missing"),
])
def test_descriptions_and_qualification_are_checked_first(served, results_csv, tmp_path, monkeypatch,
                                                          arguments, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.yaml").write_text("datasets: []\n")
    (tmp_path / "bad.csv").write_text("method,r2_test\na,0.5\n")
    result = CliRunner().invoke(main, ["serve", *arguments])
    assert result.exit_code != 0 and message in result.output
    assert served == []


# --------------------------------------------------------------------------- a real server, killed


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _command_line(pid: int) -> str:
    try:
        return child_processes.command_line(pid)  # a kernel forked by srdash's zygote says so
    except OSError:
        return ""


def _is_kernel(pid: int) -> bool:
    """A kernel: ipykernel started by jupyter_client, or forked by srdash's zygote (srdash.apps.zygote.KERNEL_NAME)."""
    return "ipykernel" in _command_line(pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_no_voila_server_or_kernel_survives_a_killed_srdash_serve(tmp_path, results_csv):
    import os
    import signal
    import subprocess
    import sys
    import time
    import urllib.request

    port = app.free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    environment.update({"SRDASH_CACHE_DIR": str(tmp_path / "cache"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
                        "JUPYTER_DATA_DIR": str(tmp_path / "data"), "IPYTHONDIR": str(tmp_path / "ipython"),
                        "PYTHONPATH": str(REPO)})
    log = open(tmp_path / "serve.log", "wb")
    serve = child_processes.start([sys.executable, "-m", "srdash", "serve", str(results_csv), "--port", str(port),
                                   "--jobs", "1"], env=environment, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    spawned: set[int] = set()
    try:
        child_processes.wait_until_serving(serve, f"http://127.0.0.1:{port}/", log=tmp_path / "serve.log")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=120) as page:  # a visitor: a kernel starts
            page.read()
        deadline = time.monotonic() + child_processes.START_BOUND
        while time.monotonic() < deadline:  # a kernel runs
            spawned = descendants(serve.pid)
            if any(_is_kernel(pid) for pid in spawned):
                break
            time.sleep(0.5)
        lines = {pid: _command_line(pid) for pid in spawned}
        assert any("-m srdash.apps.voila_main" in line for line in lines.values()), lines
        assert any(_is_kernel(pid) for pid in spawned), lines  # the kernel Voilà started

        serve.send_signal(signal.SIGKILL)
        serve.wait(10)
        deadline = time.monotonic() + child_processes.START_BOUND  # a clean stop: ~2 s idle
        while time.monotonic() < deadline and any(_alive(pid) for pid in spawned):
            time.sleep(0.5)
        survivors = {pid: lines.get(pid, "") for pid in spawned if _alive(pid)}
        assert survivors == {}
    finally:
        for pid in spawned | {serve.pid}:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        serve.wait(10)
        log.close()


def test_voila_gets_its_websocket_ping_timeout_as_a_number():
    # On the command line ("--Voila.tornado_settings=ws_ping_timeout=30000") it arrived as the string
    # "30000": jupyter_server's ping check then raised a TypeError traceback on every ping.
    import logging

    from voila.app import Voila

    from srdash.apps.gate import ClosedTab
    from srdash.apps.server import config_dir, voila_command

    assert not [a for a in voila_command("nb.ipynb", port=1, python="p") if "tornado_settings=" in a]
    app = Voila()
    app.load_config_file("voila", path=[str(config_dir(False))])   # srdash's voila.py, as Voilà reads it
    assert app.tornado_settings["ws_ping_timeout"] == 90000
    assert isinstance(app.tornado_settings["ws_ping_timeout"], int)
    # and a closed tab's WebSocketClosedError no longer prints a traceback in the terminal
    assert any(isinstance(f, ClosedTab) for f in logging.getLogger("asyncio").filters)


def test_a_page_connection_survives_its_first_ping():
    """jupyter_server checks, at each ping, the time since the page's last pong against the ping timeout.
    srdash had set that timeout to the ping interval itself (30 s): the first ping, 30 s after a page
    connected and before any pong could come, closed every kernel websocket (on a busy server, ten pages
    opened together, some stayed empty). Driven here through jupyter_server's own ping code."""
    from jupyter_server.base.websocket import WS_PING_INTERVAL, WebSocketMixin

    from srdash.apps.gate import tornado_settings

    class Connection(WebSocketMixin):
        def __init__(self, settings, opened, now):
            self.settings, self.last_ping, self.last_pong = settings, opened, opened
            self.ws_connection = type("Protocol", (), {"client_terminated": False})()
            self.ping_callback, self.closed, self.pings = None, False, 0
            self.log = logging.getLogger("test")
            self.now = now

        def close(self):
            self.closed = True

        def ping(self, data):
            self.pings += 1

    def first_ping(settings):
        import tornado.ioloop

        opened = 1000.0
        connection = Connection(settings, opened, now=opened + WS_PING_INTERVAL / 1000 + 0.004)  # 4 ms late
        loop = type("Loop", (), {"time": lambda self: connection.now})()
        current = tornado.ioloop.IOLoop.current
        tornado.ioloop.IOLoop.current = staticmethod(lambda *a, **k: loop)
        try:
            connection.send_ping()
        finally:
            tornado.ioloop.IOLoop.current = current
        return connection

    assert first_ping({"ws_ping_timeout": 30_000}).closed                 # the old setting: closed at once
    survived = first_ping(tornado_settings())
    assert (survived.closed, survived.pings) == (False, 1)                # srdash's: the ping goes out


def test_voila_waits_for_a_late_cell_output_and_drops_tornados_units_warning():
    """nbclient drops what a cell still has to show 4 s after its reply (a warning, "Timeout waiting for
    IOPub output"); on a busy server that was the dashboard itself. srdash's Voilà waits 120 s."""
    import nbformat
    from voila.app import Voila
    from voila.execute import VoilaExecutor

    from srdash.apps.gate import PingUnits
    from srdash.apps.server import config_dir

    app = Voila()
    app.load_config_file("voila", path=[str(config_dir(False))])
    executor = VoilaExecutor(nbformat.v4.new_notebook(), config=app.config)
    assert executor.iopub_timeout == 120
    assert VoilaExecutor(nbformat.v4.new_notebook()).iopub_timeout == 4     # nbclient's own, for comparison

    def kept(message):
        return PingUnits().filter(logging.LogRecord("tornado.general", logging.WARNING, "", 0, message, (), None))

    assert not kept("The websocket_ping_timeout (90000) cannot be longer than the websocket_ping_interval (30000).")
    assert kept("Uncaught exception in a websocket handler")


def test_voila_and_its_kernels_allocate_arrow_memory_with_the_system_malloc(monkeypatch):
    # pyarrow's default allocator (jemalloc) left a dashboard kernel holding about 25 MB more of its own
    # memory after reading its prepared competition (61 -> 35 MB, measured): Voilà's environment, which its
    # kernels inherit, names the system's allocator, unless the user's environment names one.
    import subprocess

    seen = []

    class Stop(Exception):
        pass

    def popen(command, env, **kwargs):
        seen.append(env)
        raise Stop

    with monkeypatch.context() as patch:
        patch.setattr(app.subprocess, "Popen", popen)
        for given, expected in (({}, "system"), ({"ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}, "jemalloc")):
            with pytest.raises(Stop):
                app.serve_dashboard(["voila"], {"HOME": "/h", **given}, url="http://127.0.0.1:1/")
            assert seen[-1]["ARROW_DEFAULT_MEMORY_POOL"] == expected and seen[-1]["HOME"] == "/h"
    # and pyarrow understands it: a fresh Python with that environment allocates with malloc
    done = subprocess.run([sys.executable, "-c", "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"],
                          env={**os.environ, **app.KERNEL_ENVIRONMENT}, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "system", done.stderr


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_bad_file_stops_srdash_serve_and_the_voila_started_while_it_was_checked(tmp_path):
    # Voilà starts while a child process checks the competition (its imports overlap the check); a bad file is reported with its row and column, the exit code is 1, and nothing is left running.
    import subprocess

    bad = tmp_path / "results.csv"
    bad.write_text("method,dataset,run,r2_test,components\na,d1,0,zz,3\n")
    marker = str(tmp_path / "cache")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    environment.update({"SRDASH_CACHE_DIR": marker, "PYTHONPATH": str(REPO)})
    serve = child_processes.start([sys.executable, "-m", "srdash", "serve", str(bad), "--port", str(app.free_port())],
                                  env=environment, cwd=tmp_path, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
    seen: dict[int, str] = {}
    deadline = time.monotonic() + child_processes.START_BOUND
    while serve.poll() is None and time.monotonic() < deadline:
        seen.update({pid: _command_line(pid) for pid in descendants(serve.pid)})
        time.sleep(0.05)
    out, err = serve.communicate(timeout=child_processes.START_BOUND)
    assert serve.returncode == 1, out + err
    assert "bad.csv" not in err and f"{bad}, row 1, column 'r2_test': 'zz' is not a number" in err
    assert len(seen) >= 2, seen  # the checking child, and Voilà started meanwhile
    time.sleep(0.5)
    left = [pid for pid in seen if _alive(pid) and marker in Path(f"/proc/{pid}/environ").read_bytes().decode(
        errors="replace")]
    assert left == [], [_command_line(pid) for pid in left]


# --------------------------------------------------------------------------- the review's one door


def _kernels_of(server_pid: int) -> list[int]:
    """The kernels Voilà (a child of ``srdash review``) runs (ipykernel's launcher, or forked by its zygote)."""
    voila = [pid for pid in descendants(server_pid) if "srdash.apps.voila_main" in _command_line(pid)]
    return sorted(pid for parent in voila for pid in descendants(parent) if _alive(pid) and _is_kernel(pid))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_review_with_waiting_kernels_refuses_a_missing_or_wrong_key_before_handing_out_a_kernel(tmp_path):
    """`srdash review --visitors 2` keeps two judges' kernels ready; a page request without a key, with a
    guessed key or with a revoked one gets 403 and takes none of them (Voilà 0.5 hands out a pooled kernel
    without calling its prelaunch hook: the door is srdash.apps.door.ReviewDoor, asked before the page
    handler runs); the right key gets the page from a waiting kernel (the pool then starts a replacement)."""
    import subprocess
    import urllib.error
    import urllib.request

    from srdash.judging.trust import TrustStore

    path = tmp_path / "trust.sqlite"
    with TrustStore(path, seed=3) as store:
        key = store.issue_key("ann")
        revoked = store.issue_key("bob")
        store.revoke_keys("bob")
    (tmp_path / "r.csv").write_text("method,dataset,model,r2_test\na,d1,x1,0.5\nb,d1,2*x1,0.6\n")
    port = app.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
    env.update({"SRDASH_CACHE_DIR": str(tmp_path / "cache"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
                "IPYTHONDIR": str(tmp_path / "ipython"), "PYTHONPATH": str(REPO)})
    log = open(tmp_path / "server.log", "wb")
    process = child_processes.start([sys.executable, "-m", "srdash", "review", "r.csv", "--store", str(path),
                                     "--port", str(port), "--visitors", "2"], cwd=tmp_path, env=env, stdout=log,
                                    stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}/"
        child_processes.wait_until_serving(process, base, log=tmp_path / "server.log")
        deadline = time.monotonic() + child_processes.START_BOUND
        while len(_kernels_of(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert len(_kernels_of(process.pid)) == 2  # the pool: two kernels wait before anyone visits
        for query, says in (("", "This review needs your personal link"),
                            ("?key=Zq9-guessed-key", "This access key is not valid"),
                            (f"?key={revoked}", "This access key was revoked on")):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + query, timeout=120)
            assert refused.value.code == 403, query
            assert says in refused.value.read().decode()
        # No kernel was taken: a taken one is replaced FILL_DELAY (5 s) later; still two after that
        time.sleep(app.FILL_DELAY + 2)
        assert len(_kernels_of(process.pid)) == 2
        with urllib.request.urlopen(f"{base}?key={key}", timeout=180) as page:
            assert page.status == 200
            html = page.read().decode()
        assert "application/vnd.jupyter.widget-view+json" in html  # the review page's widget
        assert "There was an error when executing cell" not in html
        # the judge's kernel came from the pool: the pool refills to two
        deadline = time.monotonic() + child_processes.START_BOUND
        while len(_kernels_of(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert len(_kernels_of(process.pid)) == 3
    finally:
        child_processes.stop(process)
        log.close()
    output = (tmp_path / "server.log").read_text(errors="replace")
    assert "403 GET /?key=[hidden]" in output and revoked not in output and key not in output


def test_a_kernel_taken_from_the_pool_gets_a_whole_idle_timeout_before_culling(monkeypatch):
    """srdash.apps.kernelmanager (VoilaConfiguration.multi_kernel_manager_class): Voilà's pool answers the culler
    itself while a kernel waits in it, so the first time the culler reaches srdash's class about a pool's kernel
    (VOILA_PREHEAT=True) a visitor has just taken it: it is made active instead of culled; later rounds, and
    every kernel started for a visit, are jupyter_server's culling."""
    import asyncio
    from datetime import datetime, timedelta, timezone

    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    from srdash.apps.kernelmanager import PoolAwareKernelManager

    started = iter(["pooled", "visit"])
    culled, kernels = [], {}

    async def start_kernel(self, **kwargs):
        kernel_id = next(started)
        kernels[kernel_id] = type("Kernel", (), {"last_activity": datetime(2020, 1, 1, tzinfo=timezone.utc)})()
        return kernel_id

    async def cull_kernel_if_idle(self, kernel_id):
        culled.append(kernel_id)

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start_kernel)
    monkeypatch.setattr(AsyncMappingKernelManager, "cull_kernel_if_idle", cull_kernel_if_idle)
    monkeypatch.setattr(AsyncMappingKernelManager, "get_kernel", lambda self, kernel_id: kernels[kernel_id])
    manager = PoolAwareKernelManager()

    async def scenario():
        await manager.start_kernel(kernel_name="python3", env={"VOILA_PREHEAT": "True"})
        await manager.start_kernel(kernel_name="python3", env={"VOILA_PREHEAT": "False"})
        await manager.cull_kernel_if_idle("pooled")   # just taken: active from now, not culled
        await manager.cull_kernel_if_idle("visit")
        await manager.cull_kernel_if_idle("pooled")   # the next round: culled as any kernel

    before = datetime.now(timezone.utc)
    asyncio.run(scenario())
    assert culled == ["visit", "pooled"]
    assert kernels["pooled"].last_activity >= before - timedelta(seconds=1)
    assert kernels["visit"].last_activity == datetime(2020, 1, 1, tzinfo=timezone.utc)


def test_review_visitors_reach_voila_as_a_pool_and_zero_is_none(tmp_path):
    """`srdash review --visitors N`: Voilà's pool of N kernels, refilled FILL_DELAY s after a judge takes one;
    the default (0) starts each judge's kernel with their visit; the review's configuration is srdash's."""
    from srdash.judging.trust import TrustStore

    (tmp_path / "r.csv").write_text("method,dataset,model,r2_test\na,d1,x1,0.5\n")
    store = tmp_path / "t.sqlite"
    TrustStore(store, seed=1).close()
    base = ["review", str(tmp_path / "r.csv"), "--judge", "ann", "--store", str(store), "--print-command"]
    with_pool = CliRunner().invoke(main, [*base, "--visitors", "2"])
    assert with_pool.exit_code == 0, with_pool.output
    assert "--preheat_kernel=True --VoilaConfiguration.default_pool_size=2" in with_pool.output
    assert f"--VoilaKernelManager.fill_delay={app.FILL_DELAY}" in with_pool.output
    assert f"--Voila.config_file_paths={app.config_dir(True)}" in with_pool.output
    without = CliRunner().invoke(main, base)
    assert without.exit_code == 0 and "preheat" not in without.output
    refused = CliRunner().invoke(main, [*base, "--visitors", "-1"])
    assert refused.exit_code == 2 and "Invalid value for '--visitors'" in refused.output
