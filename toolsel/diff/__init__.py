"""`toolsel diff`: compare two versions of a registry and class every change breaking,
risky or safe. The rule table below is the single source for docs, SARIF rule metadata and
`--explain`; each rule family lives in `toolsel.diff.rules.<family>`.

Data flows one way: two loaded registries -> `match` (which OLD tool is which NEW tool) ->
rule families -> `DiffResult` (frozen) -> `toolsel.render.diff`.
"""

from __future__ import annotations

from toolsel.diff.model import Category, DiffRule

C = Category

_TABLE: tuple[tuple[str, str, Category, str], ...] = (
    ("TD001", "tool-removed", C.IDENTITY, "breaking: a tool removed without an alias or deprecation"),
    ("TD002", "deprecated-tool-removed", C.IDENTITY, "risky: a tool removed after being deprecated"),
    ("TD003", "renamed-with-alias", C.IDENTITY, "safe: renamed, the old name kept in `aliases`"),
    ("TD004", "renamed-without-alias", C.IDENTITY, "breaking: renamed to its `deprecated_by` without an alias"),
    ("TD005", "alias-removed", C.IDENTITY, "breaking: an alias (a published name) removed"),
    ("TD006", "name-reused", C.IDENTITY, "breaking: a retired name or alias now names another tool"),
    ("TD007", "name-case-changed", C.IDENTITY, "breaking: a name changed only in case"),
    ("TD008", "tool-added", C.IDENTITY, "safe: a tool added"),
    ("TD009", "tools-reordered", C.COST, "safe: tools listed in another order (prompt cache prefix)"),
    ("TD101", "parameter-removed", C.PARAMS, "breaking if closed or strict, else risky"),
    ("TD102", "required-parameter-added", C.PARAMS, "breaking: old calls lack it"),
    ("TD103", "optional-parameter-added", C.PARAMS, "safe"),
    ("TD104", "parameter-became-required", C.PARAMS, "breaking"),
    ("TD105", "parameter-became-optional", C.PARAMS, "safe"),
    ("TD106", "type-narrowed", C.PARAMS, "breaking: type changed or narrowed"),
    ("TD107", "type-widened", C.PARAMS, "safe"),
    ("TD108", "enum-value-removed", C.PARAMS, "breaking"),
    ("TD109", "enum-widened", C.PARAMS, "safe: enum value added, enum or const dropped"),
    ("TD110", "enum-introduced", C.PARAMS, "breaking: enum or const introduced, const changed"),
    ("TD111", "default-changed", C.PARAMS, "risky: calls that omit it behave differently"),
    ("TD112", "additional-properties", C.PARAMS, "breaking when tightened, safe when loosened"),
    ("TD113", "pattern", C.PARAMS, "added breaking, changed risky, removed safe"),
    ("TD114", "bounds", C.PARAMS, "breaking when a bound is tightened or set, safe when loosened"),
    ("TD115", "format", C.PARAMS, "added or changed breaking, removed safe"),
    ("TD116", "branches", C.PARAMS, "anyOf/oneOf branch removed breaking, added safe"),
    ("TD117", "nullability", C.PARAMS, "no longer nullable breaking, nullable safe"),
    ("TD118", "parameter-description", C.PARAMS, "risky: steers how arguments are filled"),
    ("TD119", "schema-unknown", C.PARAMS, "risky: a change the walk does not decide (review)"),
    ("TD120", "output-schema", C.PARAMS, "outputSchema: the TD1xx rule with its class flipped"),
    ("TD201", "description-changed", C.SELECTION, "risky: selection shifts"),
    ("TD202", "case-regression", C.SELECTION, "breaking: an expected tool left a golden case's top k"),
    ("TD203", "ranking-inputs", C.SELECTION, "search_hint/tags risky, display_name safe"),
    ("TD204", "category-changed", C.SELECTION, "risky: category filters and scopes"),
    ("TD206", "poisoning-markers", C.SECURITY, "breaking: hidden characters or injection markers gained"),
    ("TD301", "permission-raised", C.SECURITY, "breaking: approvals given before no longer hold"),
    ("TD302", "permission-lowered", C.SECURITY, "risky: a write tool could be auto-approved"),
    ("TD303", "privileged-tool-added", C.SECURITY, "risky: an added tool needs write or more"),
    ("TD401", "deprecated-with-successor", C.LIFECYCLE, "safe: deprecated, `deprecated_by` exists"),
    ("TD402", "deprecated-without-successor", C.LIFECYCLE, "risky: agents have no successor"),
    ("TD403", "dangling-successor", C.LIFECYCLE, "breaking: `deprecated_by` names a missing or deprecated tool"),
    ("TD404", "undeprecated", C.LIFECYCLE, "risky"),
    ("TD406", "version", C.LIFECYCLE, "version lowered breaking; unchanged despite changes risky"),
    ("TD501", "requires-changed", C.GRAPH, "requires added risky, removed safe"),
    ("TD502", "requires-cycle", C.GRAPH, "breaking: a requires cycle introduced"),
    ("TD503", "conflicts-changed", C.GRAPH, "conflicts added risky, removed safe"),
    ("TD601", "defer-loading-on", C.LOADING, "risky: hidden until searched"),
    ("TD602", "loading-cost", C.COST, "safe: always-loaded set or definition changed"),
    ("TD603", "parent-task-toggled", C.LOADING, "risky: replay attribution changes"),
    ("TD901", "transcript-call-invalid", C.PARAMS, "breaking: a recorded call valid under OLD fails under NEW"),
)  # fmt: skip

RULES: dict[str, DiffRule] = {
    rule_id: DiffRule(rule_id, name, category, summary)
    for rule_id, name, category, summary in _TABLE
}

__all__ = ["RULES"]
