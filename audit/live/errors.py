"""Why the live table refuses a request, as a message key with its parameters: said in English to scripts (the
API's ``detail``) and in the page's language to people (``Refusal.words``)."""

from __future__ import annotations

from audit.words import say


class Refusal(ValueError):
    """A request the table does not take: ``key`` names its sentence (``refusal.*`` in ``audit/words``)."""

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(say(key, "en", **params))

    def words(self, lang: str) -> str:
        """The refusal in ``lang``."""
        return say(self.key, lang, **self.params)


class TableError(Refusal):
    """A table that cannot be opened as asked, or a request the table's state does not allow (closed)."""


class EntryError(Refusal):
    """An entry that cannot be understood: an unknown player or action, a missing or impossible amount."""


class StaleVersion(TableError):
    """An entry (an undo, a close) made on a version of the table that is no longer its own: someone else entered
    first."""

    def __init__(self, version: object, current: int) -> None:
        super().__init__("refusal.stale", version=str(version), current=current)


class UnreadableLine(TableError):
    """The table wrote a line its own reader takes for another (a player's name that ``TableConfig`` should have
    refused): the entry is not made, and the table held in memory is to be rebuilt from what was stored."""

    def __init__(self, detail: str) -> None:
        super().__init__("refusal.unreadable", detail=detail[:300])


def check_version(version: object, current: int) -> None:
    """``StaleVersion`` unless ``version`` is absent (``None``) or the table's ``current`` one."""
    if version is not None and (type(version) is not int or version != current):
        raise StaleVersion(version, current)
