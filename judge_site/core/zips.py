"""Reading a zip that someone sent: a package, a practice folder, a book of them (the staff
upload) or a version a worker fetched from the main host. One set of rules for all of them.

A zip is refused, with a PackageError whose message the uploader can act on, when it is over
MAX_ZIP_BYTES, not a zip, holds an absolute path, ``..``, a link or an odd name, unpacks to more
than MAX_UNPACKED_BYTES (counted on the bytes really written: the sizes in the header may lie),
or is damaged. Damage shows only when a member is read, not when the archive is opened: a
bad CRC-32, a broken deflate stream, a truncated member, an unknown compression method or an
encrypted member each raise something else from ``zipfile`` (BadZipFile, zlib.error,
EOFError, NotImplementedError, RuntimeError); reading here turns each into a PackageError, so
every caller answers it as the bad upload it is, never with a 500.
"""

from __future__ import annotations

import io
import lzma
import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from sandbox.grader.package import PackageError

# A package is text (statement, Python, TOML); these are generous for that.
MAX_ZIP_BYTES = 5 * 1024 * 1024
MAX_UNPACKED_BYTES = 20 * 1024 * 1024
MAX_FILES = 500
PART_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}$")
CHUNK_BYTES = 1 << 16

Member = tuple[zipfile.ZipInfo, PurePosixPath]

# What zipfile raises while reading a damaged member out of memory (bz2 says OSError).
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError,
                RuntimeError, ValueError, OSError)


def open_zip(data: bytes) -> zipfile.ZipFile:
    """``data`` as a zip archive, refused when over MAX_ZIP_BYTES or not a zip."""
    if len(data) > MAX_ZIP_BYTES:
        raise PackageError(f"zip larger than {MAX_ZIP_BYTES} bytes")
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise PackageError(f"not a zip file: {exc}") from None


def safe_member(info: zipfile.ZipInfo) -> PurePosixPath:
    """The member's relative path, or PackageError for anything but a plain, tame file."""
    name = info.filename
    if "\\" in name or name.startswith("/") or ":" in name or "\0" in name:
        raise PackageError(f"unsafe path in zip: {name!r}")
    mode = (info.external_attr >> 16) & 0o170000
    if mode not in (0, 0o100000, 0o040000):  # only regular files and folders; no links
        raise PackageError(f"not a regular file in zip: {name!r}")
    path = PurePosixPath(name)
    parts = path.parts
    if not parts or any(part in ("", ".", "..") or not PART_RE.match(part) for part in parts):
        raise PackageError(f"unsafe path in zip: {name!r}")
    return path


def checked_members(archive: zipfile.ZipFile, max_files: int = MAX_FILES) -> list[Member]:
    """Every member with its checked path (safe_member), after the caps on the number of
    entries and on the sizes the header declares (extract counts the real ones)."""
    infos = archive.infolist()
    if len(infos) > max_files:
        raise PackageError(f"more than {max_files} entries in zip")
    if sum(info.file_size for info in infos) > MAX_UNPACKED_BYTES:
        raise PackageError(f"unpacked size over {MAX_UNPACKED_BYTES} bytes")
    return [(info, safe_member(info)) for info in infos]


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The member's bytes as read (and CRC-checked) by zipfile; PackageError if damaged."""
    try:
        with archive.open(info) as src:
            while chunk := src.read(CHUNK_BYTES):
                yield chunk
    except _READ_ERRORS as exc:
        raise PackageError(
            f"the zip is damaged: {info.filename!r} cannot be read ({type(exc).__name__}: "
            f"{exc})"
        ) from None


def extract(archive: zipfile.ZipFile, members: list[Member], dest: Path) -> None:
    """Write ``members`` (each with its checked relative path, safe_member; the path says
    where under ``dest``) into ``dest``, counting the bytes really written against
    MAX_UNPACKED_BYTES. A damaged member raises PackageError; what was written so far stays
    in ``dest``, which the caller made for this and removes."""
    written = 0
    for info, path in members:
        target = dest.joinpath(*path.parts)
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as out:
            for chunk in _chunks(archive, info):
                written += len(chunk)
                if written > MAX_UNPACKED_BYTES:
                    raise PackageError(f"unpacked size over {MAX_UNPACKED_BYTES} bytes")
                out.write(chunk)
