"""No reply of the student's sandbox ends in IE: every malformed or hostile frame is the
student's RE (or OLE, for a reply too large), never an exception that escapes the grader. The
two frames that escaped before (a reply nested 50,000 levels deep; a ``printed`` count of 5000
digits) and a Hypothesis fuzz of the frame decoder and of the session's request."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.grader.contracts import Verdict
from sandbox.grader.session import Fault, Session
from sandbox.host.backends.base import Sandbox, SandboxExit
from sandbox.runner import framing


def _frame_of_json(text: bytes, blob: bytes = b"") -> bytes:
    payload = framing.JSON_LEN.pack(len(text)) + text + blob
    return framing.HEADER.pack(framing.MAGIC, len(payload)) + payload


class ReplyBox(Sandbox):
    """A sandbox whose runner answers every request with one fixed frame."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply

    def send(self, frame: bytes, op: str = "") -> None:
        pass

    def recv(self, timeout_s: float) -> bytes:
        return self.reply

    def close(self) -> SandboxExit:
        return SandboxExit(0, False, False, "", False)

    @property
    def environment(self) -> dict[str, str]:
        return {"backend": "fake"}


def _verdict_of(reply: bytes) -> Verdict | None:
    """The verdict a test gets when the runner answers ``reply`` (None: a normal reply)."""
    session = Session(ReplyBox(reply), 64)
    try:
        answer, blob = session.request({"op": "call"}, 1.0, "test t")
        session.value(answer, blob, "obs")
    except Fault as fault:
        return fault.verdict
    return None


def test_a_reply_nested_fifty_thousand_levels_deep_is_re() -> None:
    text = b'{"ok":true,"printed":0,"obs":' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    assert _verdict_of(_frame_of_json(text)) == Verdict.RE


def test_a_printed_count_of_five_thousand_digits_is_re() -> None:
    text = b'{"ok":true,"printed":' + b"9" * 5000 + b',"obs":null}'
    assert _verdict_of(_frame_of_json(text)) == Verdict.RE


def test_a_value_nested_too_deep_inside_valid_json_is_re() -> None:
    deep = b'{"list":[' * 3000 + b"1" + b"]}" * 3000
    text = b'{"ok":true,"printed":0,"obs":{"kind":"return","value":' + deep + b"}}"
    assert _verdict_of(_frame_of_json(text)) in (Verdict.RE, Verdict.OLE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_the_frame_decoder_raises_only_frame_errors(data: bytes) -> None:
    for raw in (data, framing.HEADER.pack(framing.MAGIC, len(data)) + data):
        try:
            framing.decode_frame(raw)
        except framing.FrameError:
            pass


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    obs=_json,
    printed=st.one_of(st.integers(), _json),
    ok=st.one_of(st.just(True), _json),
    blob=st.binary(max_size=64),
    depth=st.integers(min_value=0, max_value=3000),
    digits=st.integers(min_value=1, max_value=6000),
)
def test_no_reply_escapes_the_session_as_anything_but_a_verdict(
    obs: object, printed: object, ok: object, blob: bytes, depth: int, digits: int
) -> None:
    replies = [
        json.dumps({"ok": ok, "printed": printed, "obs": obs}).encode(),
        b'{"ok":true,"printed":0,"obs":' + b"[" * depth + b"]" * depth + b"}",
        b'{"ok":true,"printed":' + b"1" * digits + b',"obs":{"kind":"return","value":' + b"7" * digits + b"}}",
        b'{"ok":true,"printed":0,"obs":{"kind":"return","value":{"__tensor__":' + json.dumps(obs).encode() + b"}}}",
    ]
    for text in replies:
        verdict = _verdict_of(_frame_of_json(text, blob))
        assert verdict in (None, Verdict.RE, Verdict.OLE, Verdict.MLE), (text[:80], verdict)
    # A frame whose announced length lies about its payload.
    bad = _frame_of_json(replies[0], blob)
    assert _verdict_of(bad[:-1] if len(bad) > 12 else bad + b"x") in (Verdict.RE, Verdict.OLE)
