"""The service's Ed25519 key (``cryptography``): made at the service's first start, kept beside its database
(``<db>.key``, PKCS#8 PEM, readable by the service's user only), never written to a log or a response. Its public
half is what anyone checks a signed head or receipt with (``GET /api/v1/key``, printed by ``audit serve``)."""

from __future__ import annotations

import base64
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.trust.canonical import canonical_json

ALGORITHM = "Ed25519"


def key_path(db: str) -> Path:
    """Where the service's private key for database ``db`` lives."""
    return Path(db + ".key")


@dataclass(frozen=True)
class ServiceKey:
    """The service's signing key (the private half never leaves this object but to its file)."""

    private: Any  # cryptography's Ed25519PrivateKey

    @property
    def public_hex(self) -> str:
        """The public key: its 32 raw bytes in hex."""
        from cryptography.hazmat.primitives import serialization

        raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return bytes(raw).hex()

    def public(self) -> dict[str, str]:
        """What ``GET /api/v1/key`` answers (and ``audit verify-receipt --key`` reads back)."""
        from cryptography.hazmat.primitives import serialization

        pem = self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo)
        return {"algorithm": ALGORITHM, "key": self.public_hex, "pem": bytes(pem).decode("ascii")}

    def sign(self, fields: dict[str, Any]) -> str:
        """An Ed25519 signature (base64) over ``fields`` as canonical JSON."""
        return base64.b64encode(self.private.sign(canonical_json(fields))).decode("ascii")

    def signed(self, fields: dict[str, Any]) -> dict[str, Any]:
        """``fields`` with ``signature`` added."""
        return {**fields, "signature": self.sign(fields)}


def load_or_create(path: Path) -> ServiceKey:
    """The key at ``path``, made there first if there is none (0600, created exclusively: never over another
    file). ``AuditError`` for a key file others may read, or one that is not an Ed25519 private key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load(path)
    except OSError as exc:
        raise AuditError(f"{path}: the service's key cannot be made there ({exc.strerror})") from None
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
        fh.flush()
        os.fsync(fh.fileno())
    return ServiceKey(key)


def load(path: Path) -> ServiceKey:
    """The service's key at ``path`` (see ``load_or_create``)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as exc:
        raise AuditError(f"{path}: the service's key cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(mode) or mode & 0o077:
        raise AuditError(f"{path}: the service's key may be read by others (mode {stat.S_IMODE(mode):o}); make it "
                         f"private with 'chmod 600 {path}', or make a new key by removing it (signed receipts "
                         "then name the new key)")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise AuditError(f"{path}: not an Ed25519 private key in PEM (the service's key is made there at first "
                         "start); move it away and start again")
    return ServiceKey(key)


def read_public_key(path: str) -> str:
    """A public key given to ``audit verify-receipt --key``: what ``GET /api/v1/key`` answers (JSON), its PEM, or
    the 64 hex digits; the key as hex. ``AuditError`` for anything else."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if text.startswith("{"):
        try:
            text = str(json.loads(text).get("key", ""))
        except (ValueError, AttributeError):
            text = ""
    elif text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(text.encode("ascii"))
        except (ValueError, TypeError):
            key = None
        if isinstance(key, Ed25519PublicKey):
            return bytes(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)).hex()
        text = ""
    text = text.lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise AuditError(f"{path}: not an Ed25519 public key (give what GET /api/v1/key answers, its pem, or its "
                         "64 hex digits)")
    return text


def signature_holds(public_hex: str, fields: dict[str, Any], signature: object) -> bool:
    """Whether ``signature`` (base64) is the key's Ed25519 signature over ``fields`` as canonical JSON."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if not isinstance(signature, str):
        return False
    try:
        raw = base64.b64decode(signature, validate=True)
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(raw, canonical_json(fields))
    except (InvalidSignature, ValueError):
        return False
    return True
