"""Rendering: the only place that turns result objects into text. Core modules never print."""
