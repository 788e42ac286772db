"""A record nobody can quietly change: every stored log and live-table entry is a link of its club's chain, the
service signs the chain's head and each verdict's receipt, and anyone can check both (docs/explanation/trust.md).

Along its seams: ``canonical`` (the one canonical JSON, and SHA-256 over it), ``chain`` (the links: made and
appended by the store's and the service's one writer, inside the transaction of the rows they stand for),
``keys`` (the service's Ed25519 key, beside its database), ``receipt`` (a verdict's receipt, made and checked),
``anonymize`` (players as Player A, Player B ... for a verdict posted in public) and ``verify`` (``audit verify``:
every chain walked, every stored log re-audited).
"""
