"""One module per rule family; each rule is a check function followed by its entry,
`TS302 = Rule(..., check=invalid_schema)` (or `Rule(..., problem=...)` for problems the
registry loader finds), and each module is listed in `toolsel.lint.RULE_MODULES`. Not a
decorator: mutmut skips decorated functions, and every rule body should be mutated."""
