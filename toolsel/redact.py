"""The one redaction path for what toolsel shows or writes (messages, listings of live
servers, lockfiles, HTML, SARIF, logs): a value that may be a credential is shown as `***`,
or in free text as the placeholder `toolsel.secrets` gives it (`<github-token>`); personal
data is kept. A `${VAR}` is never expanded for display: what a config says is what is shown."""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"

#: Words of a name (a flag, a query key, a variable, a header) that say its value is a
#: credential; `key` counts as the name's last word (`api_key`, `X-API-Key`, `--key`).
_CREDENTIAL_WORDS = frozenset(
    "password passwd passphrase pass pwd secret secrets token tokens apikey auth "
    "authorization credential credentials cookie sig signature bearer session".split()
)
#: A whole value that only names where a credential is: `${VAR}`, `$VAR`, `%VAR%`.
_REFERENCE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%")


def credential_name(name: str) -> bool:
    """Does `name` (a flag, a query key, a variable, a header) name a credential?"""
    words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", name) if w]
    return bool(words) and (words[-1] == "key" or any(w in _CREDENTIAL_WORDS for w in words))


def mask_text(text: str) -> str:
    """`text` with every secret a detector finds replaced by its placeholder."""
    from toolsel.secrets import mask_secrets

    return mask_secrets(text)


def _masked_value(value: str) -> str:
    return value if not value or _REFERENCE.fullmatch(value) else MASK


def mask_url(url: str, *, password_to_last_at: bool = False) -> str:
    """`url` with its password and its credential query values shown as `***`. With
    `password_to_last_at` (a database URL, whose password may hold `/` and `@`), the user
    part runs to the URL's last `@`."""
    head, sep, rest = url.partition("://")
    if not sep:
        return mask_text(url)
    end = _authority_end(rest)
    if password_to_last_at and "@" in rest:
        end = max(end, rest.rfind("@") + 1)
    authority, rest = rest[:end], rest[end:]
    at = authority.rfind("@")
    if at >= 0:
        user, colon, password = authority[:at].partition(":")
        if colon:
            authority = f"{user}:{_masked_value(password)}{authority[at:]}"
    path, question, query = rest.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        pairs = []
        for pair in query.split("&"):
            key, equals, value = pair.partition("=")
            secret = equals and (credential_name(key) or mask_text(value) != value)
            pairs.append(f"{key}={_masked_value(value)}" if secret else pair)
        rest = f"{mask_text(path)}?{'&'.join(pairs)}{hash_}{mask_text(fragment)}"
    else:
        rest = mask_text(rest)
    return f"{head}{sep}{authority}{rest}"


def _authority_end(rest: str) -> int:
    """Where a URL's authority (after `scheme://`) ends: its first `/`, `?` or `#`. A
    password may hold `@`, so the user part runs to the authority's last `@`."""
    ends = [i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0]
    return min(ends) if ends else len(rest)


#: libpq's keyword form: `password=secret`, `password = 'it''s'`.
_CONNINFO_PASSWORD = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.|'')*'|\S*)")


def mask_conninfo(dsn: str) -> str:
    """A PostgreSQL connection string, URL or keyword form, with its password masked."""
    if "://" in dsn:
        return mask_url(dsn, password_to_last_at=True)
    return mask_text(_CONNINFO_PASSWORD.sub(lambda m: m[1] + MASK, dsn))


def mask_argv(argv: Iterable[str]) -> tuple[str, ...]:
    """A command line with credentials masked: the word after `--token`, the value of
    `--token=X` or `TOKEN=X`, URLs' passwords, and secrets inside any word."""
    shown: list[str] = []
    after_flag = False
    for word in argv:
        flag_value, after_flag = after_flag and not word.startswith("-"), False
        name, equals, value = word.partition("=")
        if flag_value:
            shown.append(_masked_value(word))
        elif equals and credential_name(name) and " " not in name:
            shown.append(f"{name}={_masked_value(value)}")
        elif word.startswith("-") and credential_name(word):
            shown.append(word)
            after_flag = True
        elif "://" in word:
            shown.append(mask_url(word))
        else:
            shown.append(mask_text(word))
    return tuple(shown)


def mask_known(text: str, secrets: Iterable[str]) -> str:
    """`text` (a server's stderr, an error) with each of `secrets` (values toolsel itself
    passed on: an environment, headers, a token) replaced by `***`, then `mask_text`."""
    for secret in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return mask_text(text)
