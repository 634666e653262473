"""Text that holds a secret or personal data, and the same text with each one replaced by a
typed placeholder (`redact`). Used by lint (TS704, an example prompt that leaks one) and by
`toolsel learn`, which keeps a prompt with its secrets and personal data replaced: a
support prompt with an e-mail address in it is the typical prompt, and "look up
<email>'s order" still says how people ask for the tool.

Two sorts of detector (`DETECTORS`), each with its placeholder: secrets (private keys, vendor
API keys and tokens, JWTs, passwords and secrets in the clear, credentials in a URL, long
random-looking tokens) and personal data (e-mail addresses, Luhn-checked card numbers, phone
numbers and other long numbers).

Left alone on purpose: git commit ids and SHA-256 digests (hex), UUIDs, long snake_case or
CamelCase identifiers, version numbers, ports, dates and short numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Detector:
    kind: str  # what it finds, for messages: "an e-mail address"
    placeholder: str  # what replaces each value found: "<email>"
    personal: bool  # personal data (else a secret)
    pattern: re.Pattern[str]
    #: A pattern without lookaround or backreferences that matches wherever `pattern`
    #: does (and may match more): the one-scan prefilter is made of these.
    loose: str
    values: tuple[str, ...]  # the groups a placeholder replaces (none: the whole match)
    valid: Callable[[str], bool] | None  # a check of each value (a card number's Luhn digit)
    retry_inside: bool  # after a value fails `valid`, look again from the next character

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where the values this detector finds in `text` are, left to right."""
        position = 0
        while (match := self.pattern.search(text, position)) is not None:
            found = [match.span(g) for g in self.values if match.start(g) >= 0] or [match.span()]
            if all(self._accepts(text[start:end]) for start, end in found):
                yield from found
                position = max(match.end(), match.start() + 1)
            else:
                position = match.start() + 1 if self.retry_inside else match.end()

    def _accepts(self, value: str) -> bool:
        return value not in PLACEHOLDERS and (self.valid is None or self.valid(value))


def _detector(
    kind: str,
    placeholder: str,
    pattern: str,
    *,
    personal: bool = False,
    loose: str | None = None,
    valid: Callable[[str], bool] | None = None,
    retry_inside: bool = True,
) -> Detector:
    compiled = re.compile(pattern)
    values = tuple(sorted(g for g in compiled.groupindex if g.startswith("value")))
    if loose is None:
        loose = re.sub(r"\(\?P<value\d*>", "(?:", pattern)
    return Detector(kind, placeholder, personal, compiled, loose, values, valid, retry_inside)


# -- value checks ---------------------------------------------------------------------------


def _luhn(value: str) -> bool:
    """A card number: 13-19 digits whose Luhn check digit is right."""
    digits = [int(ch) for ch in value if ch.isdecimal()]
    if not 13 <= len(digits) <= 19:
        return False
    doubled = (2 * d - 9 if d > 4 else 2 * d for d in digits[-2::-2])
    return (sum(digits[-1::-2]) + sum(doubled)) % 10 == 0


def _phone_digits(value: str) -> bool:
    return 8 <= sum(ch.isdecimal() for ch in value) <= 15


def _mixed_case(value: str) -> bool:
    """Upper case after the first character, and lower case: "hunTer", not "Hunter"."""
    return any(ch.isupper() for ch in value[1:]) and any(ch.islower() for ch in value)


#: A value that names where a secret is, not the secret: $DB_PASS, %PASS%, getpass(),
#: os.environ["X"], settings.password, a path, a mask (********).
_REFERENCE = re.compile(r"[$%].*|.*[(\[{].*|\*+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[~.]?/.*")


def _password_like(value: str) -> bool:
    """A password, not a word: "hunter2" and "Tr0ub4dor&3", not "wrong" or "8-16"."""
    if _REFERENCE.fullmatch(value):
        return False
    digits = sum(ch.isdecimal() for ch in value)
    if not any(ch.isalpha() for ch in value):
        return digits >= 4  # a PIN, not "8-16"
    return len(value) >= 4 and (digits > 0 or not value.isalnum() or _mixed_case(value))


def _secret_like(value: str) -> bool:
    """A value given for a secret or token, not a word about one ("token: expired")."""
    return (
        len(value) >= 6
        and not _REFERENCE.fullmatch(value)
        and (
            any(ch.isdecimal() for ch in value)
            or _mixed_case(value)
            or len(value) >= 16
            or any(not (ch.isalnum() or ch in "-_.") for ch in value)
        )
    )


def _aws_secret(value: str) -> bool:
    """40 characters of base64 with upper and lower case and a digit, as AWS makes them."""
    return (
        any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and any(ch.isdecimal() for ch in value)
    )


_HEX_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+|[_-]+")


def _random_looking(value: str) -> bool:
    """A token, not a git commit id or SHA-256 digest, a UUID or an identifier such as
    test_user_login_v2_handles_expired_sessions: in those, words of three letters or more
    make most of the text; in a random token they are rare."""
    if not (any(ch.isdecimal() for ch in value) and any(ch.isalpha() for ch in value)):
        return False
    if _HEX_DIGEST.fullmatch(value) or _UUID.fullmatch(value):
        return False
    words = sum(
        len(p) for p in _PIECES.findall(value) if len(p) >= 3 and p.isalpha() and p[1:].islower()
    )
    return words < 0.6 * len(value)


# -- the detectors ----------------------------------------------------------------------------

_PASSWORD_WORD = r"(?:password|passwd|passphrase|passcode|pwd)"
_SECRET_WORD = r"(?:secret(?:[_-]?key)?|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)"


def _value(name: str) -> str:
    """A value written after `key:` or `key is`: quoted (up to its closing quote) or bare
    (up to the next space, with a sentence's closing punctuation left out)."""
    return (
        rf'(?:"(?P<{name}q>[^"]{{1,256}})"'
        rf"|'(?P<{name}s>[^']{{1,256}})'"
        rf"|`?(?P<{name}>[^\s\"'`]{{1,256}}?)(?=[`\"',.;!?)\]]*(?:\s|$)))"
    )


#: `key: value`, `key=value`, `"key": "value"`
_ASSIGNED = r"""["']?\s*[:=]\s*""" + _value("value")
_AWS_KEY_ID = r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}"
_BASE64_40 = r"(?<![A-Za-z0-9/+])(?P<{}>[A-Za-z0-9/+]{{40}})(?![A-Za-z0-9/+=])"
#: Up to four short words between an AWS access key id and its secret ("and secret").
_NEAR = r"[^A-Za-z0-9/+]{1,6}(?:[A-Za-z0-9_-]{1,20}[^A-Za-z0-9/+]{1,6}){0,4}?"

_AWS_SECRET = "|".join(
    [
        # keyed: AWS_SECRET_ACCESS_KEY=..., aws_secret_access_key = ..., "aws secret is ..."
        r"(?i:\baws[\w. -]{0,20}?secret[\w. -]{0,20}?)[\s\"':=>]{0,6}" + _BASE64_40.format("value"),
        # or next to an access key id, either side of it
        rf"\b{_AWS_KEY_ID}\b{_NEAR}" + _BASE64_40.format("value2"),
        _BASE64_40.format("value3") + rf"{_NEAR}{_AWS_KEY_ID}\b",
    ]
)
_PASSWORD = "|".join(
    [
        # password: x, DB_PASSWORD=x
        rf"(?i:\b[\w-]{{0,30}}?{_PASSWORD_WORD}\b){_ASSIGNED}",
        # "my password is x", "the password for staging was x" ("pwd is" is a folder)
        r"(?i:\bpass(?:word|wd|phrase|code)(?:\s{1,3}(?:for|to|of|on)\s{1,3}[\w.@-]{1,64})?"
        r"\s{1,3}(?:is|was|=)(?:\s{1,3}(?:now|still|set\s{1,3}to))?)\s{1,3}" + _value("value2"),
    ]
)

#: Specific formats first, the generic ones last. Where two detectors find overlapping
#: values, the first one's placeholder is used.
DETECTORS: tuple[Detector, ...] = (
    _detector(
        "a private key",
        "<private-key>",
        r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?s:.*?-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|.*)",  # to its end, or the text's
        loose=r"-----BEGIN [A-Z ]*PRIVATE KEY",
    ),
    _detector(
        "a Slack webhook",
        "<slack-webhook>",
        r"(?:\bhttps?://)?\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
    ),
    _detector(
        "credentials in a URL",
        "<url-credentials>",
        r"\b[A-Za-z][A-Za-z0-9+.-]{0,15}://(?P<value>[^\s/?#@:]{0,256}:[^\s/?#]{1,256})@",
        loose=r"[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s/?#@:]*:[^\s/?#]+@",
    ),
    _detector(
        "an AWS secret access key",
        "<aws-secret>",
        _AWS_SECRET,
        loose=rf"(?i:aws[\w. -]{{0,20}}secret)|{_AWS_KEY_ID}",
        valid=_aws_secret,
    ),
    _detector("an AWS access key id", "<aws-key>", rf"\b{_AWS_KEY_ID}\b"),
    _detector(
        "a GitLab token",
        "<gitlab-token>",
        r"\b(?:glpat|gldt|glrt|glptt|glft|glimt|glsoat|glcbt|gloas|glagent|glffct|glwt)"
        r"-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|\bGR1348941[A-Za-z0-9_-]{20,}",
    ),
    _detector(
        "a GitHub token",
        "<github-token>",
        r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
    ),
    _detector(
        "an OpenAI or Anthropic API key",
        "<api-key>",
        r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    ),
    _detector(
        "a Stripe, Hugging Face, npm or PyPI token",
        "<api-key>",
        r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}"
        r"|pypi-AgE[A-Za-z0-9_-]{50,})",
    ),
    _detector("a Slack token", "<slack-token>", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    _detector("a Google API key", "<api-key>", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    _detector(
        "a JSON Web Token",
        "<jwt>",
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}",
    ),
    _detector("a bearer token", "<token>", r"(?i:\bbearer)\s+(?P<value>[A-Za-z0-9._~+/-]{20,}=*)"),
    _detector(
        "a password",
        "<password>",
        _PASSWORD,
        loose=rf"(?i:{_PASSWORD_WORD}\b[^\s]{{0,2}}\s*[:=]"
        r"|\bpass(?:word|wd|phrase|code)\b[^:=]*\s(?:is|was|=)\s)",
        valid=_password_like,
    ),
    _detector(
        "a secret or token in the clear",
        "<secret>",
        rf"(?i:\b[\w-]{{0,30}}?{_SECRET_WORD}\b){_ASSIGNED}",
        loose=rf"(?i:{_SECRET_WORD}\b[^\s]{{0,2}}\s*[:=])",
        valid=_secret_like,
    ),
    _detector(
        "an e-mail address",
        "<email>",
        r"\b(?!git@)[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}\.[A-Za-z]{2,}\b",
        loose=r"[A-Za-z0-9._%+-]@[A-Za-z0-9.-]+\.[A-Za-z]{2}",
        personal=True,
    ),
    _detector(
        "a card number",
        "<card-number>",
        r"\b(?:\d{4}(?P<sep>[ .-]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{1,4}(?:(?P=sep)\d{1,3})?"
        r"|\d{4}(?P<amex>[ .-]?)\d{6}(?P=amex)\d{4,5})\b",
        loose=r"\d{4}[ .-]?\d{4}[ .-]?\d{4}[ .-]?\d|\d{4}[ .-]?\d{6}[ .-]?\d{4}",
        valid=_luhn,
        personal=True,
    ),
    _detector(
        "a phone number",
        "<phone>",
        r"(?<![\w+])(?:\+?1[ .-]?)?\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}\b"  # (415) 555-0132
        r"|(?<![\w+])\+\d{1,3}[ .-]?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}\b"  # +1 415-555-0132
        r"|\b(?:1[ .-])?\d{3}(?P<sep>[ .-])\d{3}(?P=sep)\d{4}\b",  # 415-555-0132, 415.555.0132
        loose=r"\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\+\d[\d .()-]{4,}|\d{3}[ .-]\d{3}[ .-]\d{4}",
        valid=_phone_digits,
        personal=True,
    ),
    _detector(
        "a long number",
        "<number>",
        r"\b(?<![.-])(?!\d{4}-\d{2}-\d{2}\b)\d(?:[ -]?\d){8,}\b",  # not in a UUID, not a date
        loose=r"\d(?:[ -]?\d){8}",
        personal=True,
    ),
    _detector(
        "a long random-looking token",
        "<token>",
        r"\b[A-Za-z0-9_-]{32,}\b",
        valid=_random_looking,
        retry_inside=False,  # the run is maximal: nothing inside it is a better token
    ),
)

#: Every placeholder: a detector never takes one for a value, so redacted text is clean.
PLACEHOLDERS = frozenset(d.placeholder for d in DETECTORS)


def find(text: str) -> Detector | None:
    """The first detector (in table order) that finds something in `text`, or None."""
    return next((d for d in _candidates(text) if next(d.spans(text), None) is not None), None)


def secret_kind(text: str) -> str | None:
    """What `text` seems to leak ("an e-mail address"), or None."""
    detector = find(text)
    return None if detector is None else detector.kind


def looks_secret(text: str) -> bool:
    return find(text) is not None


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    placeholders: tuple[str, ...]  # one for each value replaced, left to right


#: Rounds of replacing: a value can hide another that only shows once it is replaced.
_ROUNDS = 4


def redact(text: str) -> Redacted | None:
    """`text` with each value a detector finds replaced by the detector's placeholder, or
    None when what is left still holds one after a few rounds (then drop the text)."""
    used: list[str] = []
    for _ in range(_ROUNDS):
        spans = _claimed(text)
        if not spans:
            return Redacted(text, tuple(used))
        text = _replaced(text, spans)
        used += [placeholder for _, _, placeholder in spans]
    return None if looks_secret(text) else Redacted(text, tuple(used))


def mask_secrets(text: str) -> str:
    """`text` with each secret (not personal data) replaced by its placeholder: what
    `toolsel.redact` shows in messages, listings and reports."""
    if not text or not _might_hold(text):
        return text
    return _replaced(text, _claimed(text, secrets_only=True))


def _replaced(text: str, spans: list[tuple[int, int, str]]) -> str:
    pieces, last = [], 0
    for start, end, placeholder in spans:
        pieces += [text[last:start], placeholder]
        last = end
    return "".join(pieces) + text[last:]


def _claimed(text: str, *, secrets_only: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, placeholder) of every value found, by the first detector to find it."""
    taken: list[tuple[int, int, str]] = []
    for detector in _candidates(text):
        if secrets_only and detector.personal:
            continue
        for start, end in detector.spans(text):
            if all(end <= s or start >= e for s, e, _ in taken):
                taken.append((start, end, detector.placeholder))
    return sorted(taken)


# -- the prefilter ----------------------------------------------------------------------------
#
# Most texts hold nothing. RE2 scans in linear time, several times faster than `re` on
# ordinary prompts, so one RE2 scan of every detector's loose pattern (an RE2 set) clears
# them (`learn` checks every mined prompt), and says which detectors to run on the others. RE2 reads `\d`, `\w`, `\s`, `\b` and case folding as
# ASCII, and `re` as Unicode: RE2 is given an ASCII view of the text in which each other
# character stands for how `re` reads it.

#: Python's \s on ASCII text, which RE2's \s is not (it leaves out \v and \x1c-\x1f).
_ASCII_SPACE = r"\t-\r\x1c-\x1f "


def _for_re2(pattern: str) -> str:
    r"""`pattern` with `\s` spelled as Python reads it on ASCII text, in and out of classes."""
    out, in_class = [], False
    for token in re.findall(r"\\.|.", pattern, flags=re.DOTALL):
        if token == r"\s":
            token = _ASCII_SPACE if in_class else f"[{_ASCII_SPACE}]"
        elif len(token) == 1:
            in_class = (in_class and token != "]") or (not in_class and token == "[")
        out.append(token)
    return "".join(out)


#: The characters beyond ASCII that `re` matches to an ASCII letter when ignoring case.
_FOLDS_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


class _AsciiView(dict[int, str]):
    r"""A `str.translate` table: each character -> an ASCII one that every loose pattern
    matches wherever `re` matches the original: a decimal digit (`\d`) "0", a space
    (`\s`) " ", a letter that folds to an ASCII one that letter, another word character
    (`\w`) "_", anything else NUL. Loose patterns keep to what makes this hold: their
    negated classes leave out no ASCII letter or digit, `_` or NUL."""

    def __init__(self) -> None:
        super().__init__((code, chr(code)) for code in range(128))

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch.isdecimal():
            ascii_ = "0"
        elif ch.isspace():
            ascii_ = " "
        elif ch.isalnum():
            ascii_ = _FOLDS_TO_ASCII.get(ch, "_")
        else:
            ascii_ = "\0"
        if len(self) < 100_000:  # the table grows with the characters seen, up to this
            self[code] = ascii_
        return ascii_


_ASCII_VIEW = _AsciiView()


@functools.cache
def _loose_set() -> Any:
    """Every detector's loose pattern in one RE2 set: one scan says which ones match."""
    import re2

    patterns = re2.Set.SearchSet(re2.Options())
    for detector in DETECTORS:
        patterns.Add(_for_re2(detector.loose))
    patterns.Compile()
    return patterns


def _candidates(text: str) -> list[Detector]:
    """The detectors that may find something in `text` (most often none), in table order."""
    view = text if text.isascii() else text.translate(_ASCII_VIEW)
    matched = _loose_set().Match(view)
    return [DETECTORS[i] for i in sorted(matched)] if matched else []


def _might_hold(text: str) -> bool:
    return bool(_candidates(text))
