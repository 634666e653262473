"""Words in every language (issue 32): folding, scripts without spaces, names, and a prompt in
another language finding its tool lexically through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from toolsel.text import fold, looks_english, split_name, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Reads a file from disk", ["reads", "a", "file", "from", "disk"]),
        ("résumé NAÏVE Straße", ["resume", "naive", "strasse"]),
        ("Читает файл с диска", ["читает", "файл", "с", "диска"]),
        ("ёлка", ["елка"]),  # Cyrillic yo folds to ie, as Russian text is often written
        ("读取文件", ["读取", "取文", "文件"]),  # Chinese: overlapping character pairs
        # Japanese: cut where the script changes; particles and endings are not words
        (
            "YouTubeの動画ダウンロードして",
            ["youtube", "動画", "ダウ", "ウン", "ンロ", "ロー", "ード"],
        ),
        ("ファイルを読む", ["ファ", "ァイ", "イル", "読"]),
        ("फ़ाइल पढ़ें", ["फ़ाइल", "पढ़ें"]),  # Devanagari vowel signs stay in their word
        ("user_id", ["user", "id"]),
    ],
)
def test_words_in_every_language(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_thai_marks_stay_with_their_letters() -> None:
    found = words("อ่านไฟล์")
    assert found and all(len(w) <= 2 for w in found) and "ไฟ" in found


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mcp__github__createIssue", ["mcp", "github", "create", "issue"]),
        ("obtenerÚltimoPedido", ["obtener", "último", "pedido"]),
        ("HTTPServer", ["http", "server"]),
    ],
)
def test_names_split_in_any_script(name: str, expected: list[str]) -> None:
    assert split_name(name) == expected


@given(st.text(max_size=60))
def test_words_never_fail_and_are_folded(text: str) -> None:
    found = words(text)
    assert all(w and w == fold(w) and "_" not in w for w in found)


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=60))
def test_the_ascii_fast_path_agrees_with_the_unicode_path(text: str) -> None:
    from toolsel.text import unicode_words

    assert words(text) == unicode_words(text)


REGISTRY = """\
tools:
  - name: read_file
    description: Читает файл с диска и возвращает его содержимое.
  - name: send_mail
    description: Отправляет письмо по электронной почте.
  - name: ファイル読込
    description: 指定したパスのファイルを読み込みます。
  - name: メール送信
    description: 宛先にメールを送信します。
  - name: buscar_pedido
    description: Busca un pedido por su número y muestra el envío.
"""


@pytest.mark.parametrize(
    ("prompt", "tool"),
    [
        ("прочитать файл с диска", "read_file"),
        ("отправь письмо начальнику", "send_mail"),
        ("このファイルを読んで", "ファイル読込"),
        ("上司にメールを送って", "メール送信"),
        ("¿dónde está mi pedido número 42?", "buscar_pedido"),
    ],
)
@pytest.mark.parametrize("method", ["hybrid", "bm25", "tfidf"])
def test_a_prompt_in_another_language_finds_its_tool_lexically(
    cli: Cli, tmp_path: Path, prompt: str, tool: str, method: str
) -> None:
    (tmp_path / "tools.yaml").write_text(REGISTRY, encoding="utf-8")
    run = cli("rank", "-r", str(tmp_path), prompt, "--method", method, "-f", "json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["results"][0]["name"] == tool


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Reads a file. Returns its text.", 2),
        ("Reads a file. Returns its text", 2),
        ("v1.2 is out", 1),
        ("ファイルを読みます。内容を返します。権限は不要です。", 3),
        ("读取文件。返回内容", 2),
        ("", 0),
    ],
)
def test_sentences_end_in_every_script(text: str, count: int) -> None:
    from toolsel.text import sentence_count

    assert sentence_count(text) == count


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Create a new pull request in a GitHub repository.", True),
        ("List checkouts", True),  # terse English has few function words
        ("Crea una dirección de envío para el cliente.", False),
        ("Membuat alamat baru untuk pelanggan dan menyimpannya ke database.", False),
        ("Obtiene el pronóstico climático de 7 días para una ubicación en Chile.", False),
        ("Поиск организаций, зданий и мест в каталоге 2ГИС.", False),
        ("查询异步任务状态。提交异步任务后使用此工具获取结果。", False),
        ("", None),
    ],
)
def test_looks_english(text: str, english: bool | None) -> None:
    assert looks_english(text) is english
