"""tests/conftest.py's `require`: a missing reference package skips a test on a developer's
machine and fails it under CI, as missing shared data and PostgreSQL do."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import require

MISSING = "judgeapp_no_such_reference"


def test_a_missing_reference_skips_outside_ci(monkeypatch):
    monkeypatch.setitem(sys.modules, MISSING, None)  # None in sys.modules: ImportError
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require(MISSING)


@pytest.mark.parametrize("value", ["true", "1", "True"])
def test_a_missing_reference_fails_under_ci(monkeypatch, value):
    monkeypatch.setitem(sys.modules, MISSING, None)
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI needs 'judgeapp_no_such_reference'"):
        require(MISSING)


def test_a_present_reference_is_returned(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require("numpy") is sys.modules["numpy"]
