"""The root of every error a user can act on (bad file, unknown run, database too new, ...).

The CLI prints these as `judgeapp: error: MESSAGE` without a traceback, and the GUI shows
them in a message box; anything else is a bug and keeps its traceback."""


class UserError(Exception):
    """A problem in what the user gave or asked for, explained by its message."""
