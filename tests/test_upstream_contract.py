"""What srdash relies on in the packages it builds on, stated once, checked in seconds, without a browser.

pyproject.toml pins each package to the window the suite was run in (tests/test_packaging.py). An upgrade
beyond it fails here first: each test states one upstream behaviour (a trait's name, a hook, a template block,
a comm target, a message text...) and names, in its docstring, the srdash code that relies on it. The private
names srdash still uses are listed with their reasons in tests/upstream_private.py; each is checked here too.

Upstream code is read (inspect.getsource) only where the behaviour is a line of upstream code that cannot be
driven without a server; everything else is driven through public API.
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from upstream_private import GUARDED_PRIVATE_NAMES  # tests/ is on sys.path (pytest prepends it)

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "srdash" / "apps" / "jupyter" / "voila" / "templates" / "srdash"


# ------------------------------------------------------------------------------------------- Voilà: its traits

@pytest.mark.parametrize("owner, trait", [
    ("voila.app.Voila", "ip"), ("voila.app.Voila", "port"), ("voila.app.Voila", "log_level"),
    ("voila.app.Voila", "config_file_paths"), ("voila.app.Voila", "tornado_settings"),
    ("voila.app.Voila", "token"), ("voila.app.Voila", "identity_provider_class"),
    ("voila.configuration.VoilaConfiguration", "multi_kernel_manager_class"),
    ("voila.configuration.VoilaConfiguration", "preheat_kernel"),
    ("voila.configuration.VoilaConfiguration", "default_pool_size"),
    ("voila.configuration.VoilaConfiguration", "template"),
    ("voila.execute.VoilaExecutor", "iopub_timeout"),
    ("jupyter_server.services.kernels.kernelmanager.MappingKernelManager", "cull_idle_timeout"),
    ("jupyter_server.services.kernels.kernelmanager.MappingKernelManager", "cull_interval"),
    ("jupyter_client.manager.KernelManager", "transport"),
    ("jupyter_client.provisioning.factory.KernelProvisionerFactory", "default_provisioner_name"),
    ("ipykernel.kernelapp.IPKernelApp", "parent_handle"),
    ("ipykernel.kernelapp.IPKernelApp", "extensions"),
])
def test_the_configuration_traits_srdash_sets_exist_and_are_configurable(owner, trait):
    """Protects srdash/apps/server.py:voila_command (the command line's --Class.trait=value options) and
    srdash/apps/gate.py:configure (c.Voila.tornado_settings, c.VoilaExecutor.iopub_timeout,
    c.VoilaConfiguration.multi_kernel_manager_class, c.Voila.identity_provider_class). traitlets accepts an
    unknown --Class.trait silently: a renamed trait would simply stop applying."""
    import importlib

    module, _, name = owner.rpartition(".")
    traits = getattr(importlib.import_module(module), name).class_traits(config=True)
    assert trait in traits


def test_voilas_logger_makes_no_record_below_its_handlers_level_with_srdashs_configuration():
    """Protects srdash/apps/gate.py:configure (c.Voila.logging_config) and LOG_LEVEL. traitlets sets an
    application's own logger to DEBUG and leaves the level to its handler (``log_level``): with Voilà's log at
    ERROR, every debug call of Voilà, nbclient and the kernel manager still made a record (about three per
    message a kernel sends). With srdash's configuration the logger itself is at the handler's level."""
    import logging

    from traitlets.config import Config
    from voila.app import Voila

    from srdash.apps.gate import LOG_LEVEL, configure
    from srdash.apps.server import voila_command

    assert f"--Voila.log_level={LOG_LEVEL}" in voila_command("nb.ipynb", port=9000, python="python")
    # upstream: the application's logger at DEBUG, whatever its handler's level
    plain = Voila(log_level=LOG_LEVEL)
    assert plain.log.name == "Voila" and plain.log.isEnabledFor(logging.DEBUG)
    config = Config()
    configure(config)
    voila = Voila(config=config, log_level=LOG_LEVEL)
    assert voila.log.name == "Voila"
    assert not voila.log.isEnabledFor(logging.WARNING) and voila.log.isEnabledFor(logging.ERROR)
    # the console handler is still there and still at ERROR: what is written is unchanged
    assert [logging.getLevelName(h.level) for h in voila.log.handlers] == [LOG_LEVEL]


def test_jupyter_client_finds_srdashs_provisioner_by_its_entry_point_and_starts_python_kernels_as_a_module():
    """Protects srdash/apps/gate.py:configure (KernelProvisionerFactory.default_provisioner_name = "srdash-fork"),
    pyproject.toml's entry point and srdash/apps/zygote.py:checked_request (only ``python -m ipykernel_launcher -f
    FILE`` is forked: the command of ipykernel's own kernelspec)."""
    from importlib.metadata import entry_points

    from ipykernel.kernelspec import get_kernel_dict
    from jupyter_client.provisioning.factory import KernelProvisionerFactory

    from srdash.apps.gate import PROVISIONER

    assert KernelProvisionerFactory.GROUP_NAME == "jupyter_client.kernel_provisioners"
    names = {ep.name: ep.value for ep in entry_points(group=KernelProvisionerFactory.GROUP_NAME)}
    assert names[PROVISIONER] == "srdash.apps.provisioner:ForkProvisioner"
    spec = SimpleNamespace(metadata={"kernel_provisioner": {"provisioner_name": PROVISIONER}})
    assert KernelProvisionerFactory().is_provisioner_available(spec)
    assert get_kernel_dict()["argv"][1:] == ["-m", "ipykernel_launcher", "-f", "{connection_file}"]


def test_ipywidgets_registers_its_comm_targets_as_an_ipython_extension():
    """Protects srdash/apps/zygote.py (a forked kernel gets ``--IPKernelApp.extensions=ipywidgets``: the zygote
    imported ipywidgets before any kernel ran, so its registration at import found none)."""
    import ipywidgets

    assert "register_comm_target()" in inspect.getsource(ipywidgets.load_ipython_extension)
    source = inspect.getsource(ipywidgets.register_comm_target)
    assert "'jupyter.widget'" in source and "'jupyter.widget.control'" in source


def test_local_provisioner_drives_its_kernel_through_its_process_attribute_and_group():
    """Protects srdash/apps/provisioner.py:ForkProvisioner, which is LocalProvisioner with ``launch_kernel``
    replaced: it sets ``process`` (a ForkedProcess: poll, wait, send_signal, kill, terminate, stdin/stdout/stderr),
    ``pid`` and ``pgid``, and LocalProvisioner's own methods signal, wait for and end the kernel through them."""
    from jupyter_client.provisioning import LocalProvisioner

    for method, uses in [("poll", "self.process.poll()"), ("wait", "self.process.wait()"),
                         ("send_signal", "os.killpg(self.pgid, signum)"), ("kill", "self.process.kill()"),
                         ("terminate", "self.process.terminate()"), ("has_process", "self.process is not None")]:
        member = getattr(LocalProvisioner, method)
        source = inspect.getsource(member.fget if isinstance(member, property) else member)
        assert uses in source, (method, uses)
    assert "getattr(self.process, attr)" in inspect.getsource(LocalProvisioner.wait)  # stdin/stdout/stderr


def test_the_command_line_aliases_and_the_pools_refill_delay_exist():
    """Protects srdash/apps/server.py:voila_command: --no-browser, --port, --template, --preheat_kernel, and
    --VoilaKernelManager.fill_delay (a trait of the class Voilà builds for its pool)."""
    from voila.app import Voila
    from voila.voila_kernel_manager import voila_kernel_manager_factory

    from srdash.apps.kernelmanager import PoolAwareKernelManager

    assert "no-browser" in Voila.flags
    assert Voila.aliases["port"] == "Voila.port"
    assert Voila.aliases["template"] == "VoilaConfiguration.template"
    assert Voila.aliases["preheat_kernel"] == "VoilaConfiguration.preheat_kernel"
    pool = voila_kernel_manager_factory(PoolAwareKernelManager, True, 2)
    assert pool.__name__ == "VoilaKernelManager" and "fill_delay" in pool.class_traits(config=True)


def test_voila_builds_its_kernel_manager_on_the_configured_class():
    """Protects srdash/apps/kernelmanager.py:PoolAwareKernelManager, named by srdash/apps/gate.py:KERNEL_MANAGER:
    Voilà's pool and its plain manager are both subclasses of VoilaConfiguration.multi_kernel_manager_class, so
    srdash's start_kernel, cull_kernel_if_idle and shutdown_kernel run under Voilà's."""
    from voila.configuration import VoilaConfiguration
    from voila.voila_kernel_manager import voila_kernel_manager_factory

    from srdash.apps.gate import KERNEL_MANAGER
    from srdash.apps.kernelmanager import PoolAwareKernelManager

    configuration = VoilaConfiguration()
    configuration.multi_kernel_manager_class = KERNEL_MANAGER  # a name, as srdash's voila.py gives it
    assert configuration.multi_kernel_manager_class is PoolAwareKernelManager
    for preheat in (True, False):
        assert issubclass(voila_kernel_manager_factory(PoolAwareKernelManager, preheat, 1), PoolAwareKernelManager)


def test_voilas_pool_marks_its_kernels_and_answers_the_culler_for_them_itself():
    """Protects srdash/apps/kernelmanager.py:PoolAwareKernelManager.cull_kernel_if_idle, which takes the first
    culler question about a kernel started with VOILA_PREHEAT=True as "a visitor has just taken it": Voilà's
    pool starts its kernels with that variable, returns early for a kernel still in the pool and otherwise
    hands the question to the base class (a line of Voilà's code each, read here)."""
    from voila.utils import ENV_VARIABLE
    from voila.voila_kernel_manager import voila_kernel_manager_factory

    from srdash.apps.kernelmanager import PREHEAT_VARIABLE, PoolAwareKernelManager

    assert ENV_VARIABLE.VOILA_PREHEAT == PREHEAT_VARIABLE
    pool = voila_kernel_manager_factory(PoolAwareKernelManager, True, 1)
    fill = inspect.getsource(pool.fill_if_needed)
    assert 'kernel_env[ENV_VARIABLE.VOILA_PREHEAT] = "True"' in fill
    cull = inspect.getsource(pool.cull_kernel_if_idle)
    assert "return\n" in cull and "super().cull_kernel_if_idle(kernel_id)" in cull


def test_jupyter_servers_culler_reads_last_activity_and_the_methods_srdash_overrides_are_async():
    """Protects srdash/apps/kernelmanager.py: making a taken kernel active is setting its ``last_activity``, the
    value jupyter_server's culler compares with the idle timeout; start_kernel, cull_kernel_if_idle and
    shutdown_kernel are coroutines srdash awaits through super()."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    assert "kernel.last_activity" in inspect.getsource(AsyncMappingKernelManager.cull_kernel_if_idle)
    for name in ("start_kernel", "cull_kernel_if_idle", "shutdown_kernel"):
        assert inspect.iscoroutinefunction(getattr(AsyncMappingKernelManager, name)), name


# ----------------------------------------------------------------------------------- the review's one door

def test_every_request_asks_the_identity_provider_before_the_page_handler_runs():
    """Protects srdash/apps/door.py:ReviewDoor (the review's door, srdash/apps/gate.py:REVIEW_DOOR): Voilà's page
    handler is a VoilaHandler and a jupyter_server JupyterHandler, whose prepare() awaits
    identity_provider.get_user(handler) before get(); an HTTPError raised there ends the request before any
    kernel is started or taken from the pool. The provider is configurable by name, and the page's
    ``current_user`` can be set (the refusal page reads it)."""
    from jupyter_server.auth.identity import IdentityProvider, PasswordIdentityProvider
    from jupyter_server.base.handlers import JupyterHandler
    from tornado.web import RequestHandler
    from voila.app import Voila
    from voila.handler import VoilaHandler
    from voila.tornado.handler import TornadoVoilaHandler

    from srdash.apps.door import ReviewDoor
    from srdash.apps.gate import REVIEW_DOOR

    assert issubclass(TornadoVoilaHandler, VoilaHandler) and issubclass(VoilaHandler, JupyterHandler)
    prepare = inspect.getsource(JupyterHandler.prepare)
    assert "self.identity_provider.get_user(self)" in prepare and "await _user" in prepare
    app = Voila()
    app.identity_provider_class = REVIEW_DOOR
    assert app.identity_provider_class is ReviewDoor and issubclass(ReviewDoor, PasswordIdentityProvider)
    assert issubclass(PasswordIdentityProvider, IdentityProvider)
    assert isinstance(RequestHandler.current_user, property) and RequestHandler.current_user.fset is not None


def test_voilas_pool_hands_out_a_kernel_without_the_prelaunch_hook():
    """Why srdash/apps/door.py exists (issue 33, item 3): the pooled path of VoilaHandler.get_generator calls
    get_rendered_notebook and never prelaunch_hook, and Voilà refuses a hook together with a pool. When this
    changes, the door may move back to the documented hook."""
    from voila.app import Voila
    from voila.handler import VoilaHandler

    source = inspect.getsource(VoilaHandler.get_generator)
    pooled = source.split("get_rendered_notebook", 1)[1].split("else:", 1)[0]
    assert "prelaunch_hook" not in pooled
    assert "`preheat_kernel` and `prelaunch_hook` are incompatible" in inspect.getsource(Voila.init_settings)


def test_a_kernel_started_for_a_visit_reads_its_query_string_at_once(monkeypatch):
    """Protects srdash/apps/visit.py:query_string (notebooks/review.ipynb): Voilà's public get_query_string
    returns QUERY_STRING without waiting when the kernel is not one of the pool (VOILA_PREHEAT "False"), and
    in a pooled kernel waits on Voilà's /voila/query/<kernel> websocket at VOILA_APP_IP, which
    srdash/cli/review.py sets for a server not on 127.0.0.1. visit.py waits the same way without importing
    Voilà: the socket's first message is the visit's request variables as a JSON object
    (tests/test_review_visit.py talks to Voilà's own handler)."""
    from voila.utils import ENV_VARIABLE, get_query_string, wait_for_request

    from srdash.apps.visit import query_string

    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("QUERY_STRING", "key=k3y")
    assert get_query_string() == "key=k3y" and query_string() == "key=k3y"
    assert ENV_VARIABLE.VOILA_APP_IP == "VOILA_APP_IP" and ENV_VARIABLE.QUERY_STRING == "QUERY_STRING"
    waiting = inspect.getsource(wait_for_request)
    assert "ENV_VARIABLE.VOILA_APP_IP" in waiting and "voila/query" in waiting
    assert "json.loads(request_info).items()" in waiting and "ENV_VARIABLE.VOILA_WS_BASE_URL" in waiting


# ------------------------------------------------------------------------------------------ tornado, logging

def test_the_tornado_names_the_gate_uses():
    """Protects srdash/apps/gate.py: log_request (tornado's ``log_function`` setting, called with the handler),
    refuse_unknown_visitors (HTTPError with a reason), ClosedTab (WebSocketClosedError, StreamClosedError) and
    PingUnits (the text of tornado's ping-timeout warning it drops)."""
    import tornado.web
    import tornado.websocket
    from tornado.iostream import StreamClosedError
    from tornado.web import HTTPError
    from tornado.websocket import WebSocketClosedError

    assert "self.application.log_request(self)" in inspect.getsource(tornado.web.RequestHandler)
    assert 'self.settings["log_function"](handler)' in inspect.getsource(tornado.web.Application.log_request)
    assert HTTPError(403, "%s", "x", reason="why").reason == "why"
    assert issubclass(WebSocketClosedError, Exception) and issubclass(StreamClosedError, Exception)
    source = inspect.getsource(tornado.websocket)
    assert "websocket_ping_timeout" in source and "cannot be longer" in source


def test_jupyter_servers_websocket_ping_reads_ws_ping_timeout_in_milliseconds():
    """Protects srdash/apps/gate.py:WS_PING_TIMEOUT_MS (tornado_settings): jupyter_server's ping reads the
    ``ws_ping_timeout`` setting and its interval is 30,000 ms (the timeout must exceed it)."""
    from jupyter_server.base.websocket import WS_PING_INTERVAL, WebSocketMixin

    from srdash.apps.gate import WS_PING_TIMEOUT_MS

    assert WS_PING_INTERVAL == 30000 and WS_PING_TIMEOUT_MS > WS_PING_INTERVAL
    from srdash.apps.gate import tornado_settings

    class Connection(WebSocketMixin):
        settings = tornado_settings()

    assert Connection().ping_timeout == WS_PING_TIMEOUT_MS and Connection().ping_interval == WS_PING_INTERVAL


# ----------------------------------------------------------------------------------------------- templates

def _template_roots() -> list[Path]:
    from jupyter_core.paths import jupyter_path

    roots = []  # as Voilà searches them for the lab template: by prefix, and each template's own folder
    for folder in map(Path, jupyter_path()):
        roots += [folder, folder / "voila" / "templates", folder / "nbconvert" / "templates"]
        roots += [folder / kind / "templates" / name for kind in ("voila", "nbconvert") for name in ("lab", "base")]
    return [root for root in roots if root.is_dir()]


def _environment():
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader([str(r) for r in _template_roots()]),
                              extensions=["jinja2.ext.i18n"])


def _blocks_of_chain(name: str) -> set[str]:
    """Every block defined along the ``extends`` chain of the template ``name``."""
    from jinja2 import nodes

    environment = _environment()
    blocks: set[str] = set()
    while name:
        source = environment.loader.get_source(environment, name)[0]
        tree = environment.parse(source)
        blocks |= {block.name for block in tree.find_all(nodes.Block)}
        extends = tree.find(nodes.Extends)
        name = extends.template.value if extends is not None and isinstance(extends.template, nodes.Const) else ""
    return blocks


def test_the_template_extends_the_lab_template_and_overrides_blocks_it_has():
    """Protects srdash/apps/jupyter/voila/templates/srdash/index.html.j2: it extends 'lab/index.html.j2' and
    overrides whole blocks of it (html_head_js, notebook_css, html_head_js_mermaidjs); a block renamed upstream
    would make srdash's override define a block nobody renders."""
    import jinja2
    from jinja2 import nodes

    ours = jinja2.Environment().parse((TEMPLATE / "index.html.j2").read_text())
    assert ours.find(nodes.Extends).template.value == "lab/index.html.j2"
    overridden = {block.name for block in ours.find_all(nodes.Block)}
    assert {"html_head_js", "notebook_css", "html_head_js_mermaidjs"} <= overridden
    assert overridden <= _blocks_of_chain("lab/index.html.j2")
    assert (TEMPLATE / "conf.json").read_text().count('"base_template": "lab"') == 1


def _render(name: str, *, show_margins: bool) -> list[str]:
    """The lines of the page template ``name`` rendered without a kernel (no cell) and with every nbconvert
    filter the identity: what its blocks put around the cells. ``name`` may be "without_mermaid", the lab
    template with its Mermaid loader block empty, as srdash's template makes it."""
    import jinja2

    def same(value, *args, **kwargs):
        return value

    class AnyFilter(dict):  # nbconvert's filters (highlight_code, ...) only transform cells, and there are none
        def __contains__(self, name):
            return True

        def __missing__(self, name):
            return same

        def get(self, name, default=None):
            return self[name]

    class Resources(dict):
        __getattr__ = dict.get

    loader = jinja2.ChoiceLoader([
        jinja2.DictLoader({"without_mermaid": "{%- extends 'lab/index.html.j2' -%}"
                                              "{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}"}),
        jinja2.FileSystemLoader([str(TEMPLATE), *map(str, _template_roots())])])
    environment = jinja2.Environment(loader=loader, extensions=["jinja2.ext.i18n"])
    environment.install_null_translations()
    environment.filters = AnyFilter(environment.filters)
    resources = Resources(include_js=lambda path: f'<script src="/voila/{path}"></script>',
                          include_css=lambda path: f'<link rel="stylesheet" href="/voila/{path}">',
                          include_lab_theme=lambda name: "", theme="light", show_margins=show_margins,
                          base_url="/", labextensions=[], metadata={"name": "dashboard"})
    page = environment.get_template(name).render(
        resources=resources, frontend="voila", nb=SimpleNamespace(cells=[], metadata={}), page_config={},
        kernel_start=lambda nb: "kernel-1", cell_generator=lambda nb, kernel_id: [])
    return page.splitlines()


@pytest.mark.parametrize("show_margins", [False, True])
def test_srdashs_page_is_the_lab_page_without_the_font_awesome_links(show_margins):
    """Protects the notebook_css block of srdash's index.html.j2, which writes Voilà 0.5's notebook_css block out
    whole without its two <link>s to Font Awesome on a CDN and then calls nbconvert's (super.super()): rendered,
    srdash's page has every line of Voilà's lab page but those two (Voilà's block changed upstream: a line is
    missing here), asks no other machine for anything, and carries its kernel's id (read by the session check)."""
    ours = _render("index.html.j2", show_margins=show_margins)
    lab = _render("without_mermaid", show_margins=show_margins)
    missing = [line.strip() for line in lab if line not in ours]
    assert missing == [
        '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@^5/css/all.min.css"'
        ' type="text/css" />',
        '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@^5/css/v4-shims.min.css"'
        ' type="text/css" />']
    page = "\n".join(ours)
    assert not re.search(r"""(href|src)=["']https?:|import\(["']https?:""", page)
    # Voilà's own stylesheet script, its spinner, nbconvert's lab styles and srdash's session check are all there
    assert all(text in page for text in ('src="/voila/static/voila-style.js"', ".voila-spinner-color1",
                                         ".jp-InputArea-editor", "Hide empty cells", "api/kernels/"))
    assert ("#rendered_cells > div" in page) == show_margins
    assert '"kernelId": "kernel-1"' in page  # the page config the session check reads its kernel's id from
    # Voilà's spinner turned in steps: srdash's rule (an id and a class: it wins over Voilà's ".spinner" wherever
    # it stands) and the script that turns it
    assert "#loading .spinner { animation: none; }" in page and "animation: rotation 2s infinite" in page
    assert "setInterval" in page[page.index("srdash-spinner"):]


def _spinner_html() -> str:
    """Voilà's spinner markup, as its lab page shows it while the page loads (the ``html`` macro of its base
    template's spinner.macro.html.j2)."""
    import jinja2

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader([str(root) for root in _template_roots()]))
    return environment.get_template("spinner.macro.html.j2").module.html()


def test_voilas_spinner_is_a_loading_box_holding_a_spinner_turned_by_a_css_animation():
    """Protects srdash/apps/jupyter/voila/templates/srdash/srdash-spinner.html, which stops the CSS animation of
    ``#loading .spinner`` and turns that element itself, in steps, until ``#loading`` is gone: Voilà's spinner
    is an element of class "spinner" inside the element of id "loading", turned by the CSS animation
    "rotation", and removed with it once the page shows its cells (a renamed class or id upstream would leave
    srdash's pages with Voilà's spinner drawn at every frame again, or none turning)."""
    import jinja2

    markup = _spinner_html()
    assert re.search(r'<div id="loading"[^>]*>\s*<div class="spinner-container">\s*<svg class="spinner"', markup)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader([str(root) for root in _template_roots()]))
    css = environment.get_template("spinner.macro.html.j2").module.css()
    assert re.search(r"\.spinner \{\s*animation: rotation 2s infinite linear;", css)
    helpers = environment.get_template("voila_setup.macro.html.j2").module.voila_setup_helper_functions()
    assert 'document.getElementById("loading")' in helpers and "el.parentNode.removeChild(el)" in helpers


def test_voilas_error_page_extends_page_html_with_the_blocks_srdashs_page_declares():
    """Protects srdash/apps/jupyter/voila/templates/srdash/page.html (the review's refusal page without a CDN
    link): Voilà's error pages extend "page.html", which srdash's template folder answers first, and fill its
    stylesheets and body blocks."""
    from jinja2 import nodes

    base = next(root / "voila" / "templates" / "base" / "error.html" for root in _template_roots()
                if (root / "voila" / "templates" / "base" / "error.html").is_file())
    tree = _environment().parse(base.read_text())
    assert tree.find(nodes.Extends).template.value == "page.html"
    ours = {block.name for block in _environment().parse((TEMPLATE / "page.html").read_text())
            .find_all(nodes.Block)}
    assert {block.name for block in tree.find_all(nodes.Block) if block.name != "error_detail"} <= ours


def test_voila_finds_srdashs_template_on_jupyter_path_and_follows_its_base_template():
    """Protects srdash/apps/server.py:template_environment and TEMPLATE (--template=srdash): Voilà looks for a
    template in <JUPYTER_PATH entry>/voila/templates/<name> and follows conf.json's base_template ("lab"), so
    srdash's folder comes first and Voilà's lab template after it."""
    from voila.paths import collect_template_paths

    from srdash.apps.server import TEMPLATE, template_environment

    # the JUPYTER_PATH srdash gives Voilà: its own folder first, then the environment's
    others = [str(r) for r in _template_roots() if r.name == "jupyter"]
    roots = template_environment({"JUPYTER_PATH": os.pathsep.join(others)})["JUPYTER_PATH"].split(os.pathsep)
    srdash_template = Path(roots[0], "voila", "templates", TEMPLATE)
    assert (srdash_template / "conf.json").is_file() and roots[1:] == others
    paths = collect_template_paths(["voila", "nbconvert"], TEMPLATE, root_dirs=roots)
    ours = paths.index(str(srdash_template))
    lab = next(i for i, path in enumerate(paths) if path.endswith(str(Path("voila", "templates", "lab"))))
    assert ours < lab


def test_jsonschema_treats_a_missing_rfc3987_syntax_as_absent():
    """Protects srdash/apps/voila_main.py:skip_slow_imports, which marks rfc3987_syntax missing (1.5 s of lark
    grammars at each server start): jsonschema then imports, and only its "iri" format checks are left out."""
    import subprocess
    import sys

    code = ("import sys\nsys.modules['rfc3987_syntax'] = None\nimport jsonschema\n"
            "checkers = jsonschema.FormatChecker().checkers\n"
            "print('iri' in checkers, 'date-time' in checkers or 'email' in checkers)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True"], done.stderr


# ----------------------------------------------------------------------------------- widgets, anywidget, plotly

def test_a_widget_sends_its_whole_state_again_on_request(monkeypatch):
    """Protects srdash/apps/panels.py:_repair_page (BackgroundWork.build repairs a page that was loading during a
    build): ipywidgets' public Widget.send_state() without a key sends one 'update' message holding every synced
    trait's value (what a page missed is then set again, children included), through the comm that
    comm.create_comm made."""
    import comm
    import ipywidgets
    from comm.base_comm import BaseComm

    sent = []

    class RecordingComm(BaseComm):
        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            sent.append((msg_type, data))

    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    child = ipywidgets.HTML("a card")
    box = ipywidgets.VBox([child])
    sent.clear()
    box.send_state()
    assert len(sent) == 1
    msg_type, data = sent[0]
    assert msg_type == "comm_msg" and data["method"] == "update"
    assert data["state"]["children"] == [f"IPY_MODEL_{child.model_id}"] and "layout" in data["state"]


def test_anywidgets_load_timeout_message_is_the_one_the_template_catches():
    """Protects the unhandledrejection handler of srdash's index.html.j2, which matches anywidget's exact
    rejection text ("[anywidget] Failed to initialize model.") for srdash's beacons."""
    import anywidget

    handled = re.search(r'event\.reason\.message === "([^"]+)"|reason\.message === "([^"]+)"',
                        (TEMPLATE / "index.html.j2").read_text())
    text = next(group for group in handled.groups() if group)
    bundles = [p for p in Path(anywidget.__file__).parent.rglob("*.js") if text in p.read_text(errors="replace")]
    assert text == "[anywidget] Failed to initialize model." and bundles


def test_plotly_renderer_names():
    """Protects every srdash figure shown in a kernel (plotly's "plotly_mimetype" renderer, what a kernel's
    default is): the renderer exists in plotly's public registry, which is the module's own object."""
    import sys

    import plotly.io as pio

    assert "plotly_mimetype" in pio.renderers
    assert sys.modules["plotly.io._renderers"].renderers is pio.renderers


# ------------------------------------------------------------------------------ the allow-list's own check

def test_every_guarded_private_name_has_a_contract_test_here():
    """Each entry of tests/upstream_private.py names a test of this module that checks it."""
    names = {name for name, value in globals().items() if name.startswith("test_") and callable(value)}
    for (file, use), reason in GUARDED_PRIVATE_NAMES.items():
        cited = re.findall(r"test_upstream_contract\.py::(test_\w+)", reason)
        assert cited and set(cited) <= names, (file, use)
