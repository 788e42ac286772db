"""A verdict's receipt, and checking one offline (``audit verify-receipt``).

A receipt names the log (its bytes' SHA-256), the hand (or the session), the profile and options, the audit
version and the verdict's digest: the SHA-256 of the canonical JSON of the explanation (``audit explain --format
json``'s object, less the file's name, which is the reader's), with the profile and options it was judged under.
The service adds its chain's link for the log (club, position, hash) and signs the whole (Ed25519). Anyone holding
the log re-audits it under the receipt's profile and gets the same digest, or the verdict was not this log's.
An anonymized page's receipt says so and digests the verdict with the real names: it checks against the original
log, never against the page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit.trust.canonical import canonical_text, sha256_of
from audit.trust.keys import signature_holds

if TYPE_CHECKING:  # pragma: no cover
    from audit.explain.records import Explained
    from audit.profile import Profile

SIGNED_FIELDS = ("log_sha256", "hand", "session", "profile", "options", "version", "verdict_sha256", "anonymized",
                 "chain")
"""The fields a signature covers (every field of a receipt but ``signature``)."""


def verdict_sha256(explained: dict[str, Any], profile: str, options: dict[str, str]) -> str:
    """The digest of one verdict: its explanation's JSON object (less ``receipt`` and every ``file``: the name
    the log has where it is read, the explanation's and each finding's) with its profile and options."""
    body = _without_file({k: v for k, v in explained.items() if k != "receipt"})
    return sha256_of({"profile": profile, "options": options, "explanation": body})


def _without_file(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_file(v) for k, v in value.items() if k != "file"}
    if isinstance(value, (list, tuple)):
        return [_without_file(v) for v in value]
    return value


def make_receipt(item: Explained, log_sha256: str, profile: str, options: Iterable[tuple[str, str]],
                 anonymized: bool = False) -> dict[str, Any]:
    """The receipt of one hand's (or session's) verdict, unsigned and with no chain position (the service adds
    both: ``seal``)."""
    from audit import __version__

    opts = {k: v for k, v in options}
    data = item.as_dict()
    out: dict[str, Any] = {"log_sha256": log_sha256}
    if data.get("kind") == "session":
        out["session"] = data["session"]
    else:
        out["hand"] = data["hand"]
    out.update(profile=profile, options=opts, version=__version__,
               verdict_sha256=verdict_sha256(data, profile, opts))
    if anonymized:
        out["anonymized"] = True
    return out


def with_receipts(original: list[Explained], shown: list[Explained], log_sha256: str, profile: str,
                  options: Iterable[tuple[str, str]], anonymized: bool = False) -> list[dict[str, Any]]:
    """The JSON objects of ``shown`` (the explanations given out: ``original`` itself, or without names), each
    with the receipt of its ``original`` (``receipt``)."""
    pairs = list(options)
    return [{**s.as_dict(), "receipt": make_receipt(o, log_sha256, profile, pairs, anonymized)}
            for o, s in zip(original, shown)]


def signed_part(receipt: dict[str, Any]) -> dict[str, Any]:
    """What a receipt's signature covers."""
    return {k: receipt[k] for k in SIGNED_FIELDS if k in receipt}


def receipt_line(receipt: dict[str, Any]) -> str:
    """The receipt as one line to copy (its canonical JSON)."""
    return canonical_text(receipt)


def short_code(receipt: dict[str, Any]) -> str:
    """A short code for people to read out: the first 12 hex digits of the verdict's digest, in groups of 4."""
    digest = str(receipt.get("verdict_sha256", ""))[:12].upper()
    return "-".join(digest[i:i + 4] for i in range(0, len(digest), 4))


@dataclass
class ReceiptCheck:
    """What ``check_receipt`` found: ``holds`` when every check passed; ``problems`` says why not, ``notes``
    what was not checked."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return not self.problems


def check_receipt(receipt: Any, data: bytes, name: str, key_hex: str | None) -> ReceiptCheck:
    """Check ``receipt`` against the log ``data`` (its bytes), re-auditing it offline under the receipt's profile
    and options; with ``key_hex``, its signature too (a receipt with none, or another key's, does not hold)."""
    from audit.errors import AuditError
    from audit.explain import explain_bytes
    from audit.errors import ProfileError
    from audit.profile import load_profile

    out = ReceiptCheck()
    if not isinstance(receipt, dict) or not isinstance(receipt.get("verdict_sha256"), str):
        out.problems.append("this is not a receipt (a JSON object with log_sha256, hand or session, profile, "
                            "options, version, verdict_sha256)")
        return out
    if key_hex is not None:
        if "signature" not in receipt:
            out.problems.append("the receipt is not signed (audit explain makes unsigned receipts; the service "
                                "signs its own)")
        elif not signature_holds(key_hex, signed_part(receipt), receipt["signature"]):
            out.problems.append("the signature is not this key's over this receipt (signed by another key, or the "
                                "receipt was changed after it was signed)")
    elif "signature" in receipt:
        out.notes.append("the signature was not checked: give the service's key with --key (GET /api/v1/key)")
    sha = hashlib.sha256(data).hexdigest()
    if sha != receipt.get("log_sha256"):
        out.problems.append(f"{name} is not the log of this receipt: its SHA-256 is {sha}, the receipt's "
                            f"{receipt.get('log_sha256')} (a byte was changed, or it is another log)")
        return out
    profile_name, options = receipt.get("profile"), receipt.get("options")
    if not isinstance(profile_name, str) or not isinstance(options, dict):
        out.problems.append("the receipt's profile or options are missing")
        return out
    try:
        profile: Profile = load_profile(profile_name).with_options([(str(k), str(v)) for k, v in options.items()])
    except ProfileError as exc:
        out.problems.append(f"the receipt's profile cannot be used: {exc}")
        return out
    wanted_hand, wanted_session = receipt.get("hand"), receipt.get("session")
    try:
        items = explain_bytes(data, profile, wanted_hand if "hand" in receipt else None, name)
        found = None
        for item in items:
            obj = item.as_dict()
            if ("hand" in receipt and obj.get("kind") == "hand" and obj.get("hand") == wanted_hand) or \
                    ("session" in receipt and obj.get("kind") == "session" and obj.get("session") == wanted_session):
                found = obj
                break
    except AuditError as exc:
        out.problems.append(str(exc))
        return out
    what = f"hand {wanted_hand}" if "hand" in receipt else f"session {wanted_session}"
    if found is None:
        out.problems.append(f"{name} has no {what}")
        return out
    if verdict_sha256(found, profile_name, {str(k): str(v) for k, v in options.items()}) != receipt["verdict_sha256"]:
        from audit import __version__

        version = receipt.get("version")
        why = "" if version == __version__ else \
            f" (the receipt was made by audit {version}, this is {__version__}: its verdict may differ for that)"
        out.problems.append(f"the verdict of {what} under {profile_name} is not the receipt's{why}")
    return out
