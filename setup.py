"""The compiled part of judgeapp (the project's metadata is in pyproject.toml).

``judgeapp.formats._runread`` reads a TREC run for `evaluate` in one pass over its bytes
(judgeapp/formats/_runread.c). It is optional: where it cannot be built (no C compiler, no
Python headers) the install goes on without it, and judgeapp reads runs with numpy, as
fast as before it was added (judgeapp/formats/judged_runs.py says which is used).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "judgeapp.formats._runread",
            sources=["judgeapp/formats/_runread.c"],
            depends=["judgeapp/formats/_runread_parts.h"],
            optional=True,
        )
    ]
)
