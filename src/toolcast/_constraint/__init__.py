"""Constrained decoding: a JSON Schema and a GBNF grammar for "a valid call to these tools".

Imports only the root vocabulary (`_spec`, `_json`); providers' adapters use it for
their constrained mode, and `toolcast.constraint` is its public entry point.
"""

from __future__ import annotations

from toolcast._constraint._constraint import Constraint, ConstraintNote, constraint

__all__ = ("Constraint", "ConstraintNote", "constraint")
