"""A worker host's problem versions, by content hash: no shared disk with the main host.

Where JUDGE_PACKAGE_SOURCE is set (a worker host joined to a main host), a judging's package is
the version the database names (``Problem.version``, ``ProblemVersion.content_hash``), never
whatever this machine happens to hold under the same path:

- the local folder is used only when its own content hash is that version (a built-in problem
  of a clone at the same commit: no transfer);
- else the version comes from this host's cache (JUDGE_PACKAGE_CACHE_DIR/<hash>/<folder>);
- else it is fetched from the main host's web (``GET <source>/internal/packages/<hash>.zip``
  with the worker token), unpacked under the same caps as an upload, its content hash verified,
  and moved into the cache in one rename (another process of this host that fetched it
  meanwhile wins; its copy is as good).

The cache is kept under JUDGE_PACKAGE_CACHE_MIB by evicting the least recently used versions.
A version in use is never evicted: the process that judges with it holds a shared lock on the
entry (``.lock``) until it uses another version; eviction takes the entry's lock exclusively
without waiting, and skips an entry it cannot lock.

Any failure is a PackageFetchError whose message names the version and the source ("cannot
fetch version <hash> from <url>: ..."): the judging ends IE with it, never judged against
another version.
"""

from __future__ import annotations

import fcntl
import io
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.grader.package import PackageError, ProblemPackage, load_package, package_version

logger = logging.getLogger(__name__)

VERSION_RE = re.compile(r"^[0-9a-f]{16,64}$")
FETCH_PATH = "/internal/packages/{version}.zip"
TOKEN_HEADER = "X-Judge-Worker-Token"
FETCH_TIMEOUT_S = 30.0
LOCK_NAME = ".lock"
USED_NAME = ".used"  # its mtime: when a judging last took the entry (least recently used first)
LEFTOVER_S = 3600.0  # a staging folder this old belongs to a process that died


class PackageFetchError(PackageError):
    """A version this host cannot get as the database names it; the message is for staff.
    ``transient``: the source did not answer (or answered 5xx): worth another attempt later."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class CacheConfig:
    source: str  # base URL of the main host's web, e.g. "http://10.0.0.1:8000"
    token: str
    root: Path
    max_bytes: int


# The entry this process judges with now, kept locked (shared) until it takes another.
_held: dict[str, int] = {}
_held_lock = threading.Lock()


def _fail(config: CacheConfig, version: str, why: str, transient: bool = False) -> PackageFetchError:
    return PackageFetchError(
        f"cannot fetch version {version} from {config.source.rstrip('/')}: {why}", transient
    )


def package_for(config: CacheConfig, package_dir: str, version: str) -> ProblemPackage:
    """The package of content hash ``version``: the local ``package_dir`` when it holds exactly
    that version, else this host's cached copy, else fetched into the cache. Raises
    PackageFetchError, naming the version and the source, when none of them can give it."""
    if not VERSION_RE.match(version or ""):
        raise _fail(config, version, "the database names no valid content hash for it")
    local = Path(package_dir)
    if local.is_dir():
        try:
            package = load_package(local)
        except (PackageError, OSError, ValueError):
            package = None  # another commit's copy that does not even load: fetch
        if package is not None and package.version == version:
            return package
    entry = config.root / version
    package = _take(entry, version)
    if package is None:
        _fetch(config, version)
        package = _take(entry, version)
        if package is None:  # evicted between its rename and now (a tiny cache)
            raise _fail(config, version, f"the cache at {config.root} could not keep it")
        evict(config.root, config.max_bytes)  # the cache grows only here
    return package


def _take(entry: Path, version: str) -> ProblemPackage | None:
    """The cached package at ``entry``, locked (shared) for this process, or None if absent."""
    lock_path = entry / LOCK_NAME
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        # Evicted while we waited: the path is gone or is another entry's now.
        if not lock_path.exists() or os.stat(lock_path).st_ino != os.fstat(fd).st_ino:
            os.close(fd)
            return None
        folders = [p for p in entry.iterdir() if p.is_dir()]
        try:
            package = load_package(folders[0]) if len(folders) == 1 else None
        except (PackageError, OSError, ValueError):
            package = None
        if package is None or package.version != version:
            # Damaged on this disk (edited, half removed): dropped, and fetched again.
            logger.warning("package cache: %s does not hold version %s; dropped", entry, version)
            os.close(fd)
            _drop(entry)
            return None
        os.utime(entry / USED_NAME)
    except BaseException:
        os.close(fd)
        raise
    with _held_lock:
        for old in list(_held.values()):
            os.close(old)
        _held.clear()
        _held[version] = fd
    return package


def _fetch(config: CacheConfig, version: str) -> None:
    """Download, unpack, verify and move version ``version`` into the cache."""
    import requests

    from judge_site.core.zips import MAX_ZIP_BYTES, extract, open_zip, safe_member

    url = config.source.rstrip("/") + FETCH_PATH.format(version=version)
    try:
        response = requests.get(
            url, headers={TOKEN_HEADER: config.token}, timeout=FETCH_TIMEOUT_S, stream=True,
            allow_redirects=False,
        )
    except requests.RequestException as exc:
        raise _fail(config, version, f"{type(exc).__name__}: {exc}", transient=True) from None
    with response:
        if response.status_code != 200:
            said = ""
            if response.headers.get("Content-Type", "").startswith("text/plain"):
                said = ": " + response.text[:300].strip()
            hint = {403: " (is this worker's JUDGE_WORKER_TOKEN the web's?)"}.get(
                response.status_code, ""
            )
            raise _fail(config, version, f"HTTP {response.status_code}{said}{hint}",
                        transient=response.status_code >= 500)
        body = io.BytesIO()
        try:
            for chunk in response.iter_content(1 << 16):
                body.write(chunk)
                if body.tell() > MAX_ZIP_BYTES:
                    raise _fail(config, version, f"the zip is larger than {MAX_ZIP_BYTES} bytes")
        except requests.RequestException as exc:
            raise _fail(config, version, f"{type(exc).__name__}: {exc}", transient=True) from None
    config.root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=config.root))
    try:
        try:
            archive = open_zip(body.getvalue())
            members = [(info, safe_member(info)) for info in archive.infolist()]
            tops = {path.parts[0] for _, path in members}
            if len(tops) != 1:
                raise PackageError("the zip must hold exactly one package folder")
            extract(archive, members, staging)
        except PackageError as exc:
            raise _fail(config, version, f"a malformed package zip: {exc}") from None
        folder = staging / tops.pop()
        got = package_version(folder)
        if got != version:
            raise _fail(config, version, f"the content's hash is {got}, not {version}: not "
                                         "judged against another version")
        (staging / LOCK_NAME).touch()
        (staging / USED_NAME).touch()
        try:
            staging.rename(config.root / version)
        except OSError:  # another process of this host put it there first: keep theirs
            pass
        else:
            logger.info("fetched version %s from %s", version, config.source)
            return
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _drop(entry: Path) -> None:
    """Remove a cache entry: renamed away first (one step), then deleted."""
    trash = entry.parent / f".evict-{entry.name}-{time.monotonic_ns()}"
    try:
        entry.rename(trash)
    except OSError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def evict(root: Path, max_bytes: int) -> list[str]:
    """Remove the least recently used versions until the cache holds at most ``max_bytes``
    (skipping any version a judging holds). Returns the versions removed."""
    if not root.is_dir():
        return []
    entries = []
    for entry in root.iterdir():
        if entry.name.startswith((".fetch-", ".evict-")):
            try:  # what a process killed mid-fetch or mid-eviction left
                if time.time() - entry.stat().st_mtime > LEFTOVER_S:
                    shutil.rmtree(entry, ignore_errors=True)
            except FileNotFoundError:
                pass
            continue
        if not VERSION_RE.match(entry.name) or not entry.is_dir():
            continue
        try:
            used = (entry / USED_NAME).stat().st_mtime
        except FileNotFoundError:
            used = 0.0
        entries.append((used, entry, _size(entry)))
    total = sum(size for _, _, size in entries)
    removed: list[str] = []
    for _, entry, size in sorted(entries, key=lambda e: e[0]):
        if total <= max_bytes:
            break
        try:
            fd = os.open(entry / LOCK_NAME, os.O_RDONLY)
        except FileNotFoundError:
            fd = -1
        try:
            if fd >= 0:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a judging holds it
            if not entry.exists():
                continue
            _drop(entry)
            total -= size
            removed.append(entry.name)
        finally:
            if fd >= 0:
                os.close(fd)
    if removed:
        logger.info("package cache: evicted %s (now %d bytes)", ", ".join(removed), total)
    return removed


def config_from_settings() -> CacheConfig | None:
    """This worker's cache configuration, or None when it reads packages from its own disk."""
    from django.conf import settings

    source = str(getattr(settings, "JUDGE_PACKAGE_SOURCE", "") or "")
    if not source:
        return None
    return CacheConfig(
        source=source,
        token=str(getattr(settings, "JUDGE_WORKER_TOKEN", "") or ""),
        root=Path(settings.JUDGE_PACKAGE_CACHE_DIR),
        max_bytes=int(settings.JUDGE_PACKAGE_CACHE_MIB) * 1024 * 1024,
    )
