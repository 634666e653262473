"""TD101-TD120 on matched tools: `parameters` with request rules, `outputSchema` with the
same walk read in the response direction (TD120)."""

from __future__ import annotations

from collections.abc import Iterator

from toolsel.diff.context import DiffContext
from toolsel.diff.model import Change
from toolsel.diff.rules.schema import compare_schemas
from toolsel.registry.pointer import split_pointer


def check(context: DiffContext) -> Iterator[Change]:
    for pair in context.matching.pairs:
        old, new = pair.old, pair.new
        if old.parameters != new.parameters or old.strict != new.strict:
            deltas = compare_schemas(
                old.parameters, new.parameters, old_strict=old.strict, new_strict=new.strict
            )
            for delta in deltas:
                yield context.change(
                    delta.rule, delta.request, delta.message, old_tool=old, new_tool=new,
                    field="parameters", tokens=tuple(split_pointer(delta.pointer)),
                    before=delta.old, after=delta.new, subject=delta.subject,
                )  # fmt: skip
        if old.output_schema != new.output_schema:
            for delta in compare_schemas(
                old.output_schema or {}, new.output_schema or {}, old_strict=False, new_strict=False
            ):  # a response has properties, not parameters
                yield context.change(
                    "TD120", delta.response, f"outputSchema: {delta.message.replace('parameter ', 'property ')} ({delta.rule}, read as a response)",
                    old_tool=old, new_tool=new, field="output_schema",
                    tokens=tuple(split_pointer(delta.pointer)), before=delta.old, after=delta.new,
                    rule_for_fingerprint=f"TD120/{delta.rule}", subject=delta.subject,
                )  # fmt: skip
