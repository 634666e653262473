"""Generate realistic registries of N tools (default sizes 1k, 10k, 50k) for benchmarks.

Tools get varied names (verb_object[_qualifier]), multi-sentence descriptions, 1-6 typed
parameters, categories, tags, some requires/conflicts and deprecations, so loading and
linting exercise every code path. Deterministic for a given seed.

    python benchmarks/gen_registry.py 10000 -o benchmarks/data/registry-10k.yaml
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import yaml

VERBS = "get list create update delete search find read write sync export import archive restore validate render schedule cancel approve send fetch compute merge tag move copy scan index publish".split()
OBJECTS = "user order invoice ticket file record report dashboard metric alert incident deployment build commit branch issue comment message channel calendar event contact lead account payment refund subscription product price inventory shipment warehouse document folder image video playlist note task project sprint team role permission token secret backup snapshot cluster node pod queue topic".split()
QUALIFIERS = ["", "", "", "by_id", "batch", "summary", "history", "details", "v2", "draft"]
DOMAINS = "crm billing devops storage analytics messaging calendar commerce media security hr support".split()
WORDS = "quickly safely reliably the current selected workspace remote local cached primary secondary given matching recent archived active pending external internal shared private team organisation customer vendor partner region zone tenant".split()
PARAM_NAMES = "user_id order_id query limit offset status region start_date end_date file_path channel_name message_text amount currency include_archived sort_order page_token project_key label".split()
TYPES = ["string", "integer", "boolean", "number"]


SYLLABLES = "ka lo mi ne ru sa ti vo be da fe gi ho ju ke la mo nu pi qu re si to vu wa xe yo zu ar en il or us".split()


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Pseudo-words standing in for the product, field and system names real tools mention."""
    return sorted(
        {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    )


def make_tool(rng: random.Random, index: int, names: list[str], vocab: list[str]) -> dict:
    verb, obj = rng.choice(VERBS), rng.choice(OBJECTS)
    qualifier = rng.choice(QUALIFIERS)
    domain = rng.choice(DOMAINS)
    name = "_".join(p for p in (domain, verb, obj, qualifier) if p) + f"_{index}"
    filler = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
    specifics = " ".join(rng.choice(vocab) for _ in range(rng.randint(4, 9)))
    description = (
        f"{verb.capitalize()}s {obj} data in the {domain} system for the {filler} {specifics}. "
        f"Use this when the user asks to {verb} a {obj}. "
        f"Does not {rng.choice(VERBS)} {rng.choice(OBJECTS)} records. Returns the {obj} as JSON."
    )
    properties = {}
    for param in rng.sample(PARAM_NAMES, rng.randint(1, 6)):
        kind = rng.choice(TYPES)
        spec: dict = {"type": kind, "description": f"The {param.replace('_', ' ')} to use."}
        if kind == "string" and rng.random() < 0.3:
            spec["enum"] = sorted({rng.choice(WORDS) for _ in range(3)})
        properties[param] = spec
    tool: dict = {
        "name": name,
        "description": description,
        "category": domain,
        "permission": rng.choice(["read", "read", "read", "write", "admin"]),
        "version": f"{rng.randint(0, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "tags": sorted({rng.choice(DOMAINS), obj}),
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": sorted(rng.sample(list(properties), 1)),
            "additionalProperties": False,
        },
    }
    if names and rng.random() < 0.15:
        tool["requires"] = [rng.choice(names[-200:])]
    if names and rng.random() < 0.03:
        tool["deprecated"] = True
        tool["deprecated_by"] = rng.choice(names[-50:])
    return tool


def generate(count: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    tools: list[dict] = []
    names: list[str] = []
    for index in range(count):
        tool = make_tool(rng, index, names, vocab)
        tools.append(tool)
        names.append(tool["name"])
    categories = {d: {"description": f"Tools of the {d} system."} for d in DOMAINS}
    return {"version": 1, "categories": categories, "tools": tools}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    args.output.write_text(
        yaml.dump(generate(args.count, args.seed), Dumper=dumper, sort_keys=False, width=100)
    )


if __name__ == "__main__":
    main()
