"""The result page against the machine's limits: each shape's time, speedup and % of the speed
of light, and the roofline picture drawn on the server (inline SVG, no script)."""

from __future__ import annotations

from test_judge_pages import GOOD, login

from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission
from judge_site.submissions.roofline import roofline, shape_rows

PEAK = {
    "memory_gbps": 20.0,
    "gflops": 100.0,
    "measured_at": "2026-12-03T09:00:00+00:00",
    "memory_curve": [[1048576, 80.0], [134217728, 20.0]],
    "source": "measured",
}
MANIFEST = {
    "limits": {"time_s": 5, "memory_mib": 1024},
    "benchmark": {
        "shapes": [
            {"name": "gather", "cost": {"params": {"N": 1024}, "bytes": "8 * N * 256", "flops": "0"}},
            {"name": "product", "cost": {"params": {"n": 512}, "bytes": "12 * n * n", "flops": "2 * n ** 3"}},
        ]
    },
}
SHAPES = [
    {"name": "gather", "submission_ms": 0.5, "baseline_ms": 1.0, "speedup": 2.0,
     "sol_ms": 0.1, "sol_fraction": 0.2, "bound": "memory"},
    {"name": "product", "submission_ms": 10.0, "baseline_ms": 5.0, "speedup": 0.5,
     "sol_ms": 2.5, "sol_fraction": 0.25, "bound": "compute"},
]
BENCH = {"speedup": 1.0, "submission_ms": 10.5, "baseline_ms": 6.0, "shapes": SHAPES}


def test_the_result_shows_each_shape_and_the_roofline(client, alice, problem, inline_judging):
    problem.manifest = MANIFEST
    problem.save(update_fields=["manifest"])
    sub = services.submission_create(alice, problem, GOOD, "submit")
    Submission.objects.filter(pk=sub.pk).update(
        status=Status.DONE, verdict="AC", benchmark=BENCH, environment={"peak": PEAK}
    )
    page = login(client, alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert "% of speed of light" in page and page.count('class="shape-row"') == 2
    assert "20.0 %" in page and "25.0 %" in page and "0.50×" in page
    assert '<svg class="roofline"' in page and page.count('class="point ') == 2  # the product
    assert "Data movement only, not on the roofline: gather." in page
    assert "100 GFLOP/s" in page and "measured in the baseline's sandbox" in page
    assert "<script" not in page.split('<svg class="roofline"')[1].split("</svg>")[0]


def test_the_points_sit_under_the_roofs() -> None:
    drawn = roofline(BENCH, {"peak": PEAK}, MANIFEST)
    assert drawn is not None
    compute = drawn["roofs"][-1]
    for point in drawn["points"]:  # y grows downwards: under a roof is a larger y
        assert point["y"] >= compute["y1"]
    assert [r["cls"] for r in drawn["roofs"]] == ["roof", "roof cache", "roof"]


def test_a_result_without_limits_or_shapes_draws_nothing() -> None:
    assert roofline(BENCH, {}, MANIFEST) is None
    assert roofline(None, {"peak": PEAK}, MANIFEST) is None
    assert shape_rows({"speedup": 1.0}) == []
    assert shape_rows(BENCH)[1]["sol_percent"] == 25.0
