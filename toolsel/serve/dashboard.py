"""The read-only dashboard at `/`: a static page and its assets (the package's own files),
which hold no data. The page's script reads `/readyz` and `/v1/analytics` like any client,
with the bearer token when the server has one (asked for on the page), so the dashboard adds
no data path. Served with a strict Content-Security-Policy: only this server's own scripts
and styles, connections to itself only, never framed."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

#: The dashboard's files, as `/assets/NAME`, with their media types.
ASSETS = {
    "page.css": "text/css; charset=utf-8",
    "common.js": "text/javascript; charset=utf-8",
    "vendor/chart.umd.min.js": "text/javascript; charset=utf-8",
    "charts.js": "text/javascript; charset=utf-8",
    "stats.js": "text/javascript; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
}
#: Paths the guard serves without the token (they hold no data); Host and Origin still apply.
PUBLIC_PATHS = frozenset({"/", *(f"/assets/{name}" for name in ASSETS)})

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolsel serve</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/page.css">
</head>
<body>
<noscript><p class="noscript">The dashboard draws itself with JavaScript; the same numbers
are at <code>/v1/analytics</code> and <code>/readyz</code>.</p></noscript>
<main id="app" data-page="dashboard"><p class="muted">loading…</p></main>
<script src="/assets/common.js"></script>
<script src="/assets/vendor/chart.umd.min.js"></script>
<script src="/assets/charts.js"></script>
<script src="/assets/stats.js"></script>
<script src="/assets/dashboard.js"></script>
</body>
</html>
"""


def dashboard_routes() -> APIRouter:
    from toolsel.render.html import asset

    router = APIRouter(tags=["dashboard"], include_in_schema=False)

    @router.get("/")
    async def dashboard() -> Response:
        """The dashboard page (static: it fetches its numbers itself)."""
        return Response(PAGE, media_type="text/html; charset=utf-8", headers=HEADERS)

    @router.get("/assets/{name:path}")
    async def dashboard_asset(name: str) -> Response:
        media = ASSETS.get(name)
        if media is None:
            from toolsel.serve.responses import error_response

            return error_response("no such asset", 404)
        return Response(asset(name), media_type=media, headers=HEADERS)

    return router
