"""The secret detectors shared by lint (TS704) and `toolsel learn`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.secrets import _ANY, DETECTORS, looks_secret, secret_kind

LEAKS = {
    "a private key": "-----BEGIN RSA PRIVATE KEY----- MIIE",
    "an OpenAI or Anthropic API key": "use sk-ant-abcdefghijklmnopqrstuvwx please",
    "a GitHub token": "token ghp_abcdefghijklmnopqrstuvwxyz0123",
    "an AWS access key": "key AKIAABCDEFGHIJKLMNOP here",
    "a Slack token": "xoxb-1234567890-abcdef",
    "a Google API key": "AIza" + "B" * 35,
    "a JSON Web Token": "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.abcdefgh",
    "a bearer token": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
    "a password": "my password\x0b:\x1chunter22 ok",  # Python's \s: \v and \x1c count
    "an e-mail address": "mail jane.doe@example.com now",
    "a long run of digits": "card 4111 1111 1111 1111",
    "a long random-looking token": "id 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee",
}


@pytest.mark.parametrize(("kind", "text"), sorted(LEAKS.items()))
def test_each_detector_finds_its_leak(kind: str, text: str) -> None:
    assert secret_kind(text) == kind
    assert looks_secret(text)


@pytest.mark.parametrize(
    "text",
    [
        "please look at file_12345.py and fix the failing test",
        "is prod up? if not show me the logs",
        "a" * 40,  # long, but no digit: not random-looking
        "call 555 1234",
        "",
    ],
)
def test_ordinary_prompts_are_not_secrets(text: str) -> None:
    assert secret_kind(text) is None
    assert not looks_secret(text)


def test_non_ascii_text_is_checked_by_the_full_detectors() -> None:
    # Unicode digits and spaces are outside the RE2 prefilter's ASCII view
    assert looks_secret("call ١٢٣٤٥٦٧٨٩٠ now")
    assert looks_secret("password\u00a0: hunter22x")
    assert not looks_secret("café au lait, s'il vous plaît")


def test_every_detector_is_listed_once() -> None:
    assert len({kind for kind, _ in DETECTORS}) == len(DETECTORS) == len(LEAKS)


#: Characters that make or break the detectors: token alphabets, separators, boundaries.
PIECES = st.sampled_from(
    [
        *"aAkKsSzZ09_-.@:= \t\x0b\x0c\x1c\x1f/+~",
        "sk-",
        "ant-",
        "ghp_",
        "AKIA",
        "xoxb-",
        "AIza",
        "eyJ",
        "bearer ",
        "Bearer\t",
        "PaSsWoRd",
        "api_key",
        "token",
        "-----BEGIN PRIVATE KEY-----",
        "example.com",
        "1234",
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOP",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_prefilter_never_clears_a_secret(text: str) -> None:
    """On ASCII text the fast path says exactly what the full detectors say."""
    assert looks_secret(text) == (_ANY.search(text) is not None)
