"""Id aliases: models see short ids like `link-1`, code sees the UUIDs, per conversation.

Declare them with `Alias(prefix)` (or the `x-toolcast-alias` schema keyword),
keep them in an `AliasSession`, pass it to `tools.invoke(call, aliases=session)`
(an aliased tool refuses `aliases=None`; `aliases=RAW_IDS` sends the raw ids).
This wing imports only the root vocabulary (`toolcast.errors`, `_outcome`,
`_content`, `_result`); `toolcast.aliases.redis` adds the optional Redis store.
"""

from __future__ import annotations

from toolcast.aliases._declare import ALIAS_KEYWORD, Alias
from toolcast.aliases._required import RAW_IDS, RawIds
from toolcast.aliases._session import AliasSession, UnknownAliasError
from toolcast.aliases._store import (
    DEFAULT_TTL,
    AliasesUnavailableError,
    AliasStore,
    MemoryAliasStore,
)

__all__ = (
    "ALIAS_KEYWORD",
    "DEFAULT_TTL",
    "RAW_IDS",
    "Alias",
    "AliasSession",
    "AliasStore",
    "AliasesUnavailableError",
    "MemoryAliasStore",
    "RawIds",
    "UnknownAliasError",
)
