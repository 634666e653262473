"""Self-contained HTML pages (`replay --format html`, `stats --format html`) and the
dashboard `toolsel serve` answers at `/`.

The rules every page keeps, so a hostile transcript runs nothing:

- data never becomes markup: it travels as JSON in a `<script type="application/json">`
  block (every `<`, `>` and `&` escaped, so no text can close the block), read with
  `JSON.parse`, and the page's script puts it on screen with `textContent` only;
- the only scripts and styles are the package's own files under `assets/`, inlined and
  allowed by their sha256 in a strict Content-Security-Policy (`default-src 'none'`): no
  network request, no inline handler, no `javascript:` URL can run;
- nothing is fetched: no CDN, no font, no image from outside.
"""

from __future__ import annotations

import base64
import hashlib
import html
from functools import cache
from importlib import resources
from typing import Any

#: The page skeleton; $-fields are filled by `page()` (each escaped or hashed there).
TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="toolsel {version}">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<noscript><p class="noscript">This report draws itself with JavaScript; the same numbers are
in <code>toolsel {command} --format json</code>.</p></noscript>
<main id="app" data-page="{kind}"></main>
<script type="application/json" id="toolsel-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""


@cache
def asset(name: str) -> str:
    """One of the package's own page assets (`assets/NAME`; NAME may be `vendor/FILE`)."""
    return (
        resources.files(__package__)
        .joinpath("assets", *name.split("/"))
        .read_text(encoding="utf-8")
    )


def script_json(data: Any) -> str:
    """JSON that can sit inside a `<script>` element: `<`, `>` and `&` are written as
    `\\u003c` and so on (the same value to `JSON.parse`), so no string can end the block
    or open a comment; U+2028/9 are escaped too."""
    import orjson

    text = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    for char in "&<>\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def source_hash(text: str) -> str:
    """A CSP hash source for an inline script or style."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def content_security_policy(js: str, css: str) -> str:
    """Nothing may load or connect; only this page's own script and style may run."""
    return (
        f"default-src 'none'; script-src {source_hash(js)}; style-src {source_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def page(*, kind: str, title: str, command: str, data: Any, scripts: tuple[str, ...]) -> str:
    """A whole self-contained page: the shared style, `scripts` (asset names, in order)
    and `data` for them to draw."""
    from toolsel import __version__

    css = asset("page.css")
    js = "\n".join(asset(name) for name in scripts)
    return TEMPLATE.format(
        csp=html.escape(content_security_policy(js, css)),
        version=html.escape(__version__),
        title=html.escape(title),
        command=html.escape(command),
        kind=html.escape(kind),
        css=css,
        data=script_json(data),
        js=js,
    )
