"""Text helpers shared by lint and ranking: name splitting, words, sentences.

Words are found in every language (`words`): the text is NFKC-normalised and case-folded,
accents are taken off Latin and Greek letters ("résumé" is "resume"; Cyrillic yo is ie),
and a run of a script written without spaces between words (Han, Hiragana, Katakana, Thai,
Lao, Khmer, Myanmar) becomes its overlapping character pairs ("ファイルを読む": ファ, ァイ,
イル, ...), as search engines index such scripts, so a prompt finds a description in the
same language however its words are cut. ASCII text takes a fast path with the same result."""

from __future__ import annotations

import re
import unicodedata
from itertools import groupby

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-.\s/:]+")
_WORD = re.compile(r"[a-z0-9]+")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does for from has have if in into is it
    its of on or over should so such than that the their them then there these this those to
    under up was were when where which while will with you your yours we our us i me my all any
    each other some not no nor only own same too very just also may might must""".split()
)


#: Function words of the languages tool descriptions are most often written in besides
#: English (Spanish, Portuguese, French, German, Italian, Indonesian), none of them an
#: English word (`a`, `no`, `die`, `do` are left out), accents folded as `unicode_words` does.
FOREIGN_MARKERS = frozenset(
    """de la el los las del para con por una que y se su al lo en un
    da os uma nao em dos das ao
    le les des du et pour est dans sur avec aux
    der das und fur mit ist ein eine zu den dem nicht von
    il di della per che sono
    dan yang untuk ke dari dengan ini itu atau akan dalam pada""".split()
)


def looks_english(text: str) -> bool | None:
    """Whether `text` is written in English, cheaply, for checks that read English words:
    False when most of its words are in another script (Cyrillic, CJK, ...) or another
    Latin-script language's function words outnumber English ones (at least two); None
    when it has no words."""
    found = unicode_words(text)
    if not found:
        return None
    if sum(not word.isascii() for word in found) * 2 > len(found):
        return False
    foreign = sum(word in FOREIGN_MARKERS for word in found)
    english = sum(word in STOPWORDS for word in found)
    return not (foreign >= 2 and foreign > english)


def split_name(name: str) -> list[str]:
    """`mcp__github__createIssue` -> ['mcp', 'github', 'create', 'issue'] (in any script:
    `obtenerÚltimoPedido` -> ['obtener', 'último', 'pedido'])."""
    words: list[str] = []
    for chunk in _SEPARATORS.split(name):
        parts = _CAMEL.split(chunk) if chunk.isascii() else _camel_parts(chunk)
        words.extend(part.lower() for part in parts if part)
    return words


def _camel_parts(chunk: str) -> list[str]:
    """`_CAMEL`'s split for any script: before an upper-case letter that follows a lower-case
    letter or a digit, and before the last capital of a run followed by a lower-case one."""
    cut = [0]
    for i in range(1, len(chunk)):
        before, ch = chunk[i - 1], chunk[i]
        after = chunk[i + 1] if i + 1 < len(chunk) else ""
        if ch.isupper() and (
            before.islower() or before.isdigit() or (before.isupper() and after.islower())
        ):
            cut.append(i)
    return [chunk[a:b] for a, b in zip(cut, [*cut[1:], len(chunk)], strict=True)]


def _pairs_script(ch: str) -> bool:
    """A character of a script written without spaces between words."""
    code = ord(ch)
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # CJK Extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK Unified Ideographs
        or 0xF900 <= code <= 0xFAFF  # CJK Compatibility Ideographs
        or 0x31F0 <= code <= 0x31FF  # Katakana Phonetic Extensions
        or 0x20000 <= code <= 0x3134F  # CJK Extensions B-G
        or 0x0E00 <= code <= 0x0EFF  # Thai, Lao
        or 0x1000 <= code <= 0x109F  # Myanmar
        or 0x1780 <= code <= 0x17FF  # Khmer
    )


def fold(text: str) -> str:
    """NFKC, case-folded, accents taken off Latin and Greek letters, Cyrillic yo as ie."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u0451", "\u0435")
    if text.isascii():
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch) and out and ord(out[-1][-1]) < 0x0400:
            continue  # a mark on a Latin or Greek letter (Cyrillic й is a letter of its own)
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def unicode_words(text: str) -> list[str]:
    """The words of `text` in any script (see the module's docstring), folded."""
    found: list[str] = []
    for run in _word_runs(fold(text)):
        if run.isascii() or not any(_pairs_script(ch) for ch in run):
            found.append(run)
            continue
        for kind, chars in groupby(run, key=_script):
            found.extend(_segment_words("".join(chars), kind))
    return found


def _word_runs(text: str) -> list[str]:
    """Runs of letters and digits with their combining marks (what `\\w` finds, and the
    marks it leaves out: Thai tone marks, Devanagari vowel signs), `_` excluded."""
    runs: list[str] = []
    start = None
    for i, ch in enumerate(text):
        inside = ch != "_" and (
            ch.isalnum() or (start is not None and unicodedata.category(ch)[0] == "M")
        )
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            runs.append(text[start:i])
            start = None
    if start is not None:
        runs.append(text[start:])
    return runs


def _script(ch: str) -> str:
    """The run a character belongs to: a script without spaces is cut where the script
    changes (katakana "ダウンロード" and hiragana "して" are apart: their pair "ドし" is
    no word); every other character is "other"."""
    code = ord(ch)
    if 0x3040 <= code <= 0x309F:
        return "hiragana"
    if 0x30A0 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF:
        return "katakana"
    return "pairs" if _pairs_script(ch) else "other"


#: Japanese grammar written in hiragana: particles, copulas and verb endings that every
#: request has ("ファイルを読んでください"). As words they would match every description.
#: A single hiragana character (a particle: を, に, の) is dropped too.
JAPANESE_FUNCTION_PAIRS = frozenset(
    "して した する され ます ました ません です でし ない なか いる いた ている てい"
    " ください くだ ださ さい から まで ので のは には では とか など この その あの"
    " これ それ あれ どう どの どれ よう こと もの ため って った だけ ても でも"
    " という とい いう おね ねが がい".split()
)


def _segment_words(segment: str, kind: str) -> list[str]:
    if kind == "other":
        return [segment]
    if kind == "hiragana":
        if len(segment) == 1:
            return []
        return [p for p in _pairs(segment) if p not in JAPANESE_FUNCTION_PAIRS]
    return _pairs(segment)


def _pairs(segment: str) -> list[str]:
    """A run of a script without spaces as its overlapping character pairs (one character
    alone stays a word)."""
    return [segment[i : i + 2] for i in range(len(segment) - 1)] or [segment]


_SEPARATORS_GONE = str.maketrans("", "", "_-. \t\n\r\f\v\x1c\x1d\x1e\x1f")


def fold_name(name: str) -> str:
    """Case-folded with separators removed: `getUser`, `get_user` and `get-user` fold equal."""
    if name.isascii():  # what the pattern below does, an order of magnitude faster
        return name.translate(_SEPARATORS_GONE).casefold()
    return re.sub(r"[_\-.\s]", "", name).casefold()


def words(text: str) -> list[str]:
    """The lower-case words of `text`, in any script (`unicode_words`)."""
    if text.isascii():
        return _WORD.findall(text.lower())
    return unicode_words(text)


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS and len(w) > 1}


#: A sentence ends at . ! ? before a space or the end, or at a full stop of a script
#: written without spaces (ideographic full stop, full-width ! and ?, Devanagari danda),
#: which needs no space after it.
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[\u3002\uff01\uff1f\u0964]")
_ENDS = ".!?\u3002\uff01\uff1f\u0964"


def sentence_count(text: str) -> int:
    stripped = text.strip()
    if not stripped:
        return 0
    ends = len(_SENTENCE_END.findall(stripped))
    return ends + (0 if stripped[-1] in _ENDS else 1)


def estimate_tokens(text: str) -> int:
    """Rough token estimate (about four characters a token), as providers' guides suggest."""
    return max(1, (len(text) + 3) // 4)


def is_select(query: str) -> bool:
    """Whether a prompt is a `select:` lookup (any case), without importing `toolsel.select`."""
    return query[:7].lower() == "select:"


# -- text from inputs, made safe to show (toolsel.render.escape builds on it) ----------


#: Categories shown as they are although ``str.isprintable`` says no: spaces other than
#: U+0020, private-use characters, and code points newer than Python's Unicode tables.
_SHOWN = frozenset({"Zs", "Co", "Cn"})
#: The zero-width joiner builds emoji sequences; it cannot move or hide text on its own.
_JOINER = "\u200d"
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, newlines: bool = False) -> str:
    """`text` with every unsafe character escaped; ``newlines=True`` keeps line feeds and
    tabs (for multi-line blocks such as a system-prompt listing)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        shown = ch.isprintable() or ch == _JOINER or (newlines and ch in "\n\t")
        out.append(ch if shown or unicodedata.category(ch) in _SHOWN else _escape(ch))
    return "".join(out)
