"""Rendering: the only place that turns result objects into text. One module per command,
each with a table from its `--format` enum (`formats`) to renderers; `console` makes the
TTY-aware Rich consoles and the JSON writers. Core modules never print."""
