"""Errors of the real-broker layer."""

from __future__ import annotations

from ..core import KcompactError


class BrokerError(KcompactError):
    """A real Kafka broker could not be resolved, started, driven or stopped."""


class PortTaken(BrokerError):
    """A JVM exited at startup because a port chosen for it was taken meanwhile (another start may choose again)."""
