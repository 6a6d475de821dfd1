"""What one visitor's kernel costs, stage by stage: memory and CPU after its start, each cell of the app's
notebook, and (``--environment NAME=VALUE``) with variables added to its environment.

A kernel is started as srdash's Voilà starts one (jupyter_client, the ``python3`` kernelspec, srdash's
``KERNEL_ENVIRONMENT``, forked from srdash's zygote; ``--spawned``: a fresh Python, as jupyter_client's own
provisioner starts it), then runs the cells of ``notebooks/dashboard.ipynb`` one by one; after its start
and after each cell it prints the kernel's Private_Dirty (the memory it alone holds: what each more kernel
adds; PSS also depends on the other processes of the machine that share the same libraries), PSS, RSS and
its CPU seconds so far (user + system, from /proc). The competition is the built-in demo, prepared first
(once) in a temporary cache, as ``srdash serve`` prepares it for its kernels (and keeps its verdict); srdash's bytecode is compiled
first, as in an installed wheel (see visitors.py).

``--trace``: the cells run under tracemalloc, and the largest places still holding memory after the last
cell are printed, with the peak of the traced memory.

Used for docs/scaling.md, "Ten visitors against the floor (2026-11-27)" and "A dashboard kernel, cheaper
(2026-11-27)". Linux only (/proc).

Usage: python benchmarks/kernel_stages.py [--environment NAME=VALUE ...] [--trace] [--spawned]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_TRACE_START = "import tracemalloc\ntracemalloc.start(1)"
_TRACE_REPORT = """
import tracemalloc
_snapshot = tracemalloc.take_snapshot()
print(f"traced: {sum(s.size for s in _snapshot.statistics('filename')) / 2**20:.1f} MB held, "
      f"{tracemalloc.get_traced_memory()[1] / 2**20:.1f} MB at the peak")
for _stat in _snapshot.statistics('filename')[:10]:
    print(f"  {_stat.size / 2**20:6.2f} MB  {_stat.traceback[0].filename.split('site-packages/')[-1]}")
"""


def _memory_mb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) // 1024
    return fields


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _line(what: str, pid: int) -> str:
    memory = _memory_mb(pid)
    return (f"{what[:44]:44s} {memory['Private_Dirty']:6d} {memory['Pss']:6d} {memory['Rss']:6d} "
            f"{_cpu_seconds(pid):7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--environment", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable added to the kernel's environment (repeatable)")
    parser.add_argument("--trace", action="store_true", help="run the cells under tracemalloc (see above)")
    parser.add_argument("--spawned", action="store_true",
                        help="start the kernel as jupyter_client does (a fresh Python), not forked from srdash's zygote")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    import compileall

    compileall.compile_dir(str(REPO / "srdash"), quiet=1)
    from jupyter_client.manager import start_new_kernel

    from srdash.apps.server import KERNEL_ENVIRONMENT, notebook_path

    notebook = json.loads(notebook_path().read_text())
    cells = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SRDASH_")}
        env.update({**KERNEL_ENVIRONMENT, "PYTHONPATH": str(REPO), "SRDASH_CACHE_DIR": str(Path(folder) / "cache")})
        env.update(dict(item.split("=", 1) for item in args.environment))
        os.environ["SRDASH_CACHE_DIR"] = env["SRDASH_CACHE_DIR"]
        from srdash.demo.competition import cached_demo
        from srdash.judging.competition import load_competition
        from srdash.judging.pipeline import prepare_competition

        competition = load_competition(cached_demo()["competition"])
        prepare_competition(competition)  # as `srdash serve` does, once
        try:   # then the verdict and the leaderboard's resolution are kept (srdash >= 2026-11-27, issue 33)
            from srdash.apps.board_view import keep_first_page
        except ImportError:
            pass
        else:
            keep_first_page(competition)
        if not args.spawned:  # as srdash's Voilà configuration starts kernels (srdash.apps.gate.configure)
            from jupyter_client.provisioning.factory import KernelProvisionerFactory
            from traitlets.config import Config

            from srdash.apps.gate import APP_PRELOAD, PROVISIONER

            config = Config()
            config.KernelProvisionerFactory.default_provisioner_name = PROVISIONER
            KernelProvisionerFactory.instance(config=config)
            from jupyter_client.manager import KernelManager

            forked = Config()
            forked.ForkProvisioner.preload = list(APP_PRELOAD)
            manager = KernelManager(kernel_name="python3", config=forked)
            manager.start_kernel(env=env)
            client = manager.client()
            client.start_channels()
            client.wait_for_ready(timeout=600)
            time.sleep(1.0)  # the zygote's own start is not the kernel's
        else:
            manager, client = start_new_kernel(kernel_name="python3", env=env)
        try:
            pid = manager.provisioner.pid
            printed: list[str] = []

            def keep(message) -> None:
                if message["msg_type"] == "stream":
                    printed.append(message["content"]["text"])
                elif message["msg_type"] == "error":
                    printed.append("\n".join(message["content"]["traceback"]))

            print(f"{'after':44s} {'PD MB':>6s} {'PSS':>6s} {'RSS':>6s} {'CPU s':>7s}")
            time.sleep(1.0)
            print(_line("the kernel's start", pid))
            if args.trace:
                client.execute_interactive(_TRACE_START, timeout=60, output_hook=keep)
            for cell in cells:
                client.execute_interactive(cell, timeout=600, output_hook=keep)
                time.sleep(0.5)
                last = [line for line in cell.splitlines() if line.strip() and not line.startswith("#")]
                print(_line(f"cell: {last[0] if last else '(empty)'}", pid))
            if args.trace:
                client.execute_interactive(_TRACE_REPORT, timeout=60, output_hook=keep)
            print("".join(printed), end="")
        finally:
            manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
