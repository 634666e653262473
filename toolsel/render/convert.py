"""Render `toolsel convert`: the document (YAML for toolsel's format, JSON for a provider's)
and one note line per kind of field the target could not hold."""

from __future__ import annotations

import re
from typing import IO, Any

from toolsel.convert import Conversion, ConversionNote


def write_document(conversion: Conversion, out: IO[str]) -> None:
    if conversion.target == "toolsel":
        out.write(yaml_text(conversion.document))
    else:
        out.write(json_text(conversion.document))


def json_text(document: Any) -> str:
    """Two-space JSON in the document's own key order (a schema's properties stay in the
    order they were written); integers beyond 64 bits exact."""
    import orjson

    from toolsel.jsontext import dumps

    text = dumps(document, option=orjson.OPT_INDENT_2).decode()
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def yaml_text(document: Any) -> str:
    """Block YAML in the document's key order, as registries are written by hand: list
    items indented under their key, short lists of scalars on one line (`[a, b]`), text with
    line breaks as `|` blocks where YAML can hold it so (else quoted), no anchors."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)

        def ignore_aliases(self, data: Any) -> bool:
            return True

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = "|" if "\n" in value else None
        if _OTHER_BREAKS.search(value):  # escaped, or a reader would fold them to spaces
            style = '"'
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    def sequence(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
        flow = all(_short_scalar(item) for item in value) and len(str(value)) <= 60
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)

    Dumper.add_representer(str, text)
    Dumper.add_representer(list, sequence)
    return yaml.dump(  # a SafeDumper subclass: plain data only
        document,
        Dumper=Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=80,
    )


#: Characters JSON may hold raw in a string but YAML-based readers (toolsel's own among
#: them) refuse or read as line breaks: written as \\u escapes, which every reader takes.
#: Only strings hold non-ASCII text in JSON, so replacing them in the text is exact.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")

#: Characters YAML reads as line breaks (or drops) unless they are escaped in double quotes.
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029\ufeff]")


def _short_scalar(value: Any) -> bool:
    if isinstance(value, str):
        return "\n" not in value and len(value) <= 40
    return value is None or isinstance(value, (bool, int, float))


def note_lines(notes: tuple[ConversionNote, ...]) -> list[str]:
    """One line per note: what, for how many tools (naming the first two), and what became
    of it; notes with the same outcome under one line that says it."""
    groups: dict[str, list[ConversionNote]] = {}
    for note in notes:
        groups.setdefault(note.outcome, []).append(note)
    lines = []
    for outcome, group in groups.items():
        if len(group) == 1:
            lines.append(f"note: {_what(group[0])}: {outcome}")
            continue
        lines.append(f"note: {outcome.replace(' it', ' these', 1)}:")
        lines += [f"note:   {_what(note)}" for note in group]
    return lines


def _what(note: ConversionNote) -> str:
    count = len(note.tools)
    shown = ", ".join(note.tools[:2]) + (", ..." if count > 2 else "")
    return f"{note.subject} of {count} {'tool' if count == 1 else 'tools'} ({shown})"
