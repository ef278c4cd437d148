"""One module per CLI subcommand; each defines `register(subparsers)` and sets
`handler=` on its parser with `set_defaults`. Errors users can fix are reported by raising
`judgeapp.commands.CommandError` (printed as `judgeapp: error: ...`, exit 2) or a
`FormatError` (exit 1 with the file, line and problem)."""


class CommandError(Exception):
    """A problem with what the user asked for; printed without a traceback."""
