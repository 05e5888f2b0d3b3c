"""The local backend's fork server: one interpreter that has imported torch and the runner's
modules forks a fresh runner per sandbox, instead of every sandbox importing torch again.

Run as ``python -I zygote.py CONTROL_FD`` by sandbox/host/backends/forkserver.py, never
inside an image. It executes no student code itself and never touches a tensor (so torch's
thread pools and CUDA are not initialized when it forks: a forked child starts as clean as a
fresh ``python -I -m sandbox.runner`` after its imports). It imports the runner's package
(sandbox/runner/) and nothing else of ours. Single-threaded by design: ``fork`` in a
process with threads would copy their locks mid-flight.

Control channel: a SOCK_SEQPACKET socket (one message per datagram).
  parent -> zygote: ``{"id", "tmp", "output", "limits": [[resource, value], ...]}`` with two
      file descriptors attached: the runner's stdin (read end) and stdout (write end).
  zygote -> parent: ``{"ready": true}`` once, then ``{"id", "pid"}`` per fork (the child has
      its own session by then, so ``killpg(pid)`` reaches it), and ``{"pid", "exit"}`` when a
      child ends (``exit`` as ``subprocess`` reports it: negative for a signal).
The zygote ends when the parent closes the channel; its children are not its to kill (each
ends on end of input like any runner, or by the parent's ``killpg``).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import socket
import sys
import traceback
from typing import Any


def _child(runner: Any, modules: dict[str, object], request: dict, fds: list[int],
           control: socket.socket, wake: tuple[int, int], ready_w: int) -> None:
    """In the forked child: become a fresh runner's process and serve (never returns)."""
    code = 1
    try:
        os.setsid()  # its own session and process group, before the parent may signal it
        os.write(ready_w, b"x")
        os.close(ready_w)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        control.close()
        for fd in wake:
            os.close(fd)
        stdin_fd, stdout_fd = fds
        os.dup2(stdin_fd, 0)
        os.dup2(stdout_fd, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        for fd in (stdin_fd, stdout_fd, devnull):
            os.close(fd)
        tmp = request["tmp"]
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ["TMPDIR"] = tmp
        import tempfile  # noqa: PLC0415 - a cached temp dir would be the zygote's

        tempfile.tempdir = None
        for which, value in request["limits"]:
            resource.setrlimit(int(which), (int(value), int(value)))
        # The runner's server is __main__, as in a process of its own; the zygote's module is
        # not what a runner's process holds.
        sys.modules["__main__"] = runner
        runner._setup_fds(request["output"])
        server = runner._Server(
            modules["framing"], modules["wire"], modules["calls"], modules["digests"],
            modules["inputs"], modules["torch"], tmp,
        )
        code = int(server.serve() or 0)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a runner that breaks exits 1, as it would alone
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main() -> int:
    control_fd = int(sys.argv[1])
    import torch  # noqa: PLC0415 - imported here, as a runner's main() does

    from sandbox.runner import calls, digests, framing, inputs, wire  # noqa: PLC0415
    from sandbox.runner import server as runner  # noqa: PLC0415

    modules: dict[str, object] = {"calls": calls, "digests": digests, "framing": framing, "inputs": inputs,
               "torch": torch, "wire": wire}
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd is written
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control.send(json.dumps({"ready": True}).encode())

    def reap() -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            control.send(json.dumps({"pid": pid,
                                     "exit": os.waitstatus_to_exitcode(status)}).encode())

    while True:
        readable, _, _ = select.select([control.fileno(), wake_r], [], [])
        if wake_r in readable:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            reap()
        if control.fileno() in readable:
            data, fds, _, _ = socket.recv_fds(control, 65536, 2)
            if not data:
                return 0  # the parent is gone
            request = json.loads(data)
            ready_r, ready_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(ready_r)
                _child(runner, modules, request, fds, control, (wake_r, wake_w), ready_w)
            os.close(ready_w)
            os.read(ready_r, 1)  # the child has its own session now (or died trying)
            os.close(ready_r)
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"id": request["id"], "pid": pid}).encode())
            reap()


if __name__ == "__main__":
    sys.exit(main())
