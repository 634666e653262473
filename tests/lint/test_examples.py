"""TS704 (lint/rules/examples.py): an example prompt that holds a secret or personal data."""

from __future__ import annotations

from tests.lint.helpers import assert_findings, lint_text

TOOL = "- name: send_email\n  description: Send an e-mail.\n"
OVERLAY = "# file: learned.yaml\nexamples:\n  send_email:\n"


def test_each_leak_is_reported_with_its_sort_and_placeholder() -> None:
    text = (
        TOOL
        + OVERLAY
        + '    - "email the report to jane.doe@example.com"\n'
        + '    - "log in with password: hunter22"\n'
    )
    findings = [f for f in lint_text(text) if f.rule == "TS704"]
    assert [f.message for f in findings] == [
        "example holds personal data: it looks like an e-mail address; write <email> in its place",
        "example holds a secret: it looks like a password; write <password> in its place",
    ]
    assert [f.pointer for f in findings] == ["/examples/send_email/0", "/examples/send_email/1"]


def test_placeholders_learn_wrote_are_not_reported() -> None:
    text = (
        TOOL
        + OVERLAY
        + '    - "email the report to <email>"\n'
        + '    - "log in with password: <password>"\n'
        + '    - "my password is <password>, AWS_SECRET_ACCESS_KEY=<aws-secret>"\n'
        + '    - "fetch https://<url-credentials>@10.0.0.5/x with token=<secret>"\n'
    )
    assert_findings(text, [], rule="TS704")
