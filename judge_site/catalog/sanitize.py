"""The allow-list every author's HTML passes before a page shows it (statements, solution
notes): what Markdown, the math slots and Pygments produce, nothing else.

Authors are staff, but a package is also something downloaded from anyone, and an account can be
taken over: a statement must not run script (``<script>``, ``onerror=``, ``javascript:``), post
forms, redirect (``<meta http-equiv=refresh>``) or cover the page (``style``, ``position:
fixed``). The CSP already refuses inline script; this also removes what the CSP lets through.
Kept: headings, paragraphs, lists, tables (alignment as ``align``), links (http, https, mailto,
relative), images from the site itself or inline ``data:image/...`` (the CSP's img-src), code
blocks with Pygments' classes, and the math slots KaTeX typesets. A link or image whose URL a
browser would read otherwise than it looks (a backslash, a control character, ``//host``) is
dropped: ``<img src="/\\evil.example/x.png">`` loads from another host.
"""

from __future__ import annotations

import re

import nh3
from pygments.token import STANDARD_TYPES

TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p",
    "pre", "s", "samp", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "tr", "ul", "var",
}
ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
}
# Classes only from the renderer: Pygments' token classes in code blocks, the math slots.
_PYGMENTS = {name for name in STANDARD_TYPES.values() if name}
CLASSES = {
    "span": _PYGMENTS | {"math", "inline"},
    "div": {"highlight", "math", "display"},
    "code": {"language-python", "language-text", "language-bash", "language-toml"},
}
# A path on this site: "/x" (never "//x", another host), "./x", "../x" or "x/...".
_SITE_PATH = re.compile(r"^(?:/(?!/)|\.{1,2}/|[\w.-]+(?:/|$))", re.ASCII)
_DATA_IMAGE = re.compile(r"^data:image/(?:png|gif|jpeg|webp);base64,[A-Za-z0-9+/=\s]*$")
# What a browser reads differently from how it looks (the WHATWG URL parser): "\" is "/" in an
# http(s) URL, so "/\evil.example" and "\\evil.example" are "//evil.example", another host; tabs
# and newlines anywhere are dropped ("/<TAB>/evil.example"), and so are C0 controls and spaces
# at either end (" //evil.example"). A URL holding any of them is refused, not guessed at.
_MISREAD = re.compile(r"[\x00-\x1f\x7f\\]|^ | $")


def _url_refused(value: str) -> bool:
    """Whether an href or src is refused whatever its tag: read otherwise by a browser (see
    _MISREAD), or protocol-relative ("//host/...": a link off the site that looks like a path;
    an author writes https:// for that)."""
    return bool(_MISREAD.search(value)) or value.startswith("//")


def _attribute(tag: str, name: str, value: str) -> str | None:
    if tag == "img" and name == "src":
        if _DATA_IMAGE.match(value):  # inline: no host to reach (its base64 may wrap lines)
            return value
        ok = _SITE_PATH.match(value) and ":" not in value and not _url_refused(value)
        return value if ok else None
    if name == "href" and _url_refused(value):
        return None
    if tag == "a" and name == "href" and value.lower().startswith("data:"):
        return None
    if name in ("width", "height") and not value.isdigit():
        return None
    return value


_CLEANER = nh3.Cleaner(
    tags=TAGS,
    clean_content_tags={"script", "style", "template", "noscript", "iframe", "object", "svg",
                        "math", "textarea", "select", "title"},
    attributes=ATTRIBUTES,
    allowed_classes=CLASSES,
    attribute_filter=_attribute,
    url_schemes={"http", "https", "mailto", "data"},
    link_rel="noopener noreferrer nofollow",
    strip_comments=True,
)


def clean_html(html: str) -> str:
    """``html`` with everything outside the allow-list removed (text of removed tags kept,
    except in script-like containers, which go with their content)."""
    return _CLEANER.clean(html)
