"""The run loop: drive a model until it answers, under a policy, with resumable state.

The loop knows no provider: it speaks to a `Model` (each provider module has
one, around the official async client) and to the root runtime (`ToolSet`,
`Tool`, `ToolCall`, `ToolOutcome`) and `toolcast.policy`. Providers may import
this wing's `_model` vocabulary; this wing never imports a provider.
"""

from __future__ import annotations

from toolcast.loop._model import Model, ModelRequest, ModelTurn, Usage

__all__ = ("Model", "ModelRequest", "ModelTurn", "Usage")
