"""The secret and personal-data detectors shared by lint (TS704) and `toolsel learn`, and
redaction with typed placeholders."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsel.secrets import (
    _FOLDS_TO_ASCII,
    DETECTORS,
    PLACEHOLDERS,
    _candidates,
    _for_re2,
    _might_hold,
    find,
    looks_secret,
    redact,
    secret_kind,
)

AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

#: (text, what it is redacted to). Real-looking prompts, several forms of each kind.
LEAKS = [
    # private keys: the whole block, or to the end of the text when it is cut
    ("-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA -----END RSA PRIVATE KEY----- thanks", "<private-key> thanks"),
    ("why does ssh reject -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAA", "why does ssh reject <private-key>"),
    # vendor keys and tokens
    ("use sk-ant-abcdefghijklmnopqrstuvwx please", "use <api-key> please"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123", "token <github-token>"),
    ("set GITHUB_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "set GITHUB_TOKEN=<github-token>"),
    ("charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "charge with <api-key>"),
    ("download with hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "download with <api-key>"),
    ("xoxb-1234567890-abcdef", "<slack-token>"),
    ("key " + "AIza" + "B" * 35, "key <api-key>"),
    ("decode eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.abcdefgh for me", "decode <jwt> for me"),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: Bearer <token>"),
    ("id 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee", "id <token>"),
    # AWS: the access key id, and the secret access key bare beside it, as env and ini
    (f"key {AWS_ID} here", "key <aws-key> here"),
    (f"list buckets with {AWS_ID} and {AWS_SECRET}", "list buckets with <aws-key> and <aws-secret>"),
    (f"{AWS_SECRET} is the secret for {AWS_ID}", "<aws-secret> is the secret for <aws-key>"),
    (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", "export AWS_SECRET_ACCESS_KEY=<aws-secret>"),
    (f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}" fails', 'AWS_SECRET_ACCESS_KEY="<aws-secret>" fails'),
    (f"[default] aws_access_key_id = {AWS_ID} aws_secret_access_key = {AWS_SECRET}",
     "[default] aws_access_key_id = <aws-key> aws_secret_access_key = <aws-secret>"),
    (f"my aws secret key is {AWS_SECRET}", "my aws secret key is <aws-secret>"),
    # GitLab
    ("clone it with glpat-xK3mP9qR2sT5vW8yZ1aB please", "clone it with <gitlab-token> please"),
    ("GITLAB_TOKEN=glpat-abcdefghijklmnopqrstuvwxyz0123.01.0z1y2x3w4", "GITLAB_TOKEN=<gitlab-token>"),
    ("register the runner with glrt-t1_AbCdEfGhIjKlMnOpQrSt", "register the runner with <gitlab-token>"),
    # Slack webhooks
    ("post to https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/aBcDeFgHiJkLmNoPqRsTuVwX now",
     "post to <slack-webhook> now"),
    ("hooks.slack.com/workflows/T024BE7LD/A04ABCDEF/123456789/abcdefghijkl", "<slack-webhook>"),
    # card numbers (Luhn-checked): spaced, dashed, dotted, packed, Amex
    ("card 4111 1111 1111 1111 expired", "card <card-number> expired"),
    ("refund 4111-1111-1111-1111", "refund <card-number>"),
    ("charge 4111.1111.1111.1111 now", "charge <card-number> now"),
    ("pay with 5555555555554444", "pay with <card-number>"),
    ("amex 3782 822463 10005 declined", "amex <card-number> declined"),
    # phone numbers
    ("call (415) 555-0132 tomorrow", "call <phone> tomorrow"),
    ("text +1 415-555-0132", "text <phone>"),
    ("ring +44 20 7946 0958 about it", "ring <phone> about it"),
    ("sms +14155550132", "sms <phone>"),
    ("call 415.555.0132 or 1-800-555-0199", "call <phone> or <phone>"),
    # other long numbers (accounts, IDs)
    ("account 12345678901 is locked", "account <number> is locked"),
    ("ssn 123-45-6789", "ssn <number>"),
    # passwords
    ("my password is hunter2, log me in", "my password is <password>, log me in"),
    ("password: Tr0ub4dor&3", "password: <password>"),
    ("my password\x0b:\x1chunter22 ok", "my password\x0b:\x1c<password> ok"),  # Python's \s
    ("the password for staging is s3cret!", "the password for staging is <password>!"),
    ('the password is "correct horse battery"', 'the password is "<password>"'),
    ("DB_PASSWORD=hunter22 in .env", "DB_PASSWORD=<password> in .env"),
    ('config {"password": "s3cr3t!"}', 'config {"password": "<password>"}'),
    ("my passcode is 0000", "my passcode is <password>"),
    # other secrets in the clear
    ("SECRET_KEY=django-insecure-8f$kd93", "SECRET_KEY=<secret>"),
    ("api_key: 9a8b7c6d5e4f", "api_key: <secret>"),
    # credentials in a URL, whatever the host
    ("fetch https://user:pass@10.0.0.5/metrics", "fetch https://<url-credentials>@10.0.0.5/metrics"),
    ("connect postgres://u:p@[::1]:5432/db", "connect postgres://<url-credentials>@[::1]:5432/db"),
    ("mysql://admin:S3cr3t@db.internal:3306 is down", "mysql://<url-credentials>@db.internal:3306 is down"),
    ("redis://:secretpass@cache:6379/0", "redis://<url-credentials>@cache:6379/0"),
    ("https://bob:p@ss@example.com/x", "https://<url-credentials>@example.com/x"),
    # e-mail
    ("mail jane.doe@example.com now", "mail <email> now"),
    ("mailto:jane@example.co.uk", "mailto:<email>"),
    # several in one prompt
    ("email bob@example.com and call (415) 555-0132", "email <email> and call <phone>"),
]  # fmt: skip

#: Ordinary developer prompts that look a little like the above.
ORDINARY = [
    "please look at file_12345.py and fix the failing test",
    "is prod up? if not show me the logs",
    "a" * 40,  # long, but no digit: not random-looking
    "call 555 1234",
    "call me at 3",
    "call me at 5pm",
    "",
    "bump to version 4.1.1.1",
    "pip install pkg==4.1.1.1",
    "serve on port 8080",
    "open localhost:3000 and 192.168.1.100:8080",
    "what happened on 2024-05-01 12:30:45",
    "logs from 2024-05-01T12:30:00Z to 2024-05-02",
    "revert 3f2a9c1d4b5e6f708192a3b4c5d6e7f809a1b2c3",  # a git commit id
    "sha 3f2a9c1",
    "pull nginx@sha256:" + "ab" * 32,  # a SHA-256 digest
    "order 123e4567-e89b-12d3-a456-426614174000 is stuck",  # a UUID
    "run test_user_registration_flow_v2_handles_expired_sessions",
    "HTTPServerConfigurationManagerFactory2 is slow",
    "clone git@github.com:acme/api.git",
    "npm install react@18.2.0",
    "email user@localhost",
    "the password is wrong",
    "password must be 8-16 characters",
    "reset the password for bob",
    "my password manager is broken",
    'validation says password is "required"',
    "password = getpass()",
    "password=$DB_PASS",
    "password = os.environ['DB_PASSWORD']",
    "password: ********",
    "my pwd is /home/bob/src",
    "token: expired",
    "set API_KEY in the .env file",
    "the secret is to restart it",
    "order 12345678",
    "between 1000 and 2000",
    "error 0x80070005",
    "JIRA-12345 and PR #12345",
    "c++17 and 1+1=2",
    "score +1 (2 votes)",
    "charge 1234.5678.9012.3456",  # dotted, but no card's check digit: a version-like id
    "https://example.com/a/b?x=1",
    "s3://bucket/key:with:colons@x",
    "ssh -i ~/.ssh/id_rsa admin@10.0.0.5",
    "hooks.slack.com is down",
    "glpat tokens expire",
    "aws secret manager rotation",
    "AKIA prefixes mean access keys",
]


@pytest.mark.parametrize(("text", "redacted"), LEAKS)
def test_each_leak_is_found_and_replaced_by_its_placeholder(text: str, redacted: str) -> None:
    assert looks_secret(text)
    assert secret_kind(text) is not None
    result = redact(text)
    assert result is not None and result.text == redacted
    assert not looks_secret(result.text)  # what is written is clean
    assert _might_hold(text)  # the prefilter lets it through


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_prompts_are_not_secrets(text: str) -> None:
    assert secret_kind(text) is None
    assert not looks_secret(text)
    result = redact(text)
    assert result is not None and result.text == text and result.placeholders == ()


def test_every_detector_has_a_leak_in_the_table() -> None:
    found = {find(text) for text, _ in LEAKS}
    assert found >= set(DETECTORS)
    assert len({d.kind for d in DETECTORS}) == len(DETECTORS)


def test_kinds_and_placeholders() -> None:
    assert find("mail jane.doe@example.com") is not None
    email = find("mail jane.doe@example.com")
    assert email is not None and email.personal and email.placeholder == "<email>"
    key = find(f"key {AWS_ID}")
    assert key is not None and not key.personal and key.placeholder == "<aws-key>"
    assert {d.placeholder for d in DETECTORS if d.personal} == {
        "<email>",
        "<card-number>",
        "<phone>",
        "<number>",
    }


def test_a_placeholder_is_never_taken_for_a_value() -> None:
    """TS704 must not report a redacted example, and redacting twice changes nothing."""
    for placeholder in sorted(PLACEHOLDERS):
        for text in (
            f"email {placeholder} the report",
            f"password: {placeholder}",
            f"my password is {placeholder}, ok",
            f'password is "{placeholder}"',
            f"token={placeholder}",
            f"SECRET_KEY={placeholder}",
            f"https://{placeholder}@10.0.0.5/x",
            f"Bearer {placeholder}",
            f"aws_secret_access_key = {placeholder}",
        ):
            assert not looks_secret(text), text
    for _, redacted in LEAKS:
        again = redact(redacted)
        assert again is not None and again.text == redacted and again.placeholders == ()


def test_redact_lists_each_placeholder_used() -> None:
    result = redact("email bob@example.com or ann@example.com, call (415) 555-0132")
    assert result is not None
    assert result.placeholders == ("<email>", "<email>", "<phone>")


def test_non_ascii_text_is_checked_by_the_full_detectors() -> None:
    # Unicode digits and spaces are outside the RE2 prefilter's ASCII view
    assert looks_secret("call ١٢٣٤٥٦٧٨٩٠ now")
    assert looks_secret("password\u00a0: hunter22x")
    assert not looks_secret("café au lait, s'il vous plaît")
    result = redact("écris à jane.doe@example.com, s’il te plaît")
    assert result is not None and result.text == "écris à <email>, s’il te plaît"


def test_hostile_text_is_checked_in_linear_time() -> None:
    """Shapes that make a backtracking pattern quadratic: many starts, no end."""
    for text in (
        "a-" * 50_000 + "1",  # many word starts in one long token run
        "a." * 50_000 + " password: x1",  # an e-mail's local part that never meets an @
        "password " * 20_000 + "is",
        "x://" + "a" * 100_000,
        "1 " * 50_000 + "x",
        "-----BEGIN PRIVATE KEY-----" * 5_000,
    ):
        redact(text)  # returns (the suite's timeout would catch a quadratic scan)


#: Characters and pieces that make or break the detectors: token alphabets, separators,
#: boundaries, prefixes and whole values.
PIECES = st.sampled_from(
    [
        *"aAkKsSzZ09_-.@:=/+~\"'`()[]$* \t\x0b\x0c\x1c\x1f\x00",
        *"\u00a0\u2003é١’😀\u0130\u0131\u017f\u212a",  # beyond ASCII: spaces, digits, folds
        "sk-",
        "ant-",
        "ghp_",
        "glpat-",
        "glrt-",
        "AKIA",
        AWS_ID,
        AWS_SECRET,
        "aws_secret_access_key",
        "AWS_SECRET_ACCESS_KEY=",
        "xoxb-",
        "AIza",
        "eyJ",
        "bearer ",
        "Bearer\t",
        "PaSsWoRd",
        "password is ",
        "pwd",
        "api_key",
        "token",
        "SECRET_KEY",
        "-----BEGIN PRIVATE KEY-----",
        "https://",
        "postgres://",
        "hooks.slack.com/services/",
        "user:pass@",
        "example.com",
        "git@",
        "1234",
        "4111",
        "(415)",
        "555-0132",
        "+1 ",
        "hunter2",
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOP",
        "2024-05-01",
        "<email>",
        "<password>",
    ]
)


def _exact(text: str) -> bool:
    """The detectors themselves, without the prefilter."""
    return bool(_finders(text))


def _finders(text: str) -> set[object]:
    return {d for d in DETECTORS if next(d.spans(text), None) is not None}


def _prefilter_holds(text: str) -> None:
    """Every detector that finds something is among the candidates the prefilter gives."""
    assert _finders(text) <= set(_candidates(text)), text


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_prefilter_never_clears_a_secret(text: str) -> None:
    """The fast path (RE2 on ASCII text, one `re` scan on other text) lets through every
    text a detector finds something in."""
    _prefilter_holds(text)
    assert looks_secret(text) == _exact(text)


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from([text for text, _ in LEAKS]),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3), PIECES), max_size=4),
)
def test_the_prefilter_never_clears_a_mangled_leak(text: str, edits: list) -> None:
    """Each leak of the table with a few characters cut or pieces pasted in: near the
    edges of what each detector accepts."""
    for at, cut, piece in edits:
        at %= len(text) + 1
        text = text[:at] + piece + text[at + cut :]
    _prefilter_holds(text)
    result = redact(text)
    assert result is None or not looks_secret(result.text)


def test_the_prefilter_never_clears_a_leak_one_edit_away() -> None:
    """Every leak of the table with one character cut, doubled or swapped for a
    separator: a loose pattern that is narrower than its detector shows up here."""
    for text, _ in LEAKS:
        for at in range(len(text) + 1):
            for variant in (
                text[:at] + text[at + 1 :],
                text[:at] + text[at : at + 1] + text[at:],
                *(text[:at] + sep + text[at + 1 :] for sep in " -.:"),
            ):
                _prefilter_holds(variant)


def test_loose_patterns_keep_to_what_the_ascii_view_needs() -> None:
    """Beyond ASCII, RE2 sees each character as "0" (a digit), " " (a space), an ASCII
    letter (one that case folding maps there), "_" (another word character) or NUL: a
    negated class must not leave any of these out, or the view would hide a match."""
    import re

    negated = re.compile(r"\[\^((?:\\.|[^\]\\])*)\]")
    for detector in DETECTORS:
        for members in negated.findall(detector.loose):
            cls = re.compile(f"[^{members}]")
            for ch in "azAZ09_\x00":
                assert cls.fullmatch(ch), (detector.kind, members, ch)
        _for_re2(detector.loose)  # and RE2 can read it (below)
    assert _might_hold("password\u00a0: hunter22x")


def test_only_these_characters_fold_to_ascii_letters() -> None:
    import re

    letter = re.compile(r"(?i)[a-z]")
    folding = {chr(c) for c in range(128, 0x110000) if letter.fullmatch(chr(c))}
    assert folding == set(_FOLDS_TO_ASCII)
    assert looks_secret("\u017fk-ant-abcdefghijklmnopqrstuvwx") is False  # a literal "sk-"
    assert looks_secret("pa\u017f\u017fword: hunter22x")  # (?i) folds the long s
