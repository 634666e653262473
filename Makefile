# Short task file; CI (.ci/run) uses the same commands the README gives.
.PHONY: dev test lint bench docs

dev:
	python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test,embed,dev]'

test:
	python -m pytest

lint:
	ruff check toolsel tests benchmarks && ruff format --check toolsel tests benchmarks && mypy
	toolsel lint --strict registries/

bench:
	python benchmarks/registry_bench.py && python benchmarks/rank_bench.py && python benchmarks/embed_bench.py

docs:
	python docs/generate.py
