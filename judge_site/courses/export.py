"""The grade export: one CSV row per student, safe to open in a spreadsheet.

UTF-8 with a byte order mark (Excel reads it as UTF-8 then); a text cell that a spreadsheet
would take for a formula (starting with = + - @, or a tab or carriage return) is written with a
leading apostrophe, so ``=HYPERLINK(...)`` in a title or a username stays text.

The ``email`` column holds only what the student let the course have
(``Membership.email_for_instructors``): the address the instructor's roster invited them at,
once they accepted, or their account's address if they agreed to share it; else it is empty.
The rows are the course's students (who joined or accepted), never invited accounts.

After those columns, two per exam or contest of the course (issue 40), in the order they open:
``<title> / solved`` and ``<title> / penalty`` (ICPC minutes, judge_site/courses/scoreboard.py,
the live board); both empty for a student who never started it.
"""

from __future__ import annotations

import csv
import io

from judge_site.courses.grading import Gradebook, fmt_credit
from judge_site.courses.scoreboard import Board

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> str:
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def grades_csv(book: Gradebook, boards: list[Board] | None = None) -> str:
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out)
    header = ["username", "email"]
    for assignment in book.assignments:
        for problem in assignment.problem_list:  # type: ignore[attr-defined]
            header.append(f"{assignment.title} / {problem.number} {problem.slug}")
        header.append(f"{assignment.title} / total")
    header += ["total", "late"]
    for board in boards or []:
        header += [f"{board.exam.title} / solved", f"{board.exam.title} / penalty"]
    results = [{r.user_id: r for r in board.rows} for board in boards or []]
    writer.writerow([safe_cell(h) for h in header])
    for row in book.rows:
        cells = iter(row.cells)
        line = [row.user.get_username(), row.membership.email_for_instructors]
        for assignment in book.assignments:
            for _ in assignment.problem_list:  # type: ignore[attr-defined]
                line.append(fmt_credit(next(cells).credit))
            line.append(fmt_credit(row.totals[assignment.pk]))
        line.append(fmt_credit(row.total))
        line.append(
            "; ".join(
                f"{c.column.assignment.title} / {c.column.problem.number}" for c in row.late_cells
            )
        )
        for found in results:
            took = found.get(row.membership.user_id)
            line += [str(took.solved), str(took.penalty)] if took else ["", ""]
        writer.writerow([safe_cell(v) for v in line])
    return out.getvalue()
