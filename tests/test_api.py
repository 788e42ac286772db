"""The library API on text, bytes and paths: the same findings as the file path, with no file on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import audit
from audit.errors import InputError
from tests.conftest import FIXTURES

DISPUTE = FIXTURES / "demo" / "reopen-dispute.txt"
ODD_CHIP = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"


def _rules(items: object) -> list[tuple[str | None, str, int]]:
    return [(f.hand, f.rule, f.line) for a in items for f in a.findings]  # type: ignore[attr-defined]


@pytest.mark.parametrize("log", [DISPUTE, ODD_CHIP], ids=lambda p: p.name)
def test_audit_text_and_bytes_equal_audit_file(log: Path) -> None:
    from_file = _rules(audit.audit_file(str(log)))
    assert from_file, "the demo disputes hold findings"
    assert _rules(audit.audit_text(log.read_text(encoding="utf-8"))) == from_file
    assert _rules(audit.audit_bytes(log.read_bytes())) == from_file


def test_audit_text_names_the_log() -> None:
    findings = [f for a in audit.audit_text(DISPUTE.read_text(encoding="utf-8"), name="paste") for f in a.findings]
    assert {f.file for f in findings} == {"paste"}


def test_audit_bytes_decodes_as_a_file_does() -> None:
    text = DISPUTE.read_text(encoding="utf-8")
    crlf_bom = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
    utf16 = text.encode("utf-16")  # with a byte-order mark
    expected = _rules(audit.audit_file(str(DISPUTE)))
    assert _rules(audit.audit_bytes(crlf_bom)) == expected
    assert _rules(audit.audit_bytes(utf16)) == expected


def test_audit_bytes_refuses_binary_with_the_name() -> None:
    with pytest.raises(InputError, match="upload.bin: this is not a text file"):
        list(audit.audit_bytes(b"\x00\x01\x02" * 100, name="upload.bin"))


def test_explain_text_equals_explain_file() -> None:
    text = ODD_CHIP.read_text(encoding="utf-8")
    from_file = [e.as_dict() for e in audit.explain_file(str(ODD_CHIP))]
    assert any(e["kind"] == "session" for e in from_file)
    expected = json.dumps(from_file).replace(json.dumps(str(ODD_CHIP))[1:-1], "LOG")
    assert json.dumps([e.as_dict() for e in audit.explain_text(text, name="LOG")]) == expected
    assert json.dumps([e.as_dict() for e in audit.explain_bytes(text.encode(), name="LOG")]) == expected


def test_explain_text_unknown_hand_names_the_log() -> None:
    with pytest.raises(InputError, match="^paste: no hand 'nope'"):
        list(audit.explain_text(DISPUTE.read_text(encoding="utf-8"), hand_id="nope", name="paste"))


def test_read_hands_from_path_text_and_bytes() -> None:
    by_path = [h.hand_id for h in audit.read_hands(str(ODD_CHIP))]
    assert len(by_path) > 1
    assert [h.hand_id for h in audit.read_hands(text=ODD_CHIP.read_text(encoding="utf-8"))] == by_path
    assert [h.hand_id for h in audit.read_hands(data=ODD_CHIP.read_bytes())] == by_path
    with pytest.raises(TypeError):
        list(audit.read_hands())
