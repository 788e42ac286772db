"""Options shared by several commands: ``--profile``, ``--option`` and the profile they give."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from audit.errors import ProfileError

if TYPE_CHECKING:  # pragma: no cover
    from audit.profile import Profile

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_PROFILE = "home-open"


def profile_option(f: F) -> F:
    return click.option("--profile", "profile_name", default=None, metavar="NAME",
                        help="Rule profile for files without a 'Profile:' line (home-open, qdan, stripped32, "
                             "site; default home-open). A file's own line wins.")(f)


def option_option(f: F) -> F:
    return click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
                        help="Override one profile parameter, as an 'Option:' line would (not for a file with "
                             "its own 'Profile:' line).")(f)


def profile_name(name: str | None) -> str:
    """The profile named by ``--profile`` (``home-open`` without one); an empty name is refused, since it is
    most likely a shell variable that was not set."""
    if name is None:
        return DEFAULT_PROFILE
    if not name.strip():
        raise ProfileError("--profile is empty (is a shell variable unset?); name a profile, e.g. --profile "
                           "home-open")
    return name


def cli_profile(name: str | None, options: tuple[str, ...]) -> Profile:
    """The profile of ``--profile NAME`` with every ``--option`` applied (``ProfileError`` on a bad one)."""
    from audit.profile import load_profile, option_pairs

    return load_profile(profile_name(name)).with_options(option_pairs(options))
