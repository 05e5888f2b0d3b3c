"""Framing of messages between the grader and the runner. No torch, no Django.

One frame: ``MAGIC`` (4 bytes) + payload length (4 bytes, big-endian) + payload.
One payload: JSON length (4 bytes, big-endian) + UTF-8 JSON + raw bytes (the tensors' data,
addressed by offsets in the JSON). Nothing is ever pickled in either direction.

Part of the runner's package (copied into the sandbox image), so it imports only the
standard library.
"""

from __future__ import annotations

import json
import struct
from typing import Any, BinaryIO

MAGIC = b"TJF1"
HEADER = struct.Struct(">4sI")
JSON_LEN = struct.Struct(">I")


class FrameError(Exception):
    """Bytes on the channel are not a well-formed frame."""


def encode_frame(message: dict[str, Any], blob: bytes = b"") -> bytes:
    text = json.dumps(message, separators=(",", ":"), allow_nan=True).encode()
    payload = JSON_LEN.pack(len(text)) + text + blob
    return HEADER.pack(MAGIC, len(payload)) + payload


def parse_header(header: bytes) -> int:
    """Payload length announced by an 8-byte header."""
    if len(header) != HEADER.size:
        raise FrameError("truncated frame header")
    magic, length = HEADER.unpack(header)
    if magic != MAGIC:
        raise FrameError("bad frame magic: the channel was written to by something else")
    return int(length)


def decode_payload(payload: bytes) -> tuple[dict[str, Any], bytes]:
    if len(payload) < JSON_LEN.size:
        raise FrameError("truncated payload")
    (json_len,) = JSON_LEN.unpack_from(payload)
    end = JSON_LEN.size + json_len
    if end > len(payload):
        raise FrameError("JSON length beyond the payload")
    try:
        message = json.loads(payload[JSON_LEN.size : end])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FrameError(f"payload is not JSON: {exc}") from None
    except (RecursionError, ValueError) as exc:  # nested too deep; an integer of 5000 digits
        raise FrameError(f"payload JSON is out of bounds: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise FrameError("payload JSON is not an object")
    return message, payload[end:]


def decode_frame(frame: bytes) -> tuple[dict[str, Any], bytes]:
    """Inverse of encode_frame for one complete frame (header included)."""
    length = parse_header(frame[: HEADER.size])
    if len(frame) != HEADER.size + length:
        raise FrameError("frame length does not match its header")
    return decode_payload(frame[HEADER.size :])


def read_frame(stream: BinaryIO, max_bytes: int) -> bytes | None:
    """Read one whole frame from a blocking stream; None at a clean end of stream."""
    header = _read_exact(stream, HEADER.size)
    if header is None:
        return None
    length = parse_header(header)
    if length > max_bytes:
        raise FrameError(f"frame of {length} bytes exceeds the cap of {max_bytes}")
    payload = _read_exact(stream, length)
    if payload is None:
        raise FrameError("stream ended inside a frame")
    return header + payload


def _read_exact(stream: BinaryIO, n: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            if remaining == n:
                return None
            raise FrameError("stream ended inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
