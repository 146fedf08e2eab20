"""`RedisAliasStore`: one conversation's aliases shared by every host process.

Needs the `redis` extra (`pip install 'toolcast[redis]'`), imported only when
a store is made. Each store call is one Lua script, so it is atomic (two
processes registering the same UUID at once get the same alias; two UUIDs never
share one) and one round trip; every call refreshes the conversation's TTL. A
Redis that does not answer raises `AliasesUnavailableError`, which a call turns
into an error result (fail closed: never a fresh namespace, never an unresolved
alias passed on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolcast.aliases._store import DEFAULT_TTL, AliasesUnavailableError

__all__ = ("RedisAliasStore",)

_HINT = "toolcast.aliases.redis needs redis-py: pip install 'toolcast[redis]'"

# KEYS: uuid->alias hash, alias->uuid hash, prefix counters hash. ARGV[1]: TTL in ms.
_REFRESH = """
local ttl = tonumber(ARGV[1])
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], ttl) end
"""

_REGISTER = (
    """
local out = {}
for i = 2, #ARGV, 3 do
  local prefix, lower, spelled = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local alias = redis.call('HGET', KEYS[1], lower)
  if not alias then
    alias = prefix .. '-' .. redis.call('HINCRBY', KEYS[3], prefix, 1)
    redis.call('HSET', KEYS[1], lower, alias)
    redis.call('HSET', KEYS[2], alias, spelled)
  end
  out[#out + 1] = alias
end
"""
    + _REFRESH
    + "return out\n"
)

_LOOKUP = (
    """
local n = tonumber(ARGV[2])
local found, counts = {}, {}
for i = 1, n do found[i] = redis.call('HGET', KEYS[2], ARGV[2 + i]) end
for i = 3 + n, #ARGV do
  counts[#counts + 1] = tonumber(redis.call('HGET', KEYS[3], ARGV[i]) or '0')
end
"""
    + _REFRESH
    + "return {found, counts}\n"
)

_ALIASES_OF = (
    """
local found = {}
for i = 2, #ARGV do found[i - 1] = redis.call('HGET', KEYS[1], ARGV[i]) end
"""
    + _REFRESH
    + "return found\n"
)


def _text(value: Any) -> str | None:
    if value is None or value is False:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisAliasStore:
    """Aliases in Redis, keyed by conversation id (`redis.asyncio`).

    Keys: `<key_prefix>{<conversation>}:u2a`, `...:a2u`, `...:n` (one hash tag,
    so a cluster keeps a conversation on one node).
    """

    def __init__(
        self,
        client: Any,
        *,
        ttl: float = DEFAULT_TTL,
        key_prefix: str = "toolcast:aliases:",
    ) -> None:
        """Make a store on `client`.

        Args:
            client: A `redis.asyncio.Redis` (decoded responses or not).
            ttl: Seconds of idleness after which a conversation's aliases expire.
            key_prefix: Prepended to every key.
        """
        try:
            import redis.exceptions
        except ImportError:  # pragma: no cover - the redis extra is installed in tests
            raise ImportError(_HINT) from None
        self.client = client
        self.ttl = ttl
        self.key_prefix = key_prefix
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        self._register = client.register_script(_REGISTER)
        self._lookup = client.register_script(_LOOKUP)
        self._aliases_of = client.register_script(_ALIASES_OF)

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisAliasStore:
        """A store on a new client for `url` (`redis://host:port/db`).

        `ttl` and `key_prefix` go to the store, anything else to the client.
        """
        try:
            import redis.asyncio
        except ImportError:  # pragma: no cover
            raise ImportError(_HINT) from None
        store_options = {k: options.pop(k) for k in ("ttl", "key_prefix") if k in options}
        return cls(redis.asyncio.Redis.from_url(url, **options), **store_options)

    def __repr__(self) -> str:
        return f"RedisAliasStore(key_prefix={self.key_prefix!r}, ttl={self.ttl:g})"

    def keys(self, conversation: str) -> list[str]:
        """The three keys of a conversation."""
        base = f"{self.key_prefix}{{{conversation}}}"
        return [f"{base}:u2a", f"{base}:a2u", f"{base}:n"]

    async def _run(self, script: Any, conversation: str, args: list[Any]) -> Any:
        try:
            return await script(keys=self.keys(conversation), args=[int(self.ttl * 1000), *args])
        except self._errors as exc:
            raise AliasesUnavailableError(
                f"the alias store did not answer ({type(exc).__name__}: {exc})"
            ) from exc

    async def register(self, conversation: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """See `AliasStore.register`."""
        if not pairs:
            return []
        args: list[str] = []
        for prefix, uuid in pairs:
            args += (prefix, uuid.lower(), uuid)
        found = await self._run(self._register, conversation, args)
        return [_text(a) or "" for a in found]

    async def lookup(
        self, conversation: str, aliases: Sequence[str], prefixes: Sequence[str]
    ) -> tuple[list[str | None], list[int]]:
        """See `AliasStore.lookup`."""
        answer = await self._run(self._lookup, conversation, [len(aliases), *aliases, *prefixes])
        found, counts = answer
        # Redis drops trailing nils from a Lua array: pad back to one per alias.
        values = [_text(v) for v in found] + [None] * (len(aliases) - len(found))
        return values, [int(c) for c in counts]

    async def aliases_of(self, conversation: str, uuids: Sequence[str]) -> list[str | None]:
        """See `AliasStore.aliases_of`."""
        if not uuids:
            return []
        found = await self._run(self._aliases_of, conversation, [u.lower() for u in uuids])
        return [_text(v) for v in found] + [None] * (len(uuids) - len(found))
