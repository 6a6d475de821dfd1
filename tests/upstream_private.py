"""The private names of other packages that srdash still uses, each with why no public way exists yet.

One list for two tests: tests/test_no_private_names.py fails on any other use of a private name of another
package in srdash/, and tests/test_upstream_contract.py checks that each of these still exists where srdash
reads it (a rename upstream fails there, in seconds, instead of reading as "absent" in srdash's code).

Each key is (file under srdash/, the dotted use as the scanner writes it: the imported name it starts from,
then the attributes or getattr/setattr names); each value says why it is allowed.
"""

from __future__ import annotations

GUARDED_PRIVATE_NAMES: dict[tuple[str, str], str] = {
    ("srdash/apps/forkserver.py", "zmq.Context._instance"):
        "fork_hazards: whether the zygote holds a zmq context (pyzmq's global instance) before it forks; pyzmq has "
        "no public 'is there a global context' query (zmq.Context.instance() would create one). Owned by the "
        "zygote's engineer; checked by test_upstream_contract.py::test_the_zygotes_fork_hazards_still_read_real_names.",
    ("srdash/apps/forkserver.py", "asyncio.events._event_loop_policy"):
        "fork_hazards: whether an event loop was created before the fork without creating a policy or a loop "
        "(asyncio.get_event_loop_policy() would create the policy); same owner; checked by "
        "test_upstream_contract.py::test_the_zygotes_fork_hazards_still_read_real_names.",
    ("srdash/apps/forkserver.py", "asyncio.events._event_loop_policy._local._loop"):
        "fork_hazards: the policy's loop of the main thread, read without creating one "
        "(policy.get_event_loop() would create it); same owner; checked by "
        "test_upstream_contract.py::test_the_zygotes_fork_hazards_still_read_real_names.",
    ("srdash/apps/forkserver.py", "atexit._run_exitfuncs"):
        "a forked kernel ends with os._exit (never returning into the zygote's stack), so it runs the exit "
        "functions an interpreter's exit would (IPython's history, logging) itself; no public equivalent. Goes "
        "away with the kernel provisioner (issue 33, item 1); checked by "
        "test_upstream_contract.py::test_atexit_still_runs_exit_functions_on_request.",
}
