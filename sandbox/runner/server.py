"""The generic runner: the only judge code inside a sandbox. It answers the trusted grader.

Run as ``python -I -m sandbox.runner``. It knows nothing of problems and holds no solution: it
receives a submission's source, calls its functions on inputs it is sent, times them, and
reports observations. A baseline is timed the same way, as the "submission" of a sandbox of
its own that the grader drives in alternation with the student's (sandbox/bench/timing.py). Frames (sandbox/runner/framing.py)
travel on a private copy of the original stdin/stdout; the student's fd 0 reads /dev/null
and fds 1 and 2 write to a file under $TMPDIR whose size the grader sees with every reply.

Nothing here is trusted by the grader: the student's code shares this process and can patch
anything. The grader re-checks what matters (outputs against its own reference, times
against its own clock).

The ops and their fields are protocol.py's. Every reply carries ``printed`` (bytes of student output).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from sandbox.runner import protocol

_FRAME_OUT = -1
_FRAME_IN = -1
_OUTPUT_FD = -1


def _setup_fds(output_path: str) -> None:
    """Keep the real stdin/stdout for frames; give the student /dev/null and a capped file."""
    global _FRAME_OUT, _FRAME_IN, _OUTPUT_FD
    _FRAME_IN = os.dup(0)
    _FRAME_OUT = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    _OUTPUT_FD = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(_OUTPUT_FD, 1)
    os.dup2(_OUTPUT_FD, 2)
    for fd in (_FRAME_IN, _FRAME_OUT, _OUTPUT_FD):
        os.set_inheritable(fd, False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--output-file", default="")
    opts = parser.parse_args()
    tmp = os.environ.get("TMPDIR") or "/tmp"
    _setup_fds(opts.output_file or os.path.join(tmp, ".judge-output"))

    # Imported once the frames have their own fds: nothing an import prints reaches the channel.
    import torch  # noqa: PLC0415

    from sandbox.runner import calls, digests, framing, inputs, wire  # noqa: PLC0415

    server = _Server(framing, wire, calls, digests, inputs, torch, tmp)
    return server.serve()


class _Server:
    def __init__(
        self, framing: Any, wire: Any, calls: Any, digests: Any, inputs: Any, torch: Any, tmp: str
    ) -> None:
        # References captured before any student code runs.
        self.framing, self.wire, self.inputs, self.torch = framing, wire, inputs, torch
        from sandbox.runner import wire_decode  # noqa: PLC0415 - beside wire, as main() imports it

        self.decode = wire_decode.decode
        self.encode_frame = framing.encode_frame
        self.execute_call = calls.execute_call
        self.exception_observation = calls.exception_observation
        self.run_script = calls.run_script
        self.digest = digests.digest
        self.perf_counter_ns = time.perf_counter_ns
        self.fstat = os.fstat
        self.write = os.write
        self.read = os.read
        self.listdir = os.listdir
        self.tmp = tmp
        self.cuda = bool(torch.cuda.is_available())
        self.functions: dict[str, Any] = {}
        self.filename = ""
        self.last: dict[str, Any] = {}
        self.prepared: dict[str, tuple[list[Any], str, list[Any]]] = {}
        self.spent: dict[str, list[Any]] = {}  # the last timed call's inputs (recycled)
        self.flush_buffer: Any = None
        if self.cuda:
            self.sync = torch.cuda.synchronize
            self.event = torch.cuda.Event

    # ---- channel
    def send(self, message: dict[str, Any], **values: Any) -> None:
        message = dict(message)
        message["printed"] = self.printed()
        data = self.wire.frame(message, **values)
        view = memoryview(data)
        while view:
            n = self.write(_FRAME_OUT, view)
            view = view[n:]

    def recv(self) -> tuple[dict[str, Any], bytes] | None:
        header = self._read_exact(self.framing.HEADER.size)
        if header is None:
            return None
        length = self.framing.parse_header(header)
        payload = self._read_exact(length)
        if payload is None:
            return None
        msg, blob = self.framing.decode_payload(payload)
        return msg, blob

    def _read_exact(self, n: int) -> bytes | None:
        chunks = []
        while n:
            chunk = self.read(_FRAME_IN, min(n, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def printed(self) -> int:
        try:
            return int(self.fstat(_OUTPUT_FD).st_size)
        except OSError:
            return 0

    # ---- ops
    def serve(self) -> int:
        self.warm_up()
        self.send(protocol.hello(**self.hello()))
        while True:
            request = self.recv()
            if request is None:
                return 0
            msg, blob = request
            op = msg.get("op")
            try:
                if op == protocol.Op.BYE:
                    self.send({"ok": True})
                    return 0
                handler = getattr(self, f"op_{op}", None) if protocol.known_op(op) else None
                if handler is None:
                    self.send({"ok": False, "error": f"unknown op {op!r}"})
                    continue
                handler(msg, blob)
            except MemoryError:
                self.send({"ok": False, "error": "MemoryError", "memory": True})
            except Exception as exc:  # a fault of the runner itself (or a student patch of it)
                self.send({"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000]})

    def warm_up(self) -> None:
        """Pay torch's lazy first-use costs (autograd, RNG) before any test's clock starts."""
        torch = self.torch
        x = torch.randn(8, generator=torch.Generator().manual_seed(0))
        self.execute_call(lambda a, b, s: s * a + b, [x, x, 1.5], {}, [0, 1], 1)
        self.wire.encode(self.inputs.build_inputs([{"randint": [0, 4], "shape": [2]}], 0))

    def hello(self) -> dict[str, Any]:
        torch = self.torch
        info: dict[str, Any] = {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "device": "cpu",
            "pid": os.getpid(),
        }
        # Triton's version as installed, read from its metadata: importing it here would cost
        # every sandbox about 0.2 CPU-s (a file that uses Triton imports it when it loads).
        try:
            import importlib.metadata  # noqa: PLC0415

            info["triton"] = importlib.metadata.version("triton")
        except Exception:
            info["triton"] = None
        if self.cuda:
            info["device"] = f"cuda: {torch.cuda.get_device_name(0)}"
            info["cuda"] = torch.version.cuda
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        info["cpu"] = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        return info

    def _device(self, wanted: Any) -> str:
        if wanted == "cuda" or (wanted == "auto" and self.cuda):
            return "cuda"
        return "cpu"

    def op_load(self, msg: dict[str, Any], blob: bytes) -> None:
        """Write the source to a file of its own (so ``inspect.getsource`` works, as Triton's
        ``@triton.jit`` needs) and import it as the module ``submission``."""
        import importlib.util  # noqa: PLC0415

        folder = os.path.join(self.tmp, f"submission-{os.getpid()}")
        os.makedirs(folder, exist_ok=True)
        self.filename = os.path.join(folder, "submission.py")
        cuda = msg.get("language") == "cuda"
        if cuda:  # the package's bindings run as the module; the student's .cu is compiled
            self.filename = os.path.join(folder, "bindings.py")
        else:
            with open(self.filename, "w", encoding="utf-8") as f:
                f.write(str(msg.get("source", "")))
        from sandbox.runner import modules  # noqa: PLC0415

        modules.install(msg.get("modules"), folder)  # a package's own modules, first on sys.path
        try:
            if cuda:
                from sandbox.runner import cuda_load  # noqa: PLC0415

                module = cuda_load.load(str(msg.get("source", "")), str(msg.get("bindings", "")),
                                        folder, gpu=self.cuda, time_s=float(msg.get("time_s", 10)))
            else:
                spec = importlib.util.spec_from_file_location("submission", self.filename)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                sys.modules["submission"] = module  # dataclasses and pickle-free helpers look here
                spec.loader.exec_module(module)
        except BaseException as exc:  # noqa: B036 - the student's import is an observation
            if isinstance(exc, KeyboardInterrupt):
                raise
            if type(exc).__name__ == "CompileError":  # sandbox.cuda.build's: a CE, its own log
                self.send({"ok": True, "status": "compile", "error": {"message": str(exc)[:16000]}})
                return
            obs = self.exception_observation(exc, self.filename)
            if isinstance(exc, SyntaxError):
                obs["traceback"] = _syntax_error_text(exc)
            self.send({"ok": True, "status": "error", "error": obs})
            return
        missing = []
        for name in msg.get("functions", []):
            fn = getattr(module, str(name), None)
            if not callable(fn):
                missing.append(str(name))
            else:
                self.functions[str(name)] = fn
        if missing:
            self.send({"ok": True, "status": "missing", "missing": missing})
            return
        self.send({"ok": True, "status": "ok"})

    def op_harness(self, msg: dict[str, Any], blob: bytes) -> None:
        """Compile and run a practice harness (sandbox/runner/harness.py); its cases come back."""
        from sandbox.runner import harness  # noqa: PLC0415

        self.send({"ok": True, **harness.run_harness(msg, self.tmp, gpu=self.cuda)})

    def op_script(self, msg: dict[str, Any], blob: bytes) -> None:
        """Run a scratch script with the loaded submission's names (sandbox/grader/kinds/scratch.py);
        the reply holds what it printed (bounded) and the exception that ended it, if any."""
        module = sys.modules.get("submission")
        namespace = {**(vars(module) if module is not None else {}), "__name__": "__main__"}
        script = os.path.join(os.path.dirname(self.filename) or self.tmp, "scratch.py")
        result = self.run_script(str(msg.get("source", "")), namespace, script,
                                 int(msg.get("keep") or 0), (self.filename, script))
        self.send({"ok": True, **result})

    def op_call(self, msg: dict[str, Any], blob: bytes) -> None:
        device = self._device(msg.get("device", "cpu"))
        args = self.decode(msg.get("args"), blob, device=device, numpy=True)
        kwargs = self.decode(msg.get("kwargs"), blob, device=device, numpy=True)
        fn = self.functions[str(msg.get("fn"))]
        obs = self.execute_call(
            fn,
            args,
            kwargs,
            list(msg.get("grad_wrt") or []),
            int(msg.get("grad_seed") or 0),
            self.filename,
        )
        self.send({"ok": True}, obs=obs)

    def op_prepare(self, msg: dict[str, Any], blob: bytes) -> None:
        """Build the inputs of the next timed call (untimed, and outside the grader's clock)."""
        which = str(msg.get("which"))
        self.prepared.pop(which, None)
        device = self._device(msg.get("device", "cpu"))
        specs = msg.get("specs", [])
        # The last timed call's inputs are overwritten in place (its output was fetched, if at
        # all, before this request): fresh values without fresh pages.
        spent = self.spent.pop(which, None) if device == "cpu" else None
        self.prepared[which] = (
            self.inputs.build_inputs(specs, int(msg.get("seed", 0)), device, spent),
            device,
            specs,
        )
        self.send({"ok": True})

    def op_time(self, msg: dict[str, Any], blob: bytes) -> None:
        """Time one call on the prepared inputs (or on inputs built here from ``specs``)."""
        which = str(msg.get("which"))
        fn = self.functions[str(msg.get("fn"))]
        if "specs" in msg:
            device = self._device(msg.get("device", "cpu"))
            seed = int(msg.get("seed", 0))
            specs = msg.get("specs", [])
            inputs = self.inputs.build_inputs(specs, seed, device)
        else:
            inputs, device, specs = self.prepared.pop(which)
        if msg.get("late_seed") is not None:
            inputs = self.inputs.late_input(specs, inputs, int(msg["late_seed"]), device)
        self.last.pop(which, None)
        waited_before = self.waited_ns()
        if device == "cuda":
            elapsed_ns, host_ns, out = self._time_cuda(fn, inputs)
        else:
            start = self.perf_counter_ns()
            out = fn(*inputs)
            _materialise(out, self.torch)
            end = self.perf_counter_ns()
            elapsed_ns = host_ns = end - start
        waited_after = self.waited_ns()
        self.last[which] = out
        self.spent[which] = inputs
        reply: dict[str, Any] = {"ok": True, "time_ns": int(elapsed_ns), "host_ns": int(host_ns)}
        if 0 <= waited_before <= waited_after:
            reply["waited_ns"] = waited_after - waited_before
        if msg.get("key"):
            reply["digest"] = self.digest(out, str(msg["key"]))
        self.send(reply)

    def waited_ns(self) -> int:
        """How long this process's threads have been runnable but waiting for a CPU, in all
        (the kernel's run delay, /proc/<tid>/schedstat), or -1 where it cannot be read. Read
        outside the clock around a timed call: the time something else ran on this sandbox's
        CPUs while the call wanted them. Only the baseline's sandbox is believed."""
        total = 0
        try:
            for tid in self.listdir("/proc/self/task"):
                with open(f"/proc/self/task/{tid}/schedstat", "rb") as f:
                    total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            return -1
        return total

    def _time_cuda(self, fn: Any, inputs: list[Any]) -> tuple[int, int, Any]:
        """CUDA events around one call, after an L2 flush; the end event is recorded after a
        device-wide synchronisation so work on side streams is inside the measured span."""
        torch = self.torch
        if self.flush_buffer is None:
            self.flush_buffer = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
        self.flush_buffer.zero_()
        self.sync()
        start, end = self.event(enable_timing=True), self.event(enable_timing=True)
        host_start = self.perf_counter_ns()
        start.record()
        out = fn(*inputs)
        _materialise(out, torch)
        self.sync()
        end.record()
        end.synchronize()
        host_ns = self.perf_counter_ns() - host_start
        return int(start.elapsed_time(end) * 1e6), host_ns, out

    def op_last_output(self, msg: dict[str, Any], blob: bytes) -> None:
        which = str(msg.get("which"))
        if which not in self.last:
            self.send({"ok": False, "error": "no timed output"})
            return
        self.send({"ok": True}, value=self.last[which])


def _materialise(value: Any, torch: Any) -> None:
    """Touch every tensor of an output so lazy work happens inside the timed region."""
    if isinstance(value, torch.Tensor):
        if type(value) is not torch.Tensor:
            torch.Tensor.contiguous(torch.Tensor.as_subclass(value, torch.Tensor))
    elif isinstance(value, list | tuple):
        for item in value:
            _materialise(item, torch)
    elif isinstance(value, dict):
        for item in value.values():
            _materialise(item, torch)


def _syntax_error_text(exc: SyntaxError) -> str:
    lines = [f'  File "submission.py", line {exc.lineno}']
    if exc.text:
        lines.append(f"    {exc.text.rstrip()}")
        if exc.offset:
            lines.append(
                "    " + " " * (exc.offset - 1 - (len(exc.text) - len(exc.text.lstrip()))) + "^"
            )
    lines.append(f"{type(exc).__name__}: {exc.msg}")
    return "\n".join(lines)

