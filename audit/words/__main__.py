"""``python -m audit.words``: store each language's catalogue beside its message file (``en.json`` …), read from
the ``.toml`` as it is now; run after editing a message file (a test says when it is due; until then the ``.toml``
is read with TOML's parser at every start)."""

from audit.words import write_stored

for path in write_stored():
    print(f"wrote {path}")
