"""Docker's attach stream demultiplexed without an engine (sandbox/host/backends/attach.py)."""

from __future__ import annotations

import pytest

from sandbox.host.backends.attach import MUX_HEADER, STDERR, STDOUT, AttachStream, FrameOverLimit
from sandbox.runner.framing import HEADER, MAGIC, FrameError


def chunk(stream: int, data: bytes) -> bytes:
    return MUX_HEADER.pack(stream, len(data)) + data


def frame(payload: bytes) -> bytes:
    return HEADER.pack(MAGIC, len(payload)) + payload


def test_a_frame_split_across_chunks_and_reads_comes_out_whole() -> None:
    stream = AttachStream(max_frame=1 << 20)
    data = frame(b'{"op": "hello"}')
    wire = chunk(STDOUT, data[:5]) + chunk(STDOUT, data[5:])
    assert not stream.heard
    for i in range(0, len(wire), 3):  # three bytes a read: headers cut anywhere
        assert stream.take_frame() is None or i >= len(wire)
        stream.feed(wire[i : i + 3])
    assert stream.heard
    assert stream.take_frame() == data
    assert stream.take_frame() is None and not stream.pending()


def test_stderr_is_counted_and_only_its_tail_kept() -> None:
    stream = AttachStream(max_frame=1 << 20, tail_bytes=10)
    for i in range(5):
        stream.feed(chunk(STDERR, f"line {i}\n".encode()))
    assert stream.stderr_total == 35
    assert stream.stderr_tail().endswith("line 4\n")
    assert "line 0" not in stream.stderr_tail()
    assert not stream.heard and stream.take_frame() is None  # stderr is no frame


def test_two_frames_in_one_chunk_come_out_in_order() -> None:
    stream = AttachStream(max_frame=1 << 20)
    first, second = frame(b"[1]"), frame(b"[2, 3]")
    stream.feed(chunk(STDOUT, first + second))
    assert stream.take_frame() == first
    assert stream.take_frame() == second


def test_a_frame_over_the_limit_is_refused_before_its_bytes_arrive() -> None:
    stream = AttachStream(max_frame=100)
    stream.feed(chunk(STDOUT, frame(b"x" * 101)[: HEADER.size]))
    with pytest.raises(FrameOverLimit) as err:
        stream.take_frame()
    assert err.value.length == 101


def test_garbage_instead_of_a_header_is_a_frame_error() -> None:
    stream = AttachStream(max_frame=1 << 20)
    stream.feed(chunk(STDOUT, b"\xff" * (HEADER.size + 4)))
    with pytest.raises(FrameError):
        stream.take_frame()
