"""Canonical JSON: one value, one byte string, whatever the key order; hashes of it name
their purpose and keep each field in its own place."""

from __future__ import annotations

import hashlib

from toolsel.diff.canonical import (
    DEFINITION_DOMAIN,
    FINGERPRINT_DOMAIN,
    GOVERNANCE_DOMAIN,
    canonical_bytes,
    canonical_text,
    domain_hash,
)


def test_sorted_compact_utf8() -> None:
    assert canonical_bytes({"b": [1, 2.5, None], "a": {"y": True, "x": "é"}}) == (
        '{"a":{"x":"é","y":true},"b":[1,2.5,null]}'.encode()
    )
    assert canonical_bytes({"b": 1, "a": 2}) == canonical_bytes({"a": 2, "b": 1})


def test_keys_that_are_not_text_and_integers_past_64_bits() -> None:
    assert canonical_bytes({2: "x", 1: "y"}) == b'{"1":"y","2":"x"}'
    assert canonical_bytes([2**70]) == b"[1180591620717411303424]"


def test_text_is_the_bytes_decoded() -> None:
    assert canonical_text({"é": ["ü"]}) == '{"é":["ü"]}'


def test_a_domain_hash_hashes_one_array_of_the_domain_and_the_fields() -> None:
    assert domain_hash("d", ["a", 1]) == hashlib.sha256(b'["d","a",1]').hexdigest()
    assert domain_hash("d", ["a,b"]) != domain_hash("d", ["a", "b"])
    assert domain_hash("d", ["ab", ""]) != domain_hash("d", ["a", "b"])
    assert len({domain_hash(d, ["x"]) for d in (DEFINITION_DOMAIN, GOVERNANCE_DOMAIN,
                                                 FINGERPRINT_DOMAIN)}) == 3  # fmt: skip
