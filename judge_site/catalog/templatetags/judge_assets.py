"""Tags for the self-hosted front-end libraries in static/vendor/ (see scripts/build_assets).

They are optional: when ``scripts/build_assets`` has not run, the tags emit nothing and the
pages fall back to a plain textarea and TeX source (a missing file would otherwise make the
manifest storage raise in production).
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.templatetags.static import static
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

BUNDLES: dict[str, tuple[list[str], list[str]]] = {
    # name: (stylesheets, scripts), in load order
    "katex": (["vendor/katex/katex.min.css"], ["vendor/katex/katex.min.js"]),
    "codemirror": (
        ["vendor/codemirror/codemirror.css"],
        [
            "vendor/codemirror/codemirror.js",
            "vendor/codemirror/mode/python/python.js",
            "vendor/codemirror/mode/clike/clike.js",
            "vendor/codemirror/addon/edit/matchbrackets.js",
            "vendor/codemirror/addon/edit/closebrackets.js",
        ],
    ),
}


@lru_cache(maxsize=32)
def _url(path: str) -> str | None:
    if finders.find(path) is None and not staticfiles_storage.exists(path):
        return None
    try:
        return static(path)
    except ValueError:  # not in the manifest (collectstatic ran before build_assets)
        return None


def _urls(paths: list[str]) -> list[str] | None:
    urls = [_url(p) for p in paths]
    return None if any(u is None for u in urls) else [u for u in urls if u]


@register.simple_tag
def vendor_css(name: str) -> SafeString:
    urls = _urls(BUNDLES[name][0]) or []
    return format_html_join("", '<link rel="stylesheet" href="{}">', ((u,) for u in urls))


@register.simple_tag
def vendor_js(name: str) -> SafeString:
    css, js = BUNDLES[name]
    urls = _urls(js)
    if urls is None or _urls(css) is None:
        return format_html("<!-- {} not built: run scripts/build_assets -->", name)
    return format_html_join("", '<script src="{}"></script>', ((u,) for u in urls))
