"""The page skeleton: data travels as JSON that no text can break out of, and the CSP
allows exactly the page's own script and style."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolsel.render.html import content_security_policy, page, script_json, source_hash

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_script_json_reads_back_the_same_and_cannot_close_its_block(value: Any) -> None:
    text = script_json(value)
    assert json.loads(text) == value
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}


def test_hostile_strings_stay_inside_the_data_block() -> None:
    hostile = ["</script><script>alert(1)</script>", "<!--", "]]>", "<\u2028>"]
    html = page(
        kind="t", title="<b>title</b>", command="replay", data=hostile, scripts=("common.js",)
    )
    assert html.count("</script>") == 2  # the data block's and the script's own
    assert "<b>title</b>" not in html and "&lt;b&gt;title&lt;/b&gt;" in html
    block = re.search(r'id="toolsel-data">(.*?)</script>', html, re.S)
    assert block is not None and json.loads(block.group(1)) == hostile


def test_the_policy_allows_only_the_inline_script_and_style_of_the_page() -> None:
    html = page(kind="t", title="t", command="replay", data={}, scripts=("common.js",))
    script = re.search(r"<script>(.*?)</script>", html, re.S)
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert script is not None and style is not None
    policy = content_security_policy(script.group(1), style.group(1))
    assert policy.replace("'", "&#x27;") in html
    assert policy.startswith("default-src 'none'; ")
    assert source_hash(script.group(1)) in policy and "unsafe" not in policy
    assert "http" not in html.split("<body>")[0].replace("http-equiv", "")  # nothing external


def test_without_a_browser_the_browser_tests_skip_saying_why(
    monkeypatch: Any, tmp_path: Any
) -> None:
    import pytest

    from tests.render import browser as helper

    monkeypatch.setenv("TOOLSEL_CHROMIUM", "")
    monkeypatch.setattr(helper, "CANDIDATES", (str(tmp_path / "none"),))
    monkeypatch.setattr(helper.shutil, "which", lambda name: None)
    assert helper.chromium_path() is None
    monkeypatch.delenv("TOOLSEL_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        next(helper.browser.__wrapped__())  # type: ignore[attr-defined]
    monkeypatch.setenv("TOOLSEL_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="TOOLSEL_REQUIRE_BROWSER=1"):
        next(helper.browser.__wrapped__())  # type: ignore[attr-defined]
