"""The service's two response shapes: a JSON document, and `{"error": ..., "status": N}`
(with `"reason"` for a refusal programs tell apart)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response


def json_response(
    payload: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response serialised by orjson (FastAPI's default encoder walks every value
    first, which costs more than the ranking on a small registry)."""
    from toolsel.jsontext import dumps  # exact for integers beyond 64 bits too

    return Response(
        dumps(payload), status_code=status, media_type="application/json", headers=headers
    )


def error_response(message: str, status: int, reason: str | None = None) -> Response:
    """The one error shape of every route, with `reason` when the refusal has one; a 503
    tells the client when to try again."""
    headers = {"Retry-After": "1"} if status == 503 else None
    body: dict[str, Any] = {"error": message, "status": status}
    if reason is not None:
        body["reason"] = reason
    return json_response(body, status, headers)
