# Short task file; CI (.ci/run) uses the same commands the README gives.
.PHONY: dev test test-fast explore lint bench docs mutate

dev:
	python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test,embed,dev]'

test:
	python -m pytest -n auto

test-fast:  # skips tests marked slow; fewer Hypothesis examples
	HYPOTHESIS_PROFILE=dev python -m pytest -n auto -m "not slow"

explore:  # the property tests with fresh random examples, many more of them
	HYPOTHESIS_PROFILE=explore python -m pytest -n auto -m "not slow" $$(grep -rl "from hypothesis" tests)

lint:
	ruff check toolsel tests benchmarks && ruff format --check toolsel tests benchmarks && mypy
	toolsel lint --strict registries/

bench:
	python benchmarks/registry_bench.py && python benchmarks/rank_bench.py && python benchmarks/embed_bench.py

docs:
	python docs/generate.py

# Mutation testing of one module or more (minutes each: a benchmark, never CI), e.g.
#   make mutate MODULE=toolsel/replay/matcher.py
# prints the score and the survivors; docs/mutation.md keeps the survivors judged equivalent.
mutate:
	@test -n "$(MODULE)" || { echo "usage: make mutate MODULE=toolsel/replay/matcher.py [TESTS='tests/replay ...']"; exit 2; }
	python benchmarks/mutation.py run $(MODULE) $(if $(TESTS),--tests $(TESTS))
