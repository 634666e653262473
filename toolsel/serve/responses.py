"""The service's two response shapes: a JSON document, and `{"error": ..., "status": N}`."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response


def json_response(
    payload: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response serialised by orjson (FastAPI's default encoder walks every value
    first, which costs more than the ranking on a small registry)."""
    return Response(
        _dumps(payload), status_code=status, media_type="application/json", headers=headers
    )


def _dumps(payload: Any) -> bytes:
    import orjson

    try:
        return orjson.dumps(payload)
    except TypeError:  # an integer beyond 64 bits: the standard library writes it exactly
        import json

        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def error_response(message: str, status: int) -> Response:
    """The one error shape of every route; a 503 tells the client when to try again."""
    headers = {"Retry-After": "1"} if status == 503 else None
    return json_response({"error": message, "status": status}, status, headers)
