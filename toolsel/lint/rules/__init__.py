"""One module per rule family; each rule is a `@rule` check function (or a `loader_rule`
for problems the registry loader finds), registered in `toolsel.lint.RULE_MODULES`."""
