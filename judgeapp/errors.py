"""The root of every error a user can act on (bad file, unknown run, database too new, ...).

The CLI prints these as `judgeapp: error: MESSAGE` without a traceback, and the GUI shows
them in a message box; anything else is a bug and keeps its traceback."""


class UserError(Exception):
    """A problem in what the user gave or asked for, explained by its message."""

    # the command line's exit status: 1 for a bad file (an input, the project file, an
    # output that cannot be written), 2 for a request that cannot be honoured
    exit_code = 2


class NoProject(UserError, ValueError):
    """Nothing is at a project path that was to be opened (not created): a mistyped path,
    a moved file. Creating a project there is asked for explicitly (`init`, New project)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"no project at {path}")
        self.path = path
