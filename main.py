"""judgeapp launcher: `python main.py` is the same as the `judgeapp` command."""

import sys

from judgeapp.cli import main

if __name__ == "__main__":
    sys.exit(main())
