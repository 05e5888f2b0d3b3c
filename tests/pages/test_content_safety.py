"""Authors' HTML passes an allow-list (judge_site/catalog/sanitize.py): statements and solution
notes keep their Markdown, math and code, and lose anything that runs, posts, redirects or
covers the page."""

from __future__ import annotations

import html as html_module
import re
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from judge_cast import make_problem

from judge_site.catalog import selectors
from judge_site.catalog.sanitize import clean_html
from judge_site.catalog.templatetags.judge_markdown import render_statement

HOSTILE = """# Heading

Text with $a_1 + b^2$ and a [link](https://example.org/doc) and ![figure](figure.png).

$$\\frac{1}{2}$$

| left | right |
|:-----|------:|
| 1    | 2     |

```python
def f(x):
    return x  # <script>kept as text</script>
```

<script>alert("statement")</script>
<img src="x.png" onerror="alert(1)">
<a href="javascript:alert(2)">click</a> <a href="JaVaScRiPt:alert(3)">again</a>
<form action="/accounts/password/" method="post"><input name="new_password1"><button>Go</button></form>
<meta http-equiv="refresh" content="0; url=https://evil.example/">
<div style="position:fixed;top:0;left:0;width:100%;height:100%;z-index:9999">overlay</div>
<style>body { display: none }</style>
<iframe src="https://evil.example/"></iframe>
<svg onload="alert(4)"><circle r="5"/></svg>
<span class="math inline" id="run-btn">fake</span>
![remote](https://evil.example/track.png) ![inline](javascript:alert(5))
"""

GONE = ["<script", "onerror", "javascript:", "<form", "<input", "<button", "<meta", "style=",
        "<style", "<iframe", "<svg", "onload", "position:fixed", "evil.example",
        'id="run-btn"', "body { display: none }", 'alert("statement")']
KEPT = ["<h1>Heading</h1>", '<span class="math inline">a_1 + b^2</span>',
        '<div class="math display">\\frac{1}{2}</div>', '<th align="left">left</th>',
        '<td align="right">2</td>', 'href="https://example.org/doc"', 'src="figure.png"',
        '<div class="highlight">', '<span class="k">def</span>',
        "&lt;script&gt;kept as text&lt;/script&gt;"]


def test_the_allow_list_keeps_markdown_math_and_code_and_drops_the_rest() -> None:
    html = render_statement(HOSTILE)
    for text in GONE:
        assert text not in html, text
    for text in KEPT:
        assert text in html, text


@pytest.mark.django_db
def test_a_hostile_statement_and_notes_are_cleaned_on_the_page(
    client: Any, alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_problem(48, statement_md=HOSTILE)
    monkeypatch.setattr(selectors, "solution_notes",
                        lambda user, problem: "Notes: $x$\n\n<script>alert('notes')</script>"
                                              "<a href='javascript:x()'>j</a>")
    client.force_login(alice)
    page = client.get("/problems/48/").content.decode()
    statement = page[page.index("<h1>Heading</h1>"):page.index("Problem version")]
    for text in GONE + ["alert('notes')"]:
        assert text not in statement, text
    assert '<span class="math inline">x</span>' in page and 'id="solution-notes"' in page


@pytest.mark.parametrize("url", [
    "/\\evil.example/x.png",  # a backslash is a slash to a browser: //evil.example
    "\\\\evil.example/x.png",
    "/&#92;evil.example/x.png",  # the same, as an entity
    "/\t/evil.example/x.png",  # a tab is dropped: //evil.example
    "/&Tab;/evil.example/x.png",
    "/&NewLine;/evil.example/x.png",
    " //evil.example/x.png",  # a leading space is dropped
    "//evil.example/x.png",  # protocol-relative: another host
    "https:\\\\evil.example/x.png",
], ids=["slash backslash", "two backslashes", "backslash entity", "tab", "tab entity",
        "newline entity", "leading space", "protocol-relative", "scheme and backslashes"])
def test_a_url_that_a_browser_reads_as_another_host_is_dropped(url: str) -> None:
    raw = f'<img src="{url}" alt="i"> <a href="{url}">link</a>'
    assert "evil.example" not in clean_html(raw)
    assert "link" in clean_html(raw)  # the text stays, the URL goes
    html = render_statement(f"{raw}\n\n![md]({url.strip()}) [md link]({url.strip()})\n")
    urls = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert [u for u in urls if _host_seen_by_a_browser(u) != SITE] == [], html
    assert "md link" in html


SITE = "judge.example"


def _host_seen_by_a_browser(url: str) -> str:
    """The host a browser on a page of SITE loads ``url`` from (the WHATWG URL parser's
    reading: C0 controls and spaces at the ends and tabs/newlines anywhere dropped, a
    backslash read as a slash)."""
    url = html_module.unescape(url).strip("".join(map(chr, range(0x21))))
    url = re.sub(r"[\t\n\r]", "", url).replace("\\", "/")
    return urlsplit(urljoin(f"https://{SITE}/problems/48/", url)).hostname or ""


def test_the_sites_own_paths_and_inline_images_stay() -> None:
    kept = ["/static/judge/figure.png", "figure.png", "./figure.png", "../figure.png",
            "/%5Cnot-a-host/figure.png", "data:image/png;base64,iVBORw0KGgo="]
    html = render_statement("\n\n".join(f"![f]({url})" for url in kept)
                            + '\n\n[doc](https://example.org/doc) [here](#sec)\n')
    for url in kept:
        assert f'src="{url}"' in html, url
    assert 'href="https://example.org/doc"' in html and 'href="#sec"' in html
    assert render_statement("%2F%5Cevil.example").count("evil.example") == 1  # text, not a URL
