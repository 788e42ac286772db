"""The few exceptions for "cannot continue": everything else about a log becomes a finding."""


class AuditError(Exception):
    """Base class: the command cannot run; the message says why in plain words."""


class InputError(AuditError):
    """A file that cannot be read as a hand history at all (missing, binary, wrong encoding, absurd lines)."""


class ProfileError(AuditError):
    """An unknown profile, an unknown option name, or an option value the profile does not allow."""


class Interrupted(Exception):
    """The user stopped the command (Ctrl-C); the message says what was kept. Exit status 130."""


class NotAHandHistory(InputError):
    """A file none of whose lines opens a hand (a README a shell glob gave): said in one line and left out,
    as no log of the user's."""
