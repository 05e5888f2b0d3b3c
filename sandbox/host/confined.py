"""The launcher's side of the confined grader (sandbox/grader/process.py).

``ConfinedGraders.judge`` has the contract of ``sandbox.grader.entry.judge`` and
``ConfinedGraders.check`` that of ``sandbox.grader.check.check_package``; neither executes a line of
the package here. They hand the job to a grader process of the package's trust domain (kept
between judgings, retired by age), serve its sandbox requests with the real backend
(sandbox/grader/relay.py: labels, GPU and the count of sandboxes are ours), pass its progress on, and
close every sandbox of the job at its end. A grader process that dies, hangs or answers
nonsense ends the job as IE (ours, never the student's fault) and is replaced.

Costs (measured by scripts/bench_judging): the grader process imports torch once per domain
and age, not per judging; per judging the package's files cross once per process, and every
request to a sandbox takes one more hop through a pipe (tens of microseconds).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sandbox.grader.contracts import JudgeResult, Mode, TestResult, Verdict
from sandbox.grader.package import PackageError, ProblemPackage
from sandbox.grader.relay import check_job, judge_job, package_job
from sandbox.host.backends.base import Backend, Sandbox, SandboxError, SandboxTimeout
from sandbox.host.relay_service import Bounds, BoxService
from sandbox.runner import framing

log = logging.getLogger(__name__)

GRADER_COMMAND = ["-m", "sandbox.grader.process"]  # after the interpreter: where the package is importable
HELLO_TIMEOUT_S = 120.0  # start-up: interpreter and torch import, on a busy machine
AUTHOR_SILENCE_S = 120.0  # the most an author's code may compute between two requests
MAX_PACKAGE_MIB = 64
# The most one job may take, whatever its requests: a judging gets the judging task's own soft
# limit (judge_site/settings.py, CELERY_TASK_SOFT_TIME_LIMIT; the engine passes the setting), a
# package check (the reference with its benchmark, the starter, every tagged solution) a quarter
# of an hour: 065's, the catalog's longest benchmark, took 40 s through a confined grader on a
# loaded 2-core machine (local backend). A grader that holds requests open while its other
# threads compute is stopped here, not by Celery's limit (30 minutes for a check).
JUDGE_JOB_S = 300.0
CHECK_JOB_S = 900.0


class GraderFailed(Exception):
    """The grader process failed the job (ours: an IE with this message)."""


class _Slice(Exception):  # noqa: N818 - a slice of a wait ended without a frame
    pass


def pack_package(package: ProblemPackage) -> tuple[dict[str, Any], bytes]:
    """The package folder's files as one transfer: relative path -> [offset, length]."""
    files: dict[str, list[int]] = {}
    chunks: list[bytes] = []
    offset = 0
    for path in sorted(p for p in package.path.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts:
            continue
        data = path.read_bytes()
        files[str(path.relative_to(package.path))] = [offset, len(data)]
        chunks.append(data)
        offset += len(data)
        if offset > MAX_PACKAGE_MIB * 1024 * 1024:
            raise PackageError(f"the package is larger than {MAX_PACKAGE_MIB} MiB")
    message = package_job(package.version, package.path.name, files)
    return message, b"".join(chunks)


def bounds_of(package: ProblemPackage, job_s: float) -> Bounds:
    """The bounds of a job's sandboxes: the package's validated limits, the job's time."""
    return Bounds.of(package.limits, list(package.requires), job_s, package.language,
                     bool(package.harness))


class GraderHost:
    """One running grader process and the versions it already holds."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.born = time.monotonic()
        self.versions: set[str] = set()
        self.jobs = 0
        self._send_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="relay")
        message = self._recv(HELLO_TIMEOUT_S)
        if message[0].get("event") != "hello":
            raise GraderFailed("the grader process did not say hello")

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        try:
            self.box.close()
        except Exception:  # noqa: BLE001,S110 - best effort; the reaper follows
            pass

    def _send(self, message: dict[str, Any], blob: bytes = b"") -> None:
        with self._send_lock:
            self.box.send(framing.encode_frame(message, blob))

    def _recv_by(self, deadline: Callable[[], float], job_end: float, job_s: float
                 ) -> tuple[dict[str, Any], bytes]:
        """The next frame, waiting in slices until ``deadline()`` (re-read: it moves), and
        never past ``job_end``."""
        while True:
            now = time.monotonic()
            if now >= job_end:
                raise GraderFailed("the problem's grader process failed: SandboxTimeout: "
                                   f"the job ran over its {job_s:g} s")
            left = deadline() - now
            if left <= 0:
                raise GraderFailed("the problem's grader process failed: SandboxTimeout: "
                                   f"the package's code computed for over {AUTHOR_SILENCE_S:g} s")
            try:
                return self._recv(min(left, job_end - now, 1.0), quiet_timeout=True)
            except _Slice:
                continue

    def _recv(self, timeout_s: float, quiet_timeout: bool = False) -> tuple[dict[str, Any], bytes]:
        try:
            raw = self.box.recv(timeout_s)
            return framing.decode_frame(raw)
        except SandboxTimeout:
            if quiet_timeout:
                raise _Slice() from None
            raise GraderFailed("the problem's grader process failed: SandboxTimeout") from None
        except SandboxError as exc:
            raise GraderFailed(f"the problem's grader process failed: {type(exc).__name__}: {exc}") from None
        except framing.FrameError as exc:
            raise GraderFailed(f"the problem's grader process wrote a bad frame: {exc}") from None

    def run(
        self,
        job: dict[str, Any],
        blob: bytes,
        service: BoxService | None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        job_s: float = JUDGE_JOB_S,
    ) -> dict[str, Any]:
        """Send a job, serve its sandbox requests, pass its events on; its final event. A job
        that has not ended after ``job_s`` fails (the caller then retires this process)."""
        self.jobs += 1
        ident = self.jobs
        job_end = time.monotonic() + job_s
        self._send({**job, "job": ident}, blob)
        waits: dict[int, float] = {}  # requests in flight -> when they may end at the latest
        waits_lock = threading.Lock()
        last_activity = [time.monotonic()]

        def serve(message: dict[str, Any], data: bytes) -> None:
            rid = message.get("rid")
            try:
                if service is None:
                    reply, out = {"error": {"type": "RelayError", "message": "no sandboxes here"}}, b""
                else:
                    reply, out = service.handle(message, data)
            except Exception as exc:  # noqa: BLE001 - the backend failed: tell the grader
                log.exception("sandbox request %s failed", message.get("rpc"))
                reply, out = {"error": {"type": "RelayError", "message": f"{type(exc).__name__}: {exc}"}}, b""
            finally:
                with waits_lock:
                    waits.pop(rid, None)  # type: ignore[arg-type]
                    last_activity[0] = time.monotonic()
            try:
                self._send({**reply, "re": rid}, out)
            except SandboxError:
                pass  # the grader process is gone: the loop below says so

        def deadline() -> float:
            """While a request runs, its own time; else the author's code gets its silence."""
            with waits_lock:
                if waits:
                    return max(waits.values()) + AUTHOR_SILENCE_S
                return last_activity[0] + AUTHOR_SILENCE_S

        while True:
            message, data = self._recv_by(deadline, job_end, job_s)
            last_activity[0] = time.monotonic()
            if "rpc" in message:
                rid = message.get("rid")
                if type(rid) is not int:
                    raise GraderFailed("the grader process sent a request without an id")
                timeout = message.get("timeout_s")
                limit = float(timeout) if isinstance(timeout, int | float) else HELLO_TIMEOUT_S
                # A request is waited for no longer than the launcher lets it wait (BoxService
                # refuses a longer timeout): the author's silence starts again after it.
                limit = min(limit, service.bounds.recv_s if service is not None else HELLO_TIMEOUT_S)
                with waits_lock:
                    waits[rid] = time.monotonic() + limit
                self._pool.submit(serve, message, data)
                continue
            if message.get("job") != ident:
                continue  # a late event of an earlier job
            event = message.get("event")
            if event in ("result", "failed"):
                if event == "failed":
                    raise GraderFailed(
                        f"the problem's tests failed in the grader: {message.get('message', '')}"
                        f"\n{str(message.get('traceback', ''))[-1500:]}"
                    )
                return message
            if on_event is not None:
                on_event(message)


class ConfinedGraders:
    """Grader processes by trust domain, started with ``start`` (a Sandbox running
    sandbox.grader.process), at most ``max_domains`` kept, each retired after ``max_age_s``."""

    def __init__(self, start: Callable[[], Sandbox], max_age_s: float = 600.0,
                 max_domains: int = 3) -> None:
        self._start = start
        self.max_age_s = max_age_s
        self.max_domains = max_domains
        self._hosts: OrderedDict[str, GraderHost] = OrderedDict()
        self._lock = threading.Lock()

    def _host(self, domain: str) -> GraderHost:
        with self._lock:
            host = self._hosts.pop(domain, None)
            if host is not None and time.monotonic() - host.born > self.max_age_s:
                host.close()
                host = None
            while len(self._hosts) >= self.max_domains:
                _, old = self._hosts.popitem(last=False)
                old.close()
        if host is None:
            host = GraderHost(self._start())
        return host

    def _keep(self, domain: str, host: GraderHost) -> None:
        with self._lock:
            self._hosts[domain] = host

    def close(self) -> None:
        with self._lock:
            hosts, self._hosts = list(self._hosts.values()), OrderedDict()
        for host in hosts:
            host.close()

    def _job(self, domain: str, package: ProblemPackage, job: dict[str, Any],
             service: BoxService, on_event: Callable[[dict[str, Any]], None],
             job_s: float) -> dict[str, Any]:
        host = self._host(domain)
        try:
            if package.version not in host.versions:
                message, blob = pack_package(package)
                host.run(message, blob, None)
                host.versions.add(package.version)
            final = host.run({**job, "version": package.version}, b"", service, on_event, job_s)
        except BaseException:
            host.close()
            raise
        finally:
            service.close_all()
        self._keep(domain, host)
        return final

    def judge(
        self,
        package: ProblemPackage,
        source: str,
        *,
        mode: Mode,
        backend: Backend,
        domain: str,
        secret_seed: int | None = None,
        on_progress: Callable[[TestResult], None] | None = None,
        gpu_id: str | None = None,
        labels: dict[str, str] | None = None,
        job_s: float = JUDGE_JOB_S,
        script: str = "",
    ) -> JudgeResult:
        """sandbox.grader.entry.judge, with the package's code run in the domain's grader process;
        ``job_s``: the most the judging may take (its sandboxes' wall time included)."""
        env = {"backend": backend.name}
        service = BoxService(backend, labels or {}, gpu_id, domain=domain,
                             bounds=bounds_of(package, job_s))
        seen: list[TestResult] = []

        def on_event(message: dict[str, Any]) -> None:
            if message.get("event") == "progress" and isinstance(message.get("test"), dict):
                test = TestResult.from_json(message["test"])
                seen.append(test)
                if on_progress is not None:
                    on_progress(test)

        job = judge_job(source, str(Mode(mode)), gpu_id, secret_seed, backend.name,
                        script if Mode(mode) == Mode.SCRATCH else None)
        try:
            final = self._job(domain, package, job, service, on_event, job_s)
            result = JudgeResult.from_json(final["result"])
        except Exception as exc:  # noqa: BLE001 - ours (IE), whatever failed: start, channel, shape
            log.warning("confined grader failed on %s: %s", package.path, exc)
            text = str(exc) if isinstance(exc, GraderFailed) else f"the grader process failed: {type(exc).__name__}: {exc}"
            return JudgeResult(Verdict.IE, seen, None, env, text[:4000], package.version,
                               secret_seed, "" if Mode(mode) == Mode.SCRATCH else None)
        result.environment["grader"] = "confined"
        return dataclasses.replace(result, problem_version=package.version)

    def check(
        self,
        package: ProblemPackage,
        backend: Backend,
        *,
        domain: str,
        on_item: Callable[[Any], None] | None = None,
        bench: bool = True,
        secret_seed: int | None = None,
        job_s: float = CHECK_JOB_S,
    ) -> Any:
        """sandbox.grader.check.check_package, run in the domain's grader process; a failure of the
        process is one failed item of the report."""
        from sandbox.grader.check import CheckItem, CheckReport

        report = CheckReport(folder=package.folder_name, version=package.version)

        def item_of(raw: dict[str, Any]) -> CheckItem:
            return CheckItem(str(raw.get("name", "")), bool(raw.get("ok")),
                             str(raw.get("detail", "")), float(raw.get("seconds") or 0.0))

        def on_event(message: dict[str, Any]) -> None:
            if message.get("event") == "item" and isinstance(message.get("item"), dict):
                found = item_of(message["item"])
                report.items.append(found)
                if on_item is not None:
                    on_item(found)

        job = check_job(bench, backend.name, secret_seed)
        # Each of the check's judgings is one judging: its sandboxes get a judging's wall time.
        service = BoxService(backend, {}, None, domain=domain,
                             bounds=bounds_of(package, min(JUDGE_JOB_S, job_s)))
        try:
            final = self._job(domain, package, job, service, on_event, job_s)
            raw = final["report"]
            report.items = [item_of(i) for i in raw.get("items", [])]
            report.skipped = str(raw.get("skipped") or "")
        except Exception as exc:  # noqa: BLE001 - one failed item, whatever failed
            failed = CheckItem("grader process", False, f"{type(exc).__name__}: {exc}"[:4000])
            report.items.append(failed)
            if on_item is not None:
                on_item(failed)
        return report
