"""A worker host without a shared disk: problem versions by content hash, fetched from the main
host's web with the workers' token, verified, cached, evicted by size (package_cache.py and
catalog/worker_views.py)."""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from judge_cast import make_problem, token_for
from zip_damage import with_bad_crc, zip_of

from judge_site.catalog.services import problem_export_zip
from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission
from judge_site.worker import package_cache
from judge_site.worker.package_cache import CacheConfig, PackageFetchError, evict, package_for
from sandbox.grader.package import package_version

BUILT_IN = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"
TOKEN = "worker-secret-for-tests"
URL = "/internal/packages/{}.zip"


@pytest.fixture
def main_copy(tmp_path: Path) -> Path:
    """The main host's folder of problem 48 (a copy: tests change it)."""
    folder = tmp_path / "main" / BUILT_IN.name
    shutil.copytree(BUILT_IN, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture
def stored(db: Any, main_copy: Path) -> Any:
    return make_problem(package_dir=str(main_copy), version=package_version(main_copy))


def config(source: str, root: Path, mib: int = 64, token: str = TOKEN) -> CacheConfig:
    return CacheConfig(source=source, token=token, root=root, max_bytes=mib * 1024 * 1024)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the main host's endpoint ---------------------------------------------------------------


def test_it_answers_only_the_workers_token(client, settings, stored, alice, charlie):
    url = URL.format(stored.version)
    settings.JUDGE_WORKER_TOKEN = ""
    assert client.get(url, HTTP_X_JUDGE_WORKER_TOKEN="").status_code == 404  # off without one
    settings.JUDGE_WORKER_TOKEN = TOKEN
    assert client.get(url).status_code == 403
    assert client.get(url, HTTP_X_JUDGE_WORKER_TOKEN=TOKEN + "x").status_code == 403
    for user in (alice, charlie):  # a session or an API token counts for nothing here
        assert client.get(url, HTTP_AUTHORIZATION=f"Bearer {token_for(user)}").status_code == 403
        client.force_login(user)
        assert client.get(url).status_code == 403
        client.logout()
    assert client.post(url, HTTP_X_JUDGE_WORKER_TOKEN=TOKEN).status_code == 405
    # Workers reach web by an address ALLOWED_HOSTS need not list (the site's pages refuse it).
    assert client.get("/", HTTP_HOST="10.9.8.7:8000").status_code == 400
    assert client.get(url, HTTP_HOST="10.9.8.7:8000").status_code == 403
    response = client.get(url, HTTP_X_JUDGE_WORKER_TOKEN=TOKEN, HTTP_HOST="10.9.8.7:8000")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert response.content == problem_export_zip(stored.package_dir)


def test_it_serves_no_version_its_disk_does_not_hold(client, settings, stored, main_copy):
    settings.JUDGE_WORKER_TOKEN = TOKEN
    assert client.get(URL.format("0" * 16), HTTP_X_JUDGE_WORKER_TOKEN=TOKEN).status_code == 404
    assert client.get(URL.format("../etc"), HTTP_X_JUDGE_WORKER_TOKEN=TOKEN).status_code == 404
    assert client.get("/internal/packages/", HTTP_X_JUDGE_WORKER_TOKEN=TOKEN).status_code == 404
    (main_copy / "statement.md").write_text("changed on disk after the sync\n")
    response = client.get(URL.format(stored.version), HTTP_X_JUDGE_WORKER_TOKEN=TOKEN)
    assert response.status_code == 404  # never another content under the same hash


def test_it_serves_an_uploaded_version_the_staff_app_names(client, settings, stored, tmp_path):
    """A version only the staff app knows (an upload, not the problem's current one) is found
    through the hook it registers (core/gates.register_version_folders): the catalog's package
    server imports no staff code."""
    from judge_site.staff.models import ProblemVersion

    settings.JUDGE_WORKER_TOKEN = TOKEN
    upload = tmp_path / "uploads" / BUILT_IN.name
    shutil.copytree(BUILT_IN, upload, ignore=shutil.ignore_patterns("__pycache__"))
    (upload / "statement.md").write_text("an uploaded version's own statement\n")
    version = package_version(upload)
    assert version != stored.version
    url = URL.format(version)
    assert client.get(url, HTTP_X_JUDGE_WORKER_TOKEN=TOKEN).status_code == 404  # unknown yet
    ProblemVersion.objects.create(problem_number=stored.number, ordinal=1, slug=stored.slug,
                                  title=stored.title, content_hash=version,
                                  package_dir=str(upload))
    response = client.get(url, HTTP_X_JUDGE_WORKER_TOKEN=TOKEN)
    assert response.status_code == 200
    assert response.content == problem_export_zip(upload)


# --- the worker host's cache, over real HTTP --------------------------------------------------


def test_a_worker_fetches_verifies_caches_and_reuses_a_version(
    live_server, settings, stored, tmp_path
):
    settings.JUDGE_WORKER_TOKEN = TOKEN
    cache = tmp_path / "worker-cache"
    absent = str(tmp_path / "not-on-this-host" / BUILT_IN.name)
    package = package_for(config(live_server.url, cache), absent, stored.version)
    assert package.version == stored.version
    assert package.path == cache / stored.version / BUILT_IN.name
    assert (package.path / "solution.py").read_bytes() == (BUILT_IN / "solution.py").read_bytes()
    # Reused thereafter: the source may be gone.
    gone = f"http://127.0.0.1:{closed_port()}"
    again = package_for(config(gone, cache), absent, stored.version)
    assert again.path == package.path and again.version == stored.version
    # A cached copy changed on this disk is dropped and fetched again, never used.
    (package.path / "solution.py").write_text("def embed(*a): return None\n")
    with pytest.raises(PackageFetchError, match="ConnectionError"):
        package_for(config(gone, cache), absent, stored.version)
    healed = package_for(config(live_server.url, cache), absent, stored.version)
    assert (healed.path / "solution.py").read_bytes() == (BUILT_IN / "solution.py").read_bytes()
    # A worker with the wrong token is told so, naming the version and the source.
    with pytest.raises(PackageFetchError) as refused:
        package_for(config(live_server.url, tmp_path / "other", token="nope"), absent,
                    stored.version)
    assert str(refused.value).startswith(
        f"cannot fetch version {stored.version} from {live_server.url}: HTTP 403: workers only"
    )
    assert not refused.value.transient  # a configuration to fix, not a moment to wait out
    settings.JUDGE_WORKER_TOKEN = ""
    with pytest.raises(PackageFetchError, match="HTTP 404: the main host has no JUDGE_WORKER_TO"):
        package_for(config(live_server.url, tmp_path / "other"), absent, stored.version)


def test_a_worker_at_another_commit_fetches_instead_of_its_own_copy(
    live_server, settings, stored, tmp_path
):
    settings.JUDGE_WORKER_TOKEN = TOKEN
    own = tmp_path / "worker-clone" / BUILT_IN.name  # the same path, another commit's content
    shutil.copytree(BUILT_IN, own, ignore=shutil.ignore_patterns("__pycache__"))
    (own / "statement.md").write_text("# this clone's older statement\n")
    package = package_for(config(live_server.url, tmp_path / "cache"), str(own), stored.version)
    assert package.path != own and package.version == stored.version
    assert package.statement_md == (BUILT_IN / "statement.md").read_text()
    # At the same commit, its own copy is used and nothing is fetched.
    same = tmp_path / "same-commit" / BUILT_IN.name
    shutil.copytree(BUILT_IN, same, ignore=shutil.ignore_patterns("__pycache__"))
    gone = f"http://127.0.0.1:{closed_port()}"
    assert package_for(config(gone, tmp_path / "cache2"), str(same), stored.version).path == same
    assert not (tmp_path / "cache2").exists()


class _Serve(BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *_: Any) -> None:
        pass


def test_a_source_that_sends_another_version_is_refused(tmp_path, main_copy):
    wanted = package_version(main_copy)
    (main_copy / "statement.md").write_text("another version\n")
    handler = type("Wrong", (_Serve,), {"body": problem_export_zip(main_copy)})
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    source = f"http://127.0.0.1:{server.server_port}"
    cache = tmp_path / "cache"
    try:
        with pytest.raises(PackageFetchError) as mismatch:
            package_for(config(source, cache), "/nowhere", wanted)
        assert str(mismatch.value).startswith(f"cannot fetch version {wanted} from {source}: ")
        assert f"the content's hash is {package_version(main_copy)}" in str(mismatch.value)
        # Not a zip at all, or one escaping its folder: refused the same way.
        handler.body = b"<html>a proxy's error page</html>"
        with pytest.raises(PackageFetchError, match="a malformed package zip"):
            package_for(config(source, cache), "/nowhere", wanted)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("../evil.py", "x = 1\n")
        handler.body = buffer.getvalue()
        with pytest.raises(PackageFetchError, match="unsafe path"):
            package_for(config(source, cache), "/nowhere", wanted)
        handler.body = with_bad_crc(zip_of({f"{BUILT_IN.name}/statement.md": b"# hi\n"}),
                                    f"{BUILT_IN.name}/statement.md")
        with pytest.raises(PackageFetchError, match="a malformed package zip: the zip is damaged"):
            package_for(config(source, cache), "/nowhere", wanted)
    finally:
        server.shutdown()
        server.server_close()
    assert [p.name for p in cache.iterdir()] == []  # nothing kept, no staging left behind


def test_an_unreachable_source_ends_the_judging_ie_with_a_message_staff_can_act_on(
    alice, settings, stored, enqueued, fake_engine, tmp_path
):
    source = f"http://127.0.0.1:{closed_port()}"
    settings.JUDGE_PACKAGE_SOURCE = source
    settings.JUDGE_WORKER_TOKEN = TOKEN
    settings.JUDGE_PACKAGE_CACHE_DIR = tmp_path / "cache"
    stored.package_dir = str(tmp_path / "not-here" / BUILT_IN.name)
    stored.save()
    sub = services.submission_create(alice, stored, "def embed(ids, weight, pad_id): ...\n", "run")
    # Out of reach is worth waiting out (a restart of the web): tried again, then IE.
    outcomes = [services.submission_judge(sub.pk).action for _ in range(services.MAX_ATTEMPTS)]
    assert outcomes == ["retry"] * (services.MAX_ATTEMPTS - 1) + ["failed"]
    assert [sid for sid, _, countdown in enqueued if countdown] == [sub.pk] * (
        services.MAX_ATTEMPTS - 1
    )
    sub = Submission.objects.get(pk=sub.pk)
    assert sub.status == Status.DONE and sub.verdict == "IE"
    assert f"cannot fetch version {stored.version} from {source}: ConnectionError" in sub.message
    assert fake_engine.calls == []  # never judged against anything else


# --- eviction ---------------------------------------------------------------------------------


def _entry(root: Path, version: str, size: int, used_at: float) -> Path:
    entry = root / version
    (entry / "pkg").mkdir(parents=True)
    (entry / "pkg" / "blob").write_bytes(b"x" * size)
    (entry / package_cache.LOCK_NAME).touch()
    (entry / package_cache.USED_NAME).touch()
    os.utime(entry / package_cache.USED_NAME, (used_at, used_at))
    return entry


def test_the_cache_evicts_the_least_recently_used_versions_down_to_its_size(tmp_path):
    root = tmp_path / "cache"
    old, mid, new = ("a" * 16, "b" * 16, "c" * 16)
    _entry(root, old, 400, 1_000)
    _entry(root, mid, 400, 2_000)
    _entry(root, new, 400, 3_000)
    leftover, fresh = root / ".fetch-dead", root / ".fetch-busy"
    leftover.mkdir()
    fresh.mkdir()
    os.utime(leftover, (1_000, 1_000))
    assert evict(root, 2_000) == []
    assert not leftover.exists() and fresh.exists()  # a killed fetch's folder; one under way
    fresh.rmdir()
    assert evict(root, 900) == [old]
    assert sorted(p.name for p in root.iterdir()) == [mid, new]
    # A version a judging holds (its shared lock) stays, even when it is the oldest.
    import fcntl

    fd = os.open(root / mid / package_cache.LOCK_NAME, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        assert evict(root, 0) == [new]
    finally:
        os.close(fd)
    assert evict(root, 0) == [mid]
    assert list(root.iterdir()) == []


def test_a_fetched_version_evicts_older_ones_but_never_itself(live_server, settings, stored,
                                                                tmp_path):
    settings.JUDGE_WORKER_TOKEN = TOKEN
    root = tmp_path / "cache"
    _entry(root, "d" * 16, 200_000, 1_000)
    package = package_for(config(live_server.url, root, mib=0), "/nowhere", stored.version)
    assert [p.name for p in root.iterdir()] == [stored.version]  # over the cap, but in use
    assert package.path.is_dir()


def test_an_imported_practice_folder_is_fetched_like_any_version(live_server, settings,
                                                                  tmp_path):
    from sandbox.practice import folder as practice_folder

    folder = practice_folder.read_folder(Path(__file__).resolve().parents[1] / "fixtures" / "practice"
                                  / "toy-dot-product")
    written = practice_folder.write_package(folder, tmp_path / "main" / "practice", 901)
    version = package_version(written)
    make_problem(901, slug=folder.slug, package_dir=str(written), version=version)
    settings.JUDGE_WORKER_TOKEN = TOKEN
    package = package_for(config(live_server.url, tmp_path / "cache"), "/nowhere", version)
    assert package.version == version and package.manifest.get("kind") == practice_folder.KIND
    assert (package.path / "tests.py").read_text() == (written / "tests.py").read_text()
