"""A zip that opens but whose member does not read: one byte of the member's stored data
flipped, so its CRC-32 no longer matches (zipfile raises BadZipFile on read, not on open)."""

from __future__ import annotations

import io
import struct
import zipfile

LOCAL_HEADER_BYTES = 30  # the fixed part of a local file header (APPNOTE 4.3.7)


def zip_of(entries: dict[str, bytes]) -> bytes:
    """The entries as a zip, stored (not compressed): a flipped byte is a CRC error then,
    never a broken deflate stream."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def with_bad_crc(data: bytes, member: str) -> bytes:
    """``data`` (a stored zip) with the first byte of ``member``'s content flipped."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(member)
    assert info.compress_type == zipfile.ZIP_STORED and info.file_size > 0
    start = info.header_offset
    name_len, extra_len = struct.unpack("<HH", data[start + 26:start + 30])
    at = start + LOCAL_HEADER_BYTES + name_len + extra_len
    damaged = bytearray(data)
    damaged[at] ^= 0xFF
    with zipfile.ZipFile(io.BytesIO(bytes(damaged))) as archive:  # still opens ...
        try:
            archive.read(member)
        except zipfile.BadZipFile as exc:  # ... and fails only on read
            assert "CRC" in str(exc)
        else:
            raise AssertionError(f"{member} still reads")
    return bytes(damaged)
