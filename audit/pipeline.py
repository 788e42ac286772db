"""The whole audit of a file: read → parse → replay → session checks, streaming one hand at a time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from audit.dialects.unread import unread_site
from audit.errors import NotAHandHistory, ProfileError
from audit.findings import Finding, parse_finding, said_finding
from audit.model import (Block, CardsLine, Hand, NothingHere, OptionLine, ParseFailure, Preamble, ProfileLine,
                         SessionEnd, SessionLine)
from audit.dialects.dispatch import parse_block
from audit.dialects.registry import default_profile
from audit.profile import Profile, load_profile
from audit.read import RawBlock, read_blocks, read_bytes_blocks, read_text_blocks
from audit.engine.result import HandResult
from audit.engine.streets import replay
from audit.rules import Rule
from audit.engine.session import SessionTracker

UNSUPPORTED_GAMES_OK = ("5 Card Draw",)
# A crafted hand (hundreds of tied seats) could otherwise turn 40 KB of log into megabytes of findings.
MAX_FINDINGS_PER_RULE = 20
# Blocks that open nothing known, held until a block of the file does (a file that ends first is no log): more
# than this and the file is read as a log whose blocks are unreadable, so that memory does not grow with it.
MAX_UNKNOWN_HELD = 64
# FORMAT.md: "one line per occupied seat, seats 1–10".
MAX_SEAT_NUMBER = 10
# a dialect's name → the profile its hands are audited under (``default_profile``), as asked so far
_DIALECT_PROFILES: Final[dict[str, str | None]] = {}


@dataclass
class Audited:
    """One block's outcome: a replayed hand (``result``), or findings only (a parse error, standings)."""

    findings: list[Finding]
    result: HandResult | None = None
    failure: ParseFailure | None = None
    block: RawBlock | None = None
    session: str | None = None
    profile: str | None = None
    hand: Hand | None = None  # the hand read (also when it was not replayed: an unsupported game)

    # Written out (the dataclass keeps it): the generated one runs as interpreted code, once per hand.
    def __init__(self, findings: list[Finding], result: HandResult | None = None, failure: ParseFailure | None = None,
                 block: RawBlock | None = None, session: str | None = None, profile: str | None = None,
                 hand: Hand | None = None) -> None:
        self.findings = findings
        self.result = result
        self.failure = failure
        self.block = block
        self.session = session
        self.profile = profile
        self.hand = hand


@dataclass
class FileContext:
    """What the preamble lines have said so far."""

    default_profile: Profile
    profile: Profile
    session: SessionTracker | None = None
    notices: list[str] | None = None  # where to say that the file's own Profile: line overrode --option
    shown_only: bool = False  # ``Cards: shown``: the hands show only the cards turned face up (a live table)


def audit_file(path: str, profile: Profile | None = None, steps: bool = False,
               display: str | None = None, notices: list[str] | None = None) -> Iterator[Audited]:
    """Audit every hand of one file, in file order (``profile``: for files without a ``Profile:`` line).
    ``notices`` collects what the caller should tell the user on stderr (an option the file overrode)."""
    yield from audit_blocks(read_blocks(path, display), profile, steps, notices)


def audit_text(text: str, profile: Profile | None = None, steps: bool = False,
               name: str = "<text>") -> Iterator[Audited]:
    """Audit every hand of a log held in a string (a notebook, a paste); ``name`` stands for the file."""
    yield from audit_blocks(read_text_blocks(text, name), profile, steps)


def audit_bytes(data: bytes, profile: Profile | None = None, steps: bool = False,
                name: str = "<bytes>") -> Iterator[Audited]:
    """Audit every hand of a log held as bytes (an upload), decoded as a file is."""
    yield from audit_blocks(read_bytes_blocks(data, name), profile, steps)


def audit_blocks(blocks: Iterator[RawBlock], profile: Profile | None = None,
                 steps: bool = False, notices: list[str] | None = None) -> Iterator[Audited]:
    """Audit blocks already cut from a file.

    A file that opens as the hand history of a site audit does not read is one ``UNSUPPORTED_SITE`` finding, its
    blocks unread. Blocks that open nothing known wait for the file's first block that does (at most
    ``MAX_UNKNOWN_HELD`` of them): a file that ends before one is ``NotAHandHistory``, not a string of
    unreadable hands."""
    default = profile or load_profile("home-open")
    ctx = FileContext(default, default, None, notices)
    held: list[RawBlock] | None = []  # ``None`` once the file has shown a block that reads as something known
    for block in blocks:
        if held is not None:
            if not held:
                site = unread_site(block.lines)
                if site is not None:
                    yield Audited([said_finding(Rule.UNSUPPORTED_SITE, "finding.UNSUPPORTED_SITE.site",
                                                (("site_name", site),), block.file, None, block.first_line,
                                                actual=site)])
                    return
            if block.kind == "unknown" and len(held) < MAX_UNKNOWN_HELD:
                held.append(block)
                continue
            for unknown in held:
                yield from _audited(unknown, ctx, steps)
            held = None
        yield from _audited(block, ctx, steps)
    if held:
        raise NotAHandHistory(f"{held[0].file}: not a hand history (no line of it opens a hand); left out")


def _audited(block: RawBlock, ctx: FileContext, steps: bool) -> Iterator[Audited]:
    audited = audit_parsed(parse_block(block), block, ctx, steps)
    if audited is not None:
        yield audited


def audit_parsed(parsed: Block, block: RawBlock | None, ctx: FileContext, steps: bool = False) -> Audited | None:
    """One parsed block under what the file has said so far (``ctx``): the hand replayed and judged, a parse
    failure, the standings; ``None`` for a preamble (it only changes ``ctx``). ``block``: the raw lines, kept
    with a parse failure."""
    kind = type(parsed)
    if kind is Hand:
        return _audit_hand(parsed, ctx, steps)  # type: ignore[arg-type]
    if kind is ParseFailure:
        if ctx.session is not None:
            ctx.session.lost_hand()
        sess = ctx.session.name if ctx.session else None
        return Audited([parse_finding(parsed, sess)], failure=parsed, block=block,  # type: ignore[arg-type]
                       session=sess, profile=ctx.profile.name)
    if kind is Preamble:
        _apply_preamble(parsed, ctx, block.file if block is not None else "")  # type: ignore[arg-type]
        return None
    if kind is NothingHere:  # a file's header or prologue
        return None
    tracker = ctx.session
    if tracker is None:
        return Audited([])
    findings = tracker.end(parsed)  # type: ignore[arg-type]
    tracker.ended = True
    return Audited(findings, session=tracker.name)


def _apply_preamble(pre: Preamble, ctx: FileContext, file: str) -> None:
    """``Session:`` / ``Profile:`` / ``Option:`` / ``Cards:`` lines change what the next hands are audited under.
    A preamble that names a session or a profile starts again from every card shown, unless its own ``Cards:``
    line says otherwise (so a part of a file cut at such a line, ``check --jobs``, reads as the whole file)."""
    new_session: str | None = None
    profile = ctx.profile
    cards = [item.shown_only for item in pre.items if type(item) is CardsLine]
    if cards:
        ctx.shown_only = cards[-1]
    elif any(type(item) is SessionLine or type(item) is ProfileLine for item in pre.items):
        ctx.shown_only = False
    for item in pre.items:
        if type(item) is SessionLine:
            new_session = item.name
            profile = ctx.default_profile
        elif type(item) is ProfileLine:
            try:
                profile = load_profile(item.name)
            except ProfileError as exc:
                raise ProfileError(f"{file}:{item.line}: {exc}") from None
            if ctx.notices is not None:
                _note_overridden_options(ctx.default_profile, file, item, ctx.notices)
        elif type(item) is OptionLine:
            try:
                profile = profile.with_options([(item.name, item.value)])
            except ProfileError as exc:
                raise ProfileError(f"{file}:{item.line}: {exc}") from None
    ctx.profile = profile
    if new_session is not None:
        ctx.session = SessionTracker(new_session, profile, file)
    elif ctx.session is not None:
        ctx.session.profile = profile


def _note_overridden_options(given: Profile, file: str, line: ProfileLine, notices: list[str]) -> None:
    """The command line's ``--option`` values do not reach a file that names its own profile: say so."""
    plain = dict(load_profile(given.name).params)
    changed = [f"{k}={v}" for k, v in given.params if plain.get(k) != v]
    if changed:
        notices.append(f"{file}:{line.line}: the file names its own profile ({line.name}), so --option "
                       f"{', '.join(changed)} does not apply to it")


def _audit_hand(hand: Hand, ctx: FileContext, steps: bool) -> Audited:
    tracker = ctx.session
    session = tracker.name if tracker else None
    profile = ctx.profile
    if ctx.shown_only and hand.shows_all_cards:  # judged as a site's hidden hands are (FORMAT.md, v1.1)
        hand = hand._replace(shows_all_cards=False)
    dialect = hand.dialect
    if dialect in _DIALECT_PROFILES:  # the registry is fixed: asked once per dialect, not once per hand
        dialect_profile = _DIALECT_PROFILES[dialect]
    else:
        dialect_profile = _DIALECT_PROFILES[dialect] = default_profile(dialect)
    # a site's hands: its profile, whatever the file said
    if dialect_profile is not None:
        profile = load_profile(dialect_profile)
    game = hand.game
    if game is not None and game.name not in UNSUPPORTED_GAMES_OK:
        f = said_finding(Rule.UNSUPPORTED_GAME, "finding.UNSUPPORTED_GAME.game", (("game", game.name),), hand.file,
                         hand.hand_id, hand.line, actual=game.name, session=session)
        return Audited([f], session=session, profile=profile.name, hand=hand)
    try:
        result = replay(hand, profile, session, steps)
    except Exception as exc:  # a log the engine cannot follow must not stop the other hands
        if tracker is not None:
            tracker.lost_hand()
        f = said_finding(Rule.PARSE_ERROR, "finding.PARSE_ERROR.engine_stopped",
                         (("error", type(exc).__name__), ("detail", str(exc))), hand.file, hand.hand_id, hand.line,
                         session=session)
        return Audited([f], session=session, profile=profile.name, hand=hand)
    findings = list(result.findings)
    if not _seats_on_table(hand):
        findings.extend(_seat_findings(hand, session))
    if tracker is not None:
        findings.extend(tracker.feed(result))
        tracker.after_hand(findings, result)
    if len(findings) > 1:
        findings.sort(key=_finding_line)
        if len(findings) > MAX_FINDINGS_PER_RULE:
            findings = _capped(findings, hand, session)
    result.findings = findings
    return Audited(findings, result=result, session=session, profile=result.profile, hand=hand)


def _seats_on_table(hand: Hand) -> bool:
    """Whether the button and every seat are numbered 1 to 10, as FORMAT.md says a table's seats are."""
    if hand.button < 1 or hand.button > MAX_SEAT_NUMBER:
        return False
    for st in hand.seats:
        if st.seat < 1 or st.seat > MAX_SEAT_NUMBER:
            return False
    return True


def _seat_findings(hand: Hand, session: str | None) -> list[Finding]:
    """A ``SEAT_COUNT`` finding for each seat (and the button) numbered outside 1 to 10."""
    out: list[Finding] = []
    if hand.button < 1 or hand.button > MAX_SEAT_NUMBER:
        out.append(said_finding(Rule.SEAT_COUNT, "finding.SEAT_COUNT.button_off_table",
                                (("seat", hand.button), ("most", MAX_SEAT_NUMBER)), hand.file, hand.hand_id,
                                hand.line, street="pre", expected=f"1-{MAX_SEAT_NUMBER}", actual=hand.button,
                                session=session))
    for st in hand.seats:
        if st.seat < 1 or st.seat > MAX_SEAT_NUMBER:
            out.append(said_finding(Rule.SEAT_COUNT, "finding.SEAT_COUNT.seat_off_table",
                                    (("player", st.player), ("seat", st.seat), ("most", MAX_SEAT_NUMBER)),
                                    hand.file, hand.hand_id, st.line, player=st.player, street="pre",
                                    expected=f"1-{MAX_SEAT_NUMBER}", actual=st.seat, session=session))
    return out


def _finding_line(f: Finding) -> int:
    return f.line


def _capped(findings: list[Finding], hand: Hand, session: str | None) -> list[Finding]:
    """At most ``MAX_FINDINGS_PER_RULE`` findings of one rule per hand, then one that counts the rest."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.rule] = counts.get(f.rule, 0) + 1
    if max(counts.values(), default=0) <= MAX_FINDINGS_PER_RULE:
        return findings
    kept: list[Finding] = []
    seen: dict[str, int] = {}
    for f in findings:
        seen[f.rule] = seen.get(f.rule, 0) + 1
        if seen[f.rule] <= MAX_FINDINGS_PER_RULE:
            kept.append(f)
    for rule, n in counts.items():
        if n > MAX_FINDINGS_PER_RULE:
            kept.append(said_finding(Rule[rule], "finding.more", (("n", n - MAX_FINDINGS_PER_RULE), ("rule", rule)),
                                     hand.file, hand.hand_id, hand.end_line, actual=n - MAX_FINDINGS_PER_RULE,
                                     session=session))
    return kept
