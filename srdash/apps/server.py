"""Serving the dashboard: find the notebook, build the Voilà command, run it.

Nothing here imports ipywidgets or Voilà: this module only prepares a
subprocess. An app receives what it shows as one serialised object in an
environment variable (see :data:`ENVIRONMENT`), which :func:`app_environment` sets.

Examples
--------
>>> command = voila_command("/nb/dashboard.ipynb", port=8866)
>>> command[1:4], command[6]
(['-m', 'srdash.apps.voila_main', '/nb/dashboard.ipynb'], '--Voila.ip=127.0.0.1')
>>> from srdash.judging.competition import competition_from_options
>>> sorted(app_environment(competition=competition_from_options("r.csv"), base={}))
['SRDASH_COMPETITION']
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Mapping, Sequence

from srdash.apps.gate import LOG_LEVEL
from srdash.errors import SrdashError
from srdash.judging.competition import competition_from_json, load_competition

__all__ = [
    "ENVIRONMENT",
    "notebook_path",
    "free_port",
    "voila_command",
    "app_environment",
    "wait_until_ready",
    "serve_dashboard",
    "check_then_prepare",
    "start_in_a_child",
    "default_visitors",
    "local_address",
    "TEMPLATE",
    "template_environment",
]

#: The environment variables srdash's apps read: each holds one serialised object.
ENVIRONMENT = {
    "SRDASH_COMPETITION": "the competition, serialised as JSON (srdash.judging.competition.Competition.to_json), "
                          "read by the dashboard, the sensitivity view and the review",
    "SRDASH_PREDICTIONS": "JSON options of a prediction-file competition (targets, submissions, metrics, "
                          "selection rule), read by the predictions notebook",
}

NOTEBOOK_NAME = "dashboard.ipynb"
#: srdash's Voilà template (``apps/jupyter/voila/templates/srdash``): Voilà's lab template without its links
#: to Font Awesome on a public CDN (Voilà serves the same Font Awesome itself), so a page asks nothing of
#: any machine but the server.
TEMPLATE = "srdash"
#: The module ``python -m`` runs for Voilà: Voilà's command line without a 1.5 s import nothing here needs
#: (:mod:`srdash.apps.voila_main`).
VOILA_MODULE = "srdash.apps.voila_main"
_TEMPLATE_ROOT = Path(__file__).resolve().parent / "jupyter"
LOCALHOST = "127.0.0.1"
#: A kernel with no page connected and no work for this many seconds is shut down (its visitor left).
CULL_IDLE_TIMEOUT = 300
#: How often Voilà looks for such kernels, in seconds.
CULL_INTERVAL = 60
#: Seconds between a visitor taking a waiting kernel and Voilà starting its replacement.
FILL_DELAY = 5.0
#: A dashboard kernel's memory on the demo, in MB, as the default pool counts it: a kernel started afresh (resident
#: memory, measured before kernels were forked), an upper bound where srdash cannot fork; a kernel forked from
#: the zygote holds about 50-60 MB of its own (PSS, docs/scaling.md, 2026-11-28).
KERNEL_MEMORY_MB = 180


def notebook_path(name: str = NOTEBOOK_NAME) -> Path:
    """Path of a notebook shipped with srdash.

    In an installed wheel the notebooks are inside the package
    (``srdash/notebooks``, see ``force-include`` in pyproject.toml); in an
    editable checkout they are in ``<repo>/notebooks``.

    Raises
    ------
    SrdashError
        When neither place has the notebook.

    Examples
    --------
    >>> notebook_path().name
    'dashboard.ipynb'
    """
    package = Path(__file__).resolve().parent.parent
    candidates = [package / "notebooks" / name, package.parent / "notebooks" / name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = " and ".join(f"'{c}'" for c in candidates)
    raise SrdashError(f"Cannot find the notebook '{name}': looked in {tried}. Reinstall srdash.")


def free_port(host: str = LOCALHOST) -> int:
    """A TCP port that is free on ``host`` right now.

    Examples
    --------
    >>> 0 < free_port() < 65536
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def voila_command(notebook: str | Path, *, port: int, ip: str = LOCALHOST, preheat: int = 0,
                  python: str | None = None, cull_idle_timeout: float = CULL_IDLE_TIMEOUT,
                  cull_interval: float = CULL_INTERVAL, fill_delay: float = FILL_DELAY, review: bool = False,
                  config_dirs: Sequence[str | Path] = ()) -> list[str]:
    """The Voilà command line serving ``notebook``.

    Parameters
    ----------
    notebook : path
    port : int
    ip : str
        Address to listen on; the default serves this machine only.
    preheat : int
        Keep this many kernels that have already run the notebook waiting for
        the next visitors (``--preheat_kernel``, a pool; 0: none): a visitor's
        page only has to be drawn. ``srdash serve`` does (its kernels read the
        competition prepared once, :func:`check_then_prepare`, so a waiting
        kernel does no sympy work); so does ``srdash review --visitors N``
        (a waiting review kernel has done its imports and waits for its
        judge's request, :mod:`srdash.apps.visit`). A kernel taken from the pool is replaced
        ``fill_delay`` seconds later, so that visitors arriving together are
        not slowed by the kernels started for the next ones.
    python : str, optional
        Python interpreter (default: the running one, so the same environment).
    cull_idle_timeout, cull_interval : float
        A kernel that no page is connected to and that has been idle for
        ``cull_idle_timeout`` seconds is shut down (checked every
        ``cull_interval`` seconds): a dashboard kernel (several hundred MB)
        does not outlive its visitor's tab. 0 disables culling.
    review : bool
        Serve the trust review: once access keys are issued, a page request
        without a valid key is refused (403) before any kernel is started or
        taken from the pool for it (:class:`srdash.apps.door.ReviewDoor`).
    config_dirs : sequence of paths
        Further folders whose ``voila.json`` Voilà reads (e.g. a private one
        holding a token). Voilà reads srdash's own configuration
        (:mod:`srdash.apps.gate`: numeric tornado settings, an access log
        without query values) and these, never a ``voila.py`` of the current
        folder.
    Voilà logs errors only: its warnings are about its own set-up, not about
    the competition (that srdash's notebooks are not signed, a notary that
    only matters for stored outputs, which they have none of; a websocket
    ping setting). srdash says what it does itself. Its kernels talk to it
    over local sockets (``ipc``) rather than TCP ports (nothing listens on the
    network but Voilà itself). Pages use srdash's template (:data:`TEMPLATE`;
    Voilà finds it through :func:`template_environment`).

    Examples
    --------
    >>> voila_command("nb.ipynb", port=9000, python="python")[:7]
    ['python', '-m', 'srdash.apps.voila_main', 'nb.ipynb', '--no-browser', '--port=9000', '--Voila.ip=127.0.0.1']
    >>> voila_command("nb.ipynb", port=9000, python="python")[7:9]
    ['--Voila.log_level=ERROR', '--KernelManager.transport=ipc']
    >>> voila_command("nb.ipynb", port=9000, python="python")[10:]
    ['--template=srdash', '--MappingKernelManager.cull_idle_timeout=300', '--MappingKernelManager.cull_interval=60']
    >>> voila_command("nb.ipynb", port=9000, python="python", preheat=3)[13:]
    ['--preheat_kernel=True', '--VoilaConfiguration.default_pool_size=3', '--VoilaKernelManager.fill_delay=5.0']
    """
    command = [python or sys.executable, "-m", VOILA_MODULE, str(notebook), "--no-browser", f"--port={int(port)}",
               f"--Voila.ip={ip}", f"--Voila.log_level={LOG_LEVEL}", "--KernelManager.transport=ipc",
               # srdash's configuration (srdash.apps.gate), and no voila.py of the current folder
               *(f"--Voila.config_file_paths={folder}" for folder in (config_dir(review), *config_dirs)),
               f"--template={TEMPLATE}"]
    if cull_idle_timeout:
        command += [f"--MappingKernelManager.cull_idle_timeout={int(cull_idle_timeout)}",
                    f"--MappingKernelManager.cull_interval={max(1, int(cull_interval))}"]
    if preheat:
        command += ["--preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={int(preheat)}",
                    f"--VoilaKernelManager.fill_delay={float(fill_delay)}"]
    return command


def local_address(ip: str) -> str:
    """The address at which this machine reaches a server listening on ``ip`` (a URL's host part).

    Examples
    --------
    >>> local_address("0.0.0.0"), local_address("::1"), local_address("192.168.1.5")
    ('127.0.0.1', '[::1]', '192.168.1.5')
    """
    if ip in ("", "0.0.0.0"):
        return LOCALHOST
    if ip == "::":
        return "[::1]"
    return f"[{ip}]" if ":" in ip else ip


def default_visitors(*, kernel_mb: int = KERNEL_MEMORY_MB) -> int:
    """How many kernels ``srdash serve`` keeps waiting for visitors by default: one per core, and no more
    than a quarter of the memory now available can hold (at least 1).

    A waiting kernel costs its memory all the time (:data:`KERNEL_MEMORY_MB`, measured on the demo) and
    saves a visitor the start of a kernel (about 2.5 s of one core). More waiting kernels than cores do not
    make a burst of visitors faster by much: their refill competes with the pages being drawn.

    Examples
    --------
    >>> 1 <= default_visitors() <= (os.cpu_count() or 1)
    True
    """
    available = _available_memory_mb()
    by_memory = (available // 4) // kernel_mb if available else 1
    return max(1, min(os.cpu_count() or 1, by_memory))


def _available_memory_mb() -> int:
    """MemAvailable of /proc/meminfo in MB (0 where it cannot be read)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def config_dir(review: bool) -> Path:
    """The folder of srdash's Voilà configuration (``voila.py``) for the review app or for the others.

    :func:`voila_command` passes it to Voilà (``--Voila.config_file_paths``).

    Parameters
    ----------
    review : bool
        True for the review app's configuration.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> config_dir(True).parts[-2:], config_dir(False).parts[-2:]
    (('config', 'review'), ('config', 'app'))
    """
    return _TEMPLATE_ROOT / "config" / ("review" if review else "app")


def app_environment(*, competition=None, predictions: Mapping[str, object] | None = None,
                    base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a Voilà app: ``base`` (default ``os.environ``) without any inherited app variable,
    plus the one serialised object the app reads (see :data:`ENVIRONMENT`).

    Examples
    --------
    >>> env = app_environment(predictions={"metrics": ["mae"]}, base={"SRDASH_PREDICTIONS": "{}", "HOME": "/h"})
    >>> env
    {'HOME': '/h', 'SRDASH_PREDICTIONS': '{"metrics": ["mae"]}'}
    """
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in ENVIRONMENT}
    if competition is not None:
        env["SRDASH_COMPETITION"] = competition.to_json()
    if predictions is not None:
        env["SRDASH_PREDICTIONS"] = json.dumps(dict(predictions), sort_keys=True, default=str)
    return env


#: What Voilà and its kernels get unless the environment says otherwise: pyarrow allocates with the system's
#: malloc instead of its default, jemalloc, which leaves each kernel less of its own memory
#: (docs/decisions/2026-11-kernel-memory.md).
KERNEL_ENVIRONMENT = {"ARROW_DEFAULT_MEMORY_POOL": "system"}


def template_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with srdash's Voilà template on ``JUPYTER_PATH`` (first), for a command from :func:`voila_command`.

    Examples
    --------
    >>> template_environment({"JUPYTER_PATH": "/elsewhere"})["JUPYTER_PATH"].endswith("jupyter:/elsewhere")
    True
    """
    paths = [str(_TEMPLATE_ROOT)] + [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep)
                                     if p and p != str(_TEMPLATE_ROOT)]
    return {**env, "JUPYTER_PATH": os.pathsep.join(paths)}


def wait_until_ready(url: str, *, timeout: float = 60.0, process: subprocess.Popen | None = None) -> None:
    """Wait until the Voilà server at ``url`` answers (``GET voila/static/voila.js``).

    Raises
    ------
    SrdashError
        When ``process`` ends first, or after ``timeout`` seconds.
    """
    probe = url.rstrip("/") + "/voila/static/voila.js"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SrdashError(f"Voilà stopped before serving (exit code {process.returncode}); see its messages above.")
        try:
            with urllib.request.urlopen(probe, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise SrdashError(f"Voilà did not answer at {url} within {timeout:g} s.")


_PR_SET_PDEATHSIG = 1


def _die_with(parent: int):
    """A ``preexec_fn``: the child gets SIGTERM when ``parent`` dies, even by SIGKILL (Linux).

    Voilà shuts its kernels down on SIGTERM, and each kernel also exits when its
    own parent (Voilà) is gone (ipykernel's parent poller), so killing ``srdash
    serve`` leaves nothing behind. Elsewhere this does nothing. ``prctl`` is looked up before the fork (a
    ``dlopen`` in the child could wait on a lock another thread held at the fork).
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        prctl = None

    def arm() -> None:
        if prctl is None:
            return
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nobody is left to signal us
            os._exit(1)
    return arm


def _stop(process: subprocess.Popen, *, grace: float = 15.0) -> int:
    """SIGTERM (Voilà then shuts its kernels down), SIGKILL after ``grace`` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


#: What stops a served app as Ctrl-C does (Voilà stopped, its kernels shut down): SIGTERM, and
#: SIGHUP (the terminal of ``srdash serve`` closed), whose default would end this process alone.
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def serve_dashboard(command: Sequence[str], env: Mapping[str, str], *, url: str, stage=print,
                    ready_timeout: float = 120.0, started=None) -> int:
    """Run Voilà until it stops or this process gets Ctrl-C, SIGTERM or SIGHUP.

    Parameters
    ----------
    command : sequence of str
        From :func:`voila_command`.
    env : mapping
        From :func:`dashboard_environment`.
    url : str
        Where the server will answer; announced once it does.
    stage : callable
        Called with one line of text for the user.
    started : callable, optional
        Called once Voilà's process has started, before it is announced (e.g.
        waiting for the check of what it serves, :meth:`Child.result`): an
        error it raises stops Voilà and is raised here.

    Returns
    -------
    int
        0 after Ctrl-C / SIGTERM / SIGHUP, else Voilà's exit code. When this process is killed (SIGKILL),
        Voilà and the checking child get SIGTERM from the system (Linux: they are started with
        ``PR_SET_PDEATHSIG``) and stop what they started.
    """
    env = {**KERNEL_ENVIRONMENT, **env}
    process = subprocess.Popen(list(command), env=template_environment(env), preexec_fn=_die_with(os.getpid()))

    def _terminate(signum, frame):  # SIGTERM, or SIGHUP (its terminal closed): stop Voilà cleanly too
        raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, _terminate) for signum in _STOP_SIGNALS}
    try:
        if started is not None:
            started()
        wait_until_ready(url, timeout=ready_timeout, process=process)
        stage(f"srdash dashboard: {url}  (Ctrl-C to stop)")
        return process.wait()
    except KeyboardInterrupt:
        try:
            stage("Stopping the dashboard...")
        except OSError:  # the terminal is gone (SIGHUP): stop all the same
            pass
        _stop(process)
        return 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if process.poll() is None:
            _stop(process)


def _prepare_once(competition, stage, every: float) -> None:
    """Prepare ``competition`` once for every visitor, announcing progress every ``every`` seconds and the end.

    The prepared competition is kept whole in srdash's cache
    (:mod:`srdash.judging.snapshot`): every visitor's kernel then reads it
    instead of preparing it again, and a kernel that starts while this runs
    waits for it (the preparation lock). Then its verdict and the leaderboard's
    resolution are kept too (:func:`srdash.apps.board_view.keep_first_page`). An error is announced too; the
    dashboard then reports it in its own log as well.
    """
    from srdash.judging.pipeline import prepare_competition  # lazy: numpy, pandas

    started = last = time.monotonic()

    def progress(done: int, total: int, counts) -> None:
        nonlocal last
        if time.monotonic() - last >= every:
            last = time.monotonic()
            stage(f"  preparing: {done} / {total} models")

    try:
        prepared = prepare_competition(competition, progress=progress)
    except Exception as error:  # noqa: BLE001 - told to the user; the dashboard shows it too
        stage(f"Could not prepare the competition: {error}")
        return
    what = prepared_runs_said(prepared)
    reused = "snapshot" in prepared.cache_stats
    stage(f"Competition prepared for every visitor ({what}, {time.monotonic() - started:.1f} s"
             f"{', read from the cache' if reused else ''}).")
    try:   # the verdict and the leaderboard's resolution, judged once here instead of in every visitor's kernel
        from srdash.apps.board_view import keep_first_page  # lazy: ipywidgets, pandas

        keep_first_page(competition)
    except Exception as error:  # noqa: BLE001 - each kernel then judges for itself, as before
        stage(f"The verdict could not be kept for every visitor (each visitor's kernel judges it): {error}")


def prepared_runs_said(prepared) -> str:
    """How many runs were prepared and, when the qualification stage removed methods, why fewer than were
    read (the check before announced every run of the results).

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> runs = pd.DataFrame({"method": ["a"] * 584})
    >>> filtered = SimpleNamespace(excluded=("LinearRegression",), flagged=())
    >>> prepared_runs_said(SimpleNamespace(runs=runs, filtered=filtered, results=None))
    '584 runs: the qualification stage excluded 1 method (LinearRegression) and its runs'
    """
    runs = prepared.runs
    if runs is None:
        return "the submissions"
    filtered = getattr(prepared, "filtered", None)
    excluded = tuple(filtered.excluded) if filtered is not None else ()
    if not excluded:
        return f"{len(runs)} runs"
    s = "s" if len(excluded) != 1 else ""
    return (f"{len(runs)} runs: the qualification stage excluded {len(excluded)} method{s} "
            f"({', '.join(map(str, excluded))}) and {'their' if s else 'its'} runs")


def _checked(competition, stage, prepare: bool):
    """``competition`` (None: the built-in demo's) once :func:`~srdash.judging.pipeline.check_competition`
    accepts it; what it holds is announced, and, with ``prepare``, that it is being prepared."""
    from srdash.judging.pipeline import check_competition  # lazy: numpy, pandas

    if competition is None:
        from srdash.demo.competition import cached_demo  # lazy: numpy, pandas

        competition = load_competition(cached_demo()["competition"])
        stage(f"No INPUT: the built-in demo competition ({competition.source}).")
    results = check_competition(competition)
    if results is not None:
        stage(f"{', '.join(map(str, competition.results))}: {len(results.table)} runs of "
                 f"{results.table['method'].nunique()} methods on {results.table['dataset'].nunique()} datasets.")
    if prepare:
        stage(f"Preparing the competition once for every visitor ({competition.simplification.jobs} "
                 "worker processes for the models; --jobs to change)...")
    return competition


def _child(connection, first, then, parent: int) -> None:
    """The child of :func:`start_in_a_child`: everything it says, its result or its error go through ``connection``."""
    import traceback

    _die_with(parent)()

    def stage(text: str) -> None:
        connection.send(("say", text))

    try:
        result = first(stage)
    except SrdashError as error:
        connection.send(("error", str(error)))
        return
    except BaseException:  # noqa: BLE001 - a bug: its traceback is announced, the parent stops cleanly
        connection.send(("say", traceback.format_exc().rstrip()))
        connection.send(("error", "srdash failed while checking its inputs (the traceback is above)."))
        return
    connection.send(("result", result))
    if then is not None:
        then(stage)


class Child:
    """Work started in a child process by :func:`start_in_a_child`.

    :meth:`result` waits for what ``first`` returned (or raises its error);
    :meth:`wait` and :meth:`stop` are for ``then``, which goes on after it.
    """

    def __init__(self, first, then=None, *, stage=print):
        self._stage, self._outcome, self._thread = stage, None, None
        self._process = self._receiving = None
        if not hasattr(os, "fork"):  # here, now; ``then`` in a thread
            import threading

            try:
                self._outcome = ("result", first(stage))
            except SrdashError as error:
                self._outcome = ("error", str(error))
                return
            if then is not None:
                self._thread = threading.Thread(target=then, args=(stage,), name="srdash-child", daemon=True)
                self._thread.start()
            return
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._receiving, sending = context.Pipe(duplex=False)
        # Not a daemon: ``then`` may start worker processes, which a daemonic process may not.
        self._process = context.Process(target=_child, name="srdash-child", args=(sending, first, then, os.getpid()))
        self._process.start()
        sending.close()

    def _relay(self) -> tuple | None:
        """What the child says, until its result or error (returned) or its end (None)."""
        while True:
            try:
                message = self._receiving.recv()
            except (EOFError, OSError):
                return None
            if message[0] != "say":
                return message
            self._stage(message[1])

    def result(self):
        """What ``first`` returned, once it has (what it said meanwhile is announced); its error raised here."""
        if self._outcome is None:
            import threading

            message = self._relay()
            if message is None:
                self._process.join(5)
                message = ("error", f"srdash's checking process ended (exit code {self._process.exitcode}).")
            self._outcome = message
            if message[0] == "error":
                self._receiving.close()
                self.stop()
            else:
                def relay_to_the_end() -> None:
                    self._relay()
                    self._receiving.close()
                    self._process.join()  # reaped: no process left behind in the server's tree

                self._thread = threading.Thread(target=relay_to_the_end, name="srdash-child-says", daemon=True)
                self._thread.start()
        if self._outcome[0] == "error":
            raise SrdashError(self._outcome[1])
        return self._outcome[1]

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the child has ended (waiting up to ``timeout`` seconds)."""
        if self._process is not None:
            self._process.join(timeout)
            if self._process.is_alive():
                return False
        if self._thread is not None:  # the relay of what it says, or ``then``'s thread
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def stop(self) -> None:
        """End the child if it still runs (the server stops); what it said is all printed."""
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
        self.wait(5)


def start_in_a_child(first, then=None, *, stage=print) -> Child:
    """Start ``first(stage)`` in a child process forked from this one, then ``then(stage)`` there.

    For the work a long-lived process does once, at its start, with libraries it
    does not need afterwards: ``srdash serve`` and ``srdash review`` check their
    inputs this way, so the process that supervises Voilà for the server's whole
    life never imports pandas or sympy (about 100 MB it would hold until Ctrl-C).
    What the child says (``stage(text)``) is announced here (``stage``), in
    order, from the moment :meth:`Child.result` is asked for. Where the system
    has no ``fork``, ``first`` runs here at once and ``then`` in a thread.

    Parameters
    ----------
    first : callable
        ``first(stage)``: its result (picklable) is :meth:`Child.result`. A :class:`SrdashError` it raises is
        raised by :meth:`Child.result` with its message; any other error's traceback is announced and a
        :class:`SrdashError` raised.
    then : callable, optional
        ``then(stage)``, run in the child once ``first`` has returned (while this process goes on).
    """
    return Child(first, then, stage=stage)


def check_then_prepare(competition, *, prepare: bool = True, stage=print, every: float = 10.0) -> Child:
    """Check ``competition`` (None: the built-in demo), then prepare it once for every visitor, in a child process.

    The child is forked from this one (:func:`start_in_a_child`): the process
    that then supervises Voilà never imports pandas or sympy and never holds the
    prepared competition. ``child.result()`` is the checked competition (the
    demo's when None was given), or raises :class:`SrdashError` with what the
    check found wrong; the preparation goes on in the child meanwhile and after.
    What the child finds (the demo, the results' size) and the preparation's
    progress are announced here (``stage``).
    """
    checked = []

    def check(stage) -> str:
        checked.append(_checked(competition, stage, prepare))
        return checked[0].to_json()

    def then(stage) -> None:
        _prepare_once(checked[0], stage, every)

    return _CompetitionChild(check, then if prepare else None, stage=stage)


class _CompetitionChild(Child):
    def result(self):
        return competition_from_json(super().result())
