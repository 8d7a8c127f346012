"""The secrets kind: detect-secrets' rules over every version, reported masked everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memharness_tui.cli import main
from memharness_tui.hygiene import scan
from memharness_tui.hygiene.render import to_markdown, to_text
from memharness_tui.hygiene.secrets import find_secrets, mask
from memharness_tui.store import FakeClock, Store

AWS = "AKIAIOSFODNN7EXAMPLE"
GHP = "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"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
       "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7x\nqz09\n-----END RSA PRIVATE KEY-----"

FOUND = [
    (f"The deploy key is {AWS} for staging", "aws-access-key", AWS),
    (f"CI pushes with {GHP} today", "github-token", GHP),
    ("gitlab token glpat-xq3Jd9uWk2bL8mN0pQrS here", "gitlab-token", "glpat-xq3Jd9uWk2bL8mN0pQrS"),
    ("bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx posts", "slack-token",
     "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("billing uses sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    (f"the signing key:\n{PEM}\nkeep it", "private-key", PEM),
    (f"session {JWT} expires hourly", "jwt", JWT),
    ("db at postgres://admin:s3cr3tPassw0rd@db.internal:5432/app", "password-in-url",
     "s3cr3tPassw0rd"),
    ('config has password = "hunter2hunter2"', "keyword-secret", "hunter2hunter2"),
    ("the api token is 8f14e45fceea167a5a36dedd4bea2543", "high-entropy-base64",
     "8f14e45fceea167a5a36dedd4bea2543"),
]

BENIGN = [
    "pinned at commit 3f786850e387550fdab836ed7e6dc881de23001b in src/app.py",
    "Run npm test before pushing",
    "uuid 123e4567-e89b-12d3-a456-426614174000 identifies the tenant",
    "memharness_tui/hygiene/scan.py streams the rows in id order",
    "The keyboard shortcut for search is ctrl+k",
    "Passwords are hashed with argon2id before they reach the database",
]


@pytest.mark.parametrize(("text", "rule", "secret"), FOUND)
def test_each_rule_finds_the_whole_secret(text: str, rule: str, secret: str) -> None:
    spans = find_secrets(text)
    assert [(s.rule, text[s.start:s.end]) for s in spans] == [(rule, secret)]
    assert secret not in spans[0].masked and secret not in repr(spans)


@pytest.mark.parametrize("text", BENIGN)
def test_commits_ids_paths_and_prose_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


def test_mask_names_without_giving() -> None:
    assert mask(AWS) == "AKIA…MPLE (20 chars)"
    assert mask("hunter2") == "…(7 chars)"


@pytest.fixture
def leaky(tmp_path: Path) -> str:
    path = str(tmp_path / "leaky.db")
    with Store.open(path, clock=FakeClock("2026-01-01T00:00:00.000Z")) as s:
        a, _ = s.remember("project:x", f"The deploy key is {AWS}", source_agent="claude",
                          source_ref="session-7")
        _, b, _ = s.revise(a, "The deploy key rotates monthly")
        c, _ = s.remember("project:y", f"CI pushes with {GHP} today", source_agent="codex")
        s.forget(fact_id=c)
        s.remember("project:y", "nothing secret here")
    return path


def test_every_version_is_scanned_and_grouped_by_chain(leaky: str) -> None:
    with Store.open(leaky, readonly=True) as s:
        r = scan(s)
    got = [(f.id, f.status, f.chain, f.source_agent, f.source_ref, [x.rule for x in f.spans])
           for f in r.secrets]
    assert got == [(1, "superseded", (1, 2), "claude", "session-7", ["aws-access-key"]),
                   (3, "retracted", (3,), "codex", "", ["github-token"])]
    assert r.counts()["secrets"] == 2


def test_no_report_format_holds_a_secret(leaky: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(leaky, readonly=True) as s:
        r = scan(s)
    texts = [to_text(r), to_markdown(r), json.dumps(r.to_dict(), ensure_ascii=False), repr(r)]
    for t in texts:
        assert AWS not in t and GHP not in t
        assert "AKIA…MPLE" in t
    assert main(["hygiene", "--db", leaky, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["id"] for f in data["secrets"]] == [1, 3]
    assert data["secrets"][0]["spans"][0]["rule"] == "aws-access-key"
    assert main(["hygiene", "--db", leaky, "--fail-on", "secrets"]) == 1
    out = capsys.readouterr().out
    assert AWS not in out and "#1" in out
