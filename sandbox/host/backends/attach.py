"""Docker's attach stream, demultiplexed: pure bytes in, runner frames and a stderr tail out.

On a container attached without a TTY, Docker multiplexes stdout and stderr on one socket with
an 8-byte header per chunk (stream id, 3 zero bytes, big-endian size). stdout carries the
runner's frames (sandbox/runner/framing.py); stderr is kept as a bounded tail for diagnostics and
counted (the output limit). Nothing here touches a socket: the Docker sandbox feeds it what it
reads, so the layout is unit-tested without an engine (tests/sandbox/test_attach_stream.py)."""

from __future__ import annotations

import collections
import struct

from sandbox.runner.framing import HEADER, parse_header

MUX_HEADER = struct.Struct(">BxxxI")
STDOUT, STDERR = 1, 2
TAIL_BYTES = 8 * 1024


class FrameOverLimit(Exception):
    """A frame header announced more bytes than the limit allows."""

    def __init__(self, length: int) -> None:
        super().__init__(f"frame of {length} bytes")
        self.length = length


class AttachStream:
    """The undemultiplexed bytes, the runner's stdout not yet taken as frames, and stderr."""

    def __init__(self, max_frame: int, tail_bytes: int = TAIL_BYTES) -> None:
        self.max_frame = max_frame
        self.tail_bytes = tail_bytes
        self.heard = False  # the runner's first stdout bytes arrived
        self.stderr_total = 0
        self._mux = bytearray()
        self._stdout = bytearray()
        self._tail: collections.deque[bytes] = collections.deque()
        self._tail_len = 0

    def pending(self) -> bool:
        """Whether any byte was read and not yet taken as a frame."""
        return bool(self._stdout or self._mux)

    def feed(self, chunk: bytes) -> None:
        """Add bytes read from the socket; complete chunks go to stdout or the stderr tail."""
        mux = self._mux
        mux += chunk
        while len(mux) >= MUX_HEADER.size:
            stream, size = MUX_HEADER.unpack_from(mux)
            if len(mux) < MUX_HEADER.size + size:
                break
            data = bytes(mux[MUX_HEADER.size : MUX_HEADER.size + size])
            del mux[: MUX_HEADER.size + size]
            if stream == STDOUT:
                self.heard = True
                self._stdout += data
            elif stream == STDERR:
                self.stderr_total += len(data)
                self._tail.append(data)
                self._tail_len += len(data)
                while self._tail_len - len(self._tail[0]) >= self.tail_bytes:
                    self._tail_len -= len(self._tail.popleft())

    def take_frame(self) -> bytes | None:
        """One complete frame (header included), or None while more bytes are needed.
        Raises FrameError for a bad header, FrameOverLimit for one above ``max_frame``."""
        buf = self._stdout
        if len(buf) < HEADER.size:
            return None
        length = parse_header(bytes(buf[: HEADER.size]))
        if length > self.max_frame:
            raise FrameOverLimit(length)
        end = HEADER.size + length
        if len(buf) < end:
            return None
        with memoryview(buf) as view:  # one copy of a possibly large frame, not two
            frame = bytes(view[:end])
        del buf[:end]
        return frame

    def stderr_tail(self) -> str:
        """The last ``tail_bytes`` or so of stderr, decoded leniently."""
        return b"".join(self._tail).decode("utf-8", "replace")
