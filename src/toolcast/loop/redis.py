"""`RedisStore`: conversations in Redis, shared by every host process (extra `redis`).

Each conversation is one hash (`version`, `data`) under `{prefix}{id}`. A save
runs as one Lua script: it writes only when the stored version is the copy's
(else `ConversationConflictError`), and a retry of a save whose reply was lost
(same version, same data) succeeds instead of conflicting. A Redis that cannot be
reached gives `StoreError`; the conversation in memory is left as it was.
"""

from __future__ import annotations

from typing import Any

from toolcast.loop._conversation import Conversation
from toolcast.loop._errors import ConversationConflictError, StoreError

__all__ = ("RedisStore",)

_INSTALL = "toolcast.loop.redis needs the redis client: pip install 'toolcast[redis]'"

# KEYS[1] the hash; ARGV: expected version, new version, data, ttl seconds (0: none).
_SAVE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local expected = tonumber(ARGV[1])
if current ~= expected then
  if current == expected + 1 and redis.call('HGET', KEYS[1], 'data') == ARGV[3] then
    return current
  end
  return -1 - current
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'data', ARGV[3])
if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return tonumber(ARGV[2])
"""


def _redis() -> Any:
    try:
        import redis.asyncio
        import redis.exceptions
    except ImportError:
        raise ImportError(_INSTALL) from None
    return redis


class RedisStore:
    """A `ConversationStore` in Redis, via `redis.asyncio`.

    Example:
        >>> store = RedisStore.from_url("redis://localhost:6379/0")
        >>> await run(model, "Hi", tools=tools, store=store)
    """

    def __init__(
        self, client: Any, *, prefix: str = "toolcast:conversation:", ttl: float | None = None
    ) -> None:
        """Wrap a `redis.asyncio.Redis` client the host made.

        Args:
            client: The client (its own timeouts and retries apply).
            prefix: Key prefix for conversations.
            ttl: Seconds a conversation is kept after its last save (None: forever).
        """
        self._redis = _redis()
        self.client = client
        self.prefix = prefix
        self.ttl = ttl
        self._script = client.register_script(_SAVE)

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisStore:
        """A store with its own client for `url` (`options` go to `RedisStore`)."""
        redis = _redis()
        client = redis.asyncio.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        return cls(client, **options)

    def _key(self, conversation_id: str) -> str:
        return f"{self.prefix}{conversation_id}"

    def _unreachable(self, exc: Exception, doing: str) -> StoreError:
        return StoreError(
            f"Redis could not be reached to {doing} ({type(exc).__name__}: {exc}). "
            "The conversation in memory is unchanged: save it again, or resume, "
            "once Redis is back."
        )

    async def load(self, conversation_id: str) -> Conversation | None:
        """The stored conversation, or None."""
        try:
            data = await self.client.hget(self._key(conversation_id), "data")
        except (
            self._redis.exceptions.ConnectionError,
            self._redis.exceptions.TimeoutError,
            OSError,
        ) as exc:
            raise self._unreachable(exc, f"load conversation {conversation_id!r}") from exc
        return Conversation.from_json(data) if data is not None else None

    async def save(self, conversation: Conversation) -> None:
        """Store it (optimistic version check), bumping `conversation.version`."""
        expected = conversation.version
        conversation.version = expected + 1
        try:
            data = conversation.to_json()
            ttl = int(self.ttl) if self.ttl else 0
            found = int(
                await self._script(
                    keys=[self._key(conversation.id)], args=[expected, expected + 1, data, ttl]
                )
            )
        except (
            self._redis.exceptions.ConnectionError,
            self._redis.exceptions.TimeoutError,
            OSError,
        ) as exc:
            conversation.version = expected
            raise self._unreachable(exc, f"save conversation {conversation.id!r}") from exc
        except BaseException:
            conversation.version = expected
            raise
        if found < 0:
            conversation.version = expected
            stored = -1 - found
            raise ConversationConflictError(conversation.id, expected, stored or None)

    async def delete(self, conversation_id: str) -> None:
        """Forget a conversation."""
        try:
            await self.client.delete(self._key(conversation_id))
        except (
            self._redis.exceptions.ConnectionError,
            self._redis.exceptions.TimeoutError,
            OSError,
        ) as exc:
            raise self._unreachable(exc, f"delete conversation {conversation_id!r}") from exc

    async def aclose(self) -> None:
        """Close the client."""
        await self.client.aclose()
