"""The confined grader: where authors' code runs (sandbox/host/confined.py starts it).

A package's ``tests.py`` and ``solution.py`` (and a practice folder's ``test.py``) are code an
author wrote: they are executed here, never in the worker's launcher, which holds the Docker
socket and the database and broker credentials. This process is started as a sandbox of its
own (Docker: the worker's image, no network, no socket, a read-only root, a tmpfs, limits;
local backend: a subprocess with an empty environment), gets each package's files over its
channel (verified by content hash), and runs the unchanged grader (sandbox/grader/entry.py) and
package check (sandbox/grader/check.py) with a backend whose sandboxes the launcher starts and relays
(sandbox/grader/relay.py). It is kept between judgings of one trust domain (the built-in catalog, or
one uploaded version): an author's code is confined, and never sees another author's problem.

Started as ``python -m sandbox.grader.process`` (the worker image has /app on its path by a .pth).
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from sandbox.grader.contracts import Mode, TestResult
from sandbox.grader.package import PackageError, ProblemPackage, load_package, package_version
from sandbox.grader.relay import Channel, JobOp, RelayBackend

MAX_PACKAGE_FILES = 2000


def unpack(root: Path, message: dict[str, Any], blob: bytes) -> Path:
    """Write a package's files (``files``: relative path -> [offset, length] in ``blob``)
    under ``root/<version>/<folder>``; refuse paths that leave it."""
    version = str(message.get("version", ""))
    folder = str(message.get("folder", "package"))
    files = message.get("files")
    if not version.isalnum() or not isinstance(files, dict) or len(files) > MAX_PACKAGE_FILES:
        raise PackageError("a malformed package transfer")
    if not folder or "/" in folder or folder.startswith("."):
        raise PackageError("a malformed package folder name")
    target = root / version / folder
    base = target.resolve()
    for rel, span in files.items():
        path = (target / str(rel)).resolve()
        if base not in path.parents:
            raise PackageError(f"a package file outside its folder: {rel!r}")
        start, length = int(span[0]), int(span[1])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob[start : start + length])
    got = package_version(target)
    if got != version:
        raise PackageError(f"the package's content hash is {got}, not {version}")
    return target


class GraderProcess:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.root = Path(tempfile.mkdtemp(prefix="packages-"))
        self.packages: dict[str, ProblemPackage] = {}

    def serve(self) -> None:
        self.channel.emit({"event": "hello", "pid": os.getpid()})
        while True:
            job = self.channel.next_job()
            if job is None or job[0].get("op") == JobOp.BYE:
                return
            message, blob = job
            ident = message.get("job")
            try:
                self.run(message, blob)
            except BaseException as exc:  # noqa: BLE001 - an author's code may raise anything
                self.channel.emit({
                    "event": "failed", "job": ident,
                    "message": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc()[-4000:],
                })

    def run(self, message: dict[str, Any], blob: bytes) -> None:
        op, ident = message.get("op"), message.get("job")
        if op == JobOp.PACKAGE:
            path = unpack(self.root, message, blob)
            self.packages[str(message["version"])] = load_package(path)
            self.channel.emit({"event": "result", "job": ident})
            return
        package = self.packages.get(str(message.get("version")))
        if package is None:
            raise PackageError("the package was not sent before its job")
        backend = RelayBackend(self.channel, str(message.get("backend", "relay")))
        if op == JobOp.JUDGE:
            self.judge(ident, package, message, backend)
        elif op == JobOp.CHECK:
            self.check(ident, package, message, backend)
        else:
            raise PackageError(f"unknown job {op!r}")

    def judge(self, ident: Any, package: ProblemPackage, message: dict[str, Any],
              backend: RelayBackend) -> None:
        from sandbox.grader.entry import judge

        def progress(test: TestResult) -> None:
            self.channel.emit({"event": "progress", "job": ident, "test": test.to_json()})

        seed = message.get("secret_seed")
        result = judge(
            package,
            str(message.get("source", "")),
            mode=Mode(message.get("mode", "run")),
            backend=backend,
            secret_seed=seed if type(seed) is int else None,
            on_progress=progress,
            gpu_id=message.get("gpu_id") if isinstance(message.get("gpu_id"), str) else None,
            script=str(message.get("script", "")),
        )
        self.channel.emit({"event": "result", "job": ident, "result": result.to_json(with_seed=True)})

    def check(self, ident: Any, package: ProblemPackage, message: dict[str, Any],
              backend: RelayBackend) -> None:
        from sandbox.grader.check import CheckItem, check_package

        def item(found: CheckItem) -> None:
            self.channel.emit({"event": "item", "job": ident, "item": {
                "name": found.name, "ok": found.ok, "detail": found.detail,
                "seconds": found.seconds}})

        options: dict[str, Any] = {"bench": bool(message.get("bench", True))}
        if type(message.get("secret_seed")) is int:
            options["secret_seed"] = message["secret_seed"]
        report = check_package(package, backend, on_item=item, **options)
        self.channel.emit({"event": "result", "job": ident, "report": {
            "folder": report.folder, "version": report.version, "skipped": report.skipped,
            "items": [{"name": i.name, "ok": i.ok, "detail": i.detail, "seconds": i.seconds}
                      for i in report.items]}})


def _private_stdout() -> tuple[Any, Any]:
    """The channel's two ends; fd 1 then points at stderr, so that an author's print()
    cannot corrupt a frame."""
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    return inp, out


def main() -> None:
    inp, out = _private_stdout()
    GraderProcess(Channel(inp, out)).serve()


if __name__ == "__main__":
    main()
    # Leave at once: an author's threads or atexit hooks must not keep a finished grader alive.
    os._exit(0)

