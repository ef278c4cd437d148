"""judgeapp: build and use IR test collections.

The core (store, formats, measures, pooling, services) has no Qt; `judgeapp.ui` is the Qt shell.
"""

__version__ = "0.1.0"
