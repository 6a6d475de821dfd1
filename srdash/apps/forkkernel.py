"""The kernel command of ``srdash serve --kernels fork``: ask the zygote for a kernel, and stand for it.

Run as ``python -I -S forkkernel.py --zygote SOCKET -f CONNECTION_FILE`` (the
kernelspec that :class:`srdash.apps.forkserver.KernelZygote` writes), this
process is the kernel jupyter_client sees: it imports nothing but the standard
library (it starts in a few milliseconds and holds about 10 MB), sends its
arguments, environment, folder, umask and standard streams (their file
descriptors, ``SCM_RIGHTS``) to the zygote over its Unix socket, and the
zygote forks the kernel, which talks to Voilà directly through the connection
file. Then this process

- relays the signals jupyter_client sends (SIGINT: interrupt; SIGTERM, SIGHUP,
  SIGQUIT) to the kernel, through the zygote, which alone knows whether the
  kernel is still running (no signal reaches a recycled process id);
- exits with the kernel's exit status once the zygote reports it (killed by a
  signal: killed by the same signal), so a shut-down kernel looks to
  jupyter_client as a spawned one would;
- exits when its own parent (Voilà) is gone, as ipykernel does.

When this process dies, even by SIGKILL, the zygote sees its connection close
and kills the kernel: no kernel outlives its launcher.

Without a zygote (no socket, the zygote gone, or the zygote refusing to fork),
it says so on stderr and becomes an ordinary kernel (``exec python -m
ipykernel_launcher`` with the same arguments): a visitor never goes without
a kernel.

Protocol (one connection per kernel; text lines are ASCII)
----------------------------------------------------------
launcher -> zygote
    ``HEADER`` (:data:`MAGIC` and the payload's length, with the descriptors of
    stdin, stdout and stderr attached), then the payload: JSON ``{"argv",
    "env", "cwd", "umask"}``; later, ``signal N`` lines.
zygote -> launcher
    ``pid N`` once the kernel is forked, ``exit CODE`` once it has ended and
    been reaped (CODE as :func:`os.waitstatus_to_exitcode`: negative when a
    signal killed it), or ``error MESSAGE`` instead of forking.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

#: Start of every request: these 4 bytes, then the payload's length (unsigned, 4 bytes, network order).
MAGIC = b"SRDK"
HEADER = struct.Struct("!4sI")
#: The largest request the zygote reads (the environment holds the serialised competition).
MAX_REQUEST = 64 * 1024 * 1024
#: Signals relayed to the kernel (the zygote sends no other).
RELAYED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
#: Seconds to wait for the zygote's answer: it may still be importing, and requests wait in its queue.
START_TIMEOUT = 120.0


class Unavailable(Exception):
    """No kernel from the zygote; the reason is in the message."""


def request_payload(argv: list[str]) -> bytes:
    """What this process sends to the zygote: its arguments, environment, folder and umask, as JSON."""
    umask = os.umask(0)
    os.umask(umask)
    return json.dumps({"argv": list(argv), "env": dict(os.environ), "cwd": os.getcwd(), "umask": umask}).encode()


def _lines(sock: socket.socket, buffer: bytearray):
    """Complete lines received on ``sock`` (``None`` at end of file); ``socket.timeout`` passes through."""
    while b"\n" not in buffer:
        data = sock.recv(4096)
        if not data:
            return None
        buffer.extend(data)
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line.decode("ascii", "replace").strip()


def _start(zygote: str, argv: list[str]) -> tuple[socket.socket, int, bytearray]:
    """Connect, send the request and read ``pid N``: the connection, the kernel's pid and what follows."""
    if not zygote:
        raise Unavailable("no zygote socket was given")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(START_TIMEOUT)
        sock.connect(zygote)
        payload = request_payload(argv)
        socket.send_fds(sock, [HEADER.pack(MAGIC, len(payload))], [0, 1, 2])
        sock.sendall(payload)
        buffer = bytearray()
        line = _lines(sock, buffer)
    except (OSError, ValueError) as error:  # socket.timeout is an OSError
        sock.close()
        raise Unavailable(f"the zygote at {zygote} did not answer: {error}") from None
    if line is None or not line.startswith(("pid ", "error ")):
        sock.close()
        raise Unavailable(f"the zygote at {zygote} closed the connection" if line is None
                          else f"unexpected answer from the zygote: {line[:200]!r}")
    if line.startswith("error "):
        sock.close()
        raise Unavailable(f"the zygote refused: {line[6:]}")
    return sock, int(line[4:]), buffer


def _relay(sock: socket.socket, buffer: bytearray) -> int:
    """Relay signals until the zygote reports the kernel's exit; its exit code (1 when it cannot know)."""
    def forward(signum, frame):
        try:
            sock.sendall(f"signal {int(signum)}\n".encode())
        except OSError:
            pass

    for signum in RELAYED:
        signal.signal(signum, forward)
    parent = os.getppid()
    sock.settimeout(1.0)
    while True:
        try:
            line = _lines(sock, buffer)
        except socket.timeout:
            if os.getppid() != parent:  # Voilà is gone: closing the connection makes the zygote kill the kernel
                return 1
            continue
        except OSError:
            line = None
        if line is None:
            print("srdash: the kernel zygote stopped; this kernel ends with it.", file=sys.stderr, flush=True)
            return 1
        if line.startswith("exit "):
            return int(line[5:])


def _exit_like(code: int) -> None:
    """Exit as the kernel did: with its code, or killed by the same signal."""
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    sys.stdout.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> None:
    """``[--zygote SOCKET] KERNEL-ARGUMENTS...``: run the kernel forked by the zygote, or alone."""
    argv = list(sys.argv[1:] if argv is None else argv)
    zygote = ""
    if argv[:1] == ["--zygote"] and len(argv) > 1:
        zygote, argv = argv[1], argv[2:]
    try:
        sock, _pid, buffer = _start(zygote, argv)
    except Unavailable as reason:
        print(f"srdash: kernel not forked ({reason}); starting it alone (python -m ipykernel_launcher).",
              file=sys.stderr, flush=True)
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])
    _exit_like(_relay(sock, buffer))


if __name__ == "__main__":
    main()
