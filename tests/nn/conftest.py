"""Fixtures shared by the sweep, store and search tests."""

from __future__ import annotations

import pytest

from tests.nn.sweep_counting import count_trainings


@pytest.fixture
def counted(monkeypatch):
    """Counts the trainings a sweep or search really runs (see sweep_counting)."""
    return count_trainings(monkeypatch)
