"""RFC 6901 JSON pointers: how every finding names the node it is about."""

from __future__ import annotations


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + escape_token(str(t)) for t in tokens)


def split_pointer(pointer: str) -> list[str]:
    return [unescape_token(t) for t in pointer.split("/")[1:]] if pointer else []
