"""Fixtures shared by several test modules."""

from __future__ import annotations

import pytest

import autogradviz as agv


@pytest.fixture
def english_and_default_renderer(monkeypatch):
    """Drawings in English, laid out by the default renderer, whatever the environment says."""
    monkeypatch.delenv("AUTOGRADVIZ_RENDERER", raising=False)
    agv.set_language("en")
    yield
    agv.set_language("en")
