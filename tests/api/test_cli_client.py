"""python -m judge_site.cli against a live server (the judging is the fake engine, inline)."""

from __future__ import annotations

import pytest
from judge_cast import token_for

from judge_site import cli

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_submits_prints_progress_and_exits_0_on_ac(
    live_server, alice, problem, inline_judging, tmp_path, capsys
):
    source = tmp_path / "mine.py"
    source.write_text("def embed(ids, weight, pad_id):\n    return weight[ids]\n")
    argv = ["--url", live_server.url, "--token", token_for(alice), "submit", "48", str(source)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "queued" in out and "public_small" in out and "hidden_1" in out
    assert "verdict: AC" in out and "speedup: 2.50x" in out


def test_it_exits_1_on_a_wrong_answer(
    live_server, alice, problem, inline_judging, tmp_path, capsys
):
    source = tmp_path / "wrong.py"
    source.write_text("# WRONG\n")
    argv = ["--url", live_server.url, "--token", token_for(alice), "submit", "problem-48"]
    assert cli.main([*argv, str(source), "--mode", "run"]) == 1
    assert "verdict: WA" in capsys.readouterr().out


def test_it_exits_2_with_the_servers_message(live_server, alice, problem, tmp_path, capsys):
    source = tmp_path / "empty.py"
    source.write_text("")
    argv = ["--url", live_server.url, "--token", token_for(alice), "submit", "48", str(source)]
    assert cli.main(argv) == 2
    assert "HTTP 400: code: code is empty" in capsys.readouterr().err


def test_it_exits_2_when_the_judge_is_unreachable(tmp_path, capsys):
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    assert (
        cli.main(["--url", "http://127.0.0.1:9", "--token", "t", "submit", "1", str(source)]) == 2
    )
    assert "cannot reach" in capsys.readouterr().err
