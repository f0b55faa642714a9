"""Backends: compile, load and run kernels (numpy, cpp, cuda); ``available()`` says which work."""

from __future__ import annotations

from symnb.backends.base import BackendStatus
from symnb.backends.select import available, resolve, status

__all__ = ["BackendStatus", "available", "resolve", "status"]
