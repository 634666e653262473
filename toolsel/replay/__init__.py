"""Replay agent transcripts: read lines (`lines`), decode each format into events
(`formats/`), pair calls with results by id (`matcher`), and report (`report`, built by
`build`, kept by `packing`), with registry checks (`checks`) and usage statistics (`stats`).
`driver.replay_paths` runs it all.
"""
