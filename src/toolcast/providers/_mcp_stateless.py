"""What a 2026-07-28 request may carry, and what must outlive it, shared by every replica.

A 2026-07-28 request has no session, so nothing may live in one process:

- **Approvals** are multi round-trip requests. The first call answers
  `input_required` with an elicitation and a `requestState` naming a fresh nonce;
  the SDK's `RequestStateBoundary` seals that state (AES-256-GCM under the key the
  replicas share) and binds it to the method, the tool name and a digest of the
  arguments, with an expiry. The retry's state is verified before toolcast sees
  it (a forged or edited one is refused `-32602`), and its nonce is spent in a
  once-only record (Redis `SET NX` shared by the replicas, or this process's
  memory), so a replayed state is refused too.
- **Toolboxes** reveal their members in the selector's result together with a
  sealed handle naming the opened toolboxes; a `tools/list` that carries the
  handle in `_meta["io.toolcast/toolboxes"]` lists the members too. The list is a
  function of the request, never of a connection.
- **Aliases** live in an alias store the replicas share (`RedisAliasStore`), one
  conversation per `_meta["io.toolcast/conversation"]` (one per server name when
  the client names none).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolcast.aliases import AliasSession

__all__ = (
    "APPROVAL_KEY",
    "CONVERSATION_META_KEY",
    "TOOLBOXES_META_KEY",
    "StatelessState",
    "read_key_file",
    "toolcast_version",
)

TOOLBOXES_META_KEY = "io.toolcast/toolboxes"
"""`_meta` key of the sealed handle naming the toolboxes a client opened."""
CONVERSATION_META_KEY = "io.toolcast/conversation"
"""`_meta` key naming the alias conversation of a 2026-07-28 request."""
APPROVAL_KEY = "approval"
"""The key of the approval elicitation in `inputRequests` and `inputResponses`."""

_HANDLE_TTL = 24 * 3600.0
_MAX_SEEN = 100_000
_KEY_HINT = 'Generate one with: python -c "import secrets; print(secrets.token_hex(32))" > key'


def toolcast_version() -> str:
    """The installed toolcast's version (`serverInfo.version` by default)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolcast")
    except PackageNotFoundError:
        return "0+unknown"


def read_key_file(path: str) -> bytes:
    """The shared request-state key in `path` (at least 32 bytes, whitespace trimmed).

    Raises:
        ValueError: The file cannot be read or holds fewer than 32 bytes.
    """
    try:
        with open(path, "rb") as handle:
            key = handle.read(4096).strip()
    except OSError as exc:
        msg = f"Cannot read the state key file {path!r}: {exc.strerror or exc}."
        raise ValueError(msg) from None
    if len(key) < 32:
        msg = (
            f"The state key file {path!r} holds {len(key)} bytes; it needs at least 32. {_KEY_HINT}"
        )
        raise ValueError(msg)
    return key


class StatelessState:
    """Request-state protection, the once-only record and shared aliases for one server.

    Args:
        name: The server name: the sealed states' audience, and the default alias
            conversation.
        keys: The shared key ring (`keys[0]` seals, all unseal); None makes a key
            for this process only (one replica, states die with it).
        redis_url: A Redis every replica reaches, for the once-only record and the
            aliases; None keeps both in this process's memory.
        ttl: Seconds a sealed `requestState` stays valid.
    """

    def __init__(
        self,
        name: str,
        *,
        keys: Sequence[bytes] | None = None,
        redis_url: str | None = None,
        ttl: float = 600.0,
    ) -> None:
        try:
            from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
        except ImportError:
            msg = "The MCP server needs the MCP SDK: pip install 'toolcast[mcp]'"
            raise ImportError(msg) from None

        if keys:
            self.security = RequestStateSecurity(keys=list(keys), ttl=ttl)
        else:
            self.security = RequestStateSecurity.ephemeral(ttl=ttl)
        self.name = name
        self.ttl = ttl
        self.boundary = RequestStateBoundary(self.security, default_audience=name)
        self.shared = bool(keys) and redis_url is not None
        self._seen: dict[str, float] = {}
        self._redis: Any = None
        if redis_url is not None:
            from toolcast.aliases.redis import RedisAliasStore

            try:
                import redis.asyncio as aioredis
            except ImportError:
                msg = "toolcast serve --redis needs redis-py: pip install 'toolcast[redis]'"
                raise ImportError(msg) from None
            self._redis = aioredis.from_url(redis_url)
            self.alias_store: Any = RedisAliasStore.from_url(redis_url)
        else:
            from toolcast.aliases import MemoryAliasStore

            self.alias_store = MemoryAliasStore()

    @property
    def redis(self) -> Any:
        """The async Redis client the replicas share, or None (memory)."""
        return self._redis

    # ------------------------------------------------------------------ aliases

    def aliases(self, meta: Mapping[str, Any] | None) -> AliasSession:
        """The alias session of a request: its named conversation, or the server's."""
        named = (meta or {}).get(CONVERSATION_META_KEY)
        conversation = named if isinstance(named, str) and 0 < len(named) <= 200 else ""
        return AliasSession(f"mcp:{self.name}:{conversation}", store=self.alias_store)

    # ------------------------------------------------------------------ once-only

    async def first_use(self, nonce: str) -> bool:
        """Spend `nonce`: True the first time any replica sees it, False after.

        Raises:
            OSError: The shared record cannot be reached (the caller refuses the call).
        """
        if self._redis is not None:
            try:
                stored = await self._redis.set(
                    f"toolcast:mcp:{self.name}:state:{nonce}",
                    b"1",
                    nx=True,
                    px=int(self.ttl * 1000),
                )
            except Exception as exc:  # redis-py's errors are not OSErrors
                raise OSError(f"the once-only record (Redis) did not answer: {exc}") from None
            return bool(stored)
        now = time.monotonic()
        if len(self._seen) >= _MAX_SEEN:
            self._seen = {k: t for k, t in self._seen.items() if t > now}
        if self._seen.get(nonce, 0.0) > now:
            return False
        self._seen[nonce] = now + self.ttl
        return True

    # ------------------------------------------------------------------ approvals

    @staticmethod
    def approval_state() -> str:
        """A fresh plaintext `requestState` for an approval round (the boundary seals it)."""
        return json.dumps({"k": "approval", "n": secrets.token_urlsafe(18)})

    @staticmethod
    def approval_nonce(state: str) -> str | None:
        """The nonce of a verified approval state, or None when it is not one."""
        try:
            parsed = json.loads(state)
        except ValueError:
            return None
        if not isinstance(parsed, dict) or parsed.get("k") != "approval":
            return None
        nonce = parsed.get("n")
        return nonce if isinstance(nonce, str) and nonce else None

    # ------------------------------------------------------------------ toolboxes

    def seal_toolboxes(self, names: Iterable[str]) -> str:
        """A sealed handle naming the opened toolboxes `names`."""
        now = time.time()
        payload = {
            "k": "toolboxes",
            "aud": self.name,
            "b": sorted(set(names)),
            "exp": now + _HANDLE_TTL,
        }
        return self.security.codec.seal(json.dumps(payload, separators=(",", ":")).encode())

    def opened_toolboxes(self, meta: Mapping[str, Any] | None) -> frozenset[str]:
        """The toolboxes a request's handle names; empty when it has none or a bad one."""
        from mcp.server.request_state import InvalidRequestState

        token = (meta or {}).get(TOOLBOXES_META_KEY)
        if not isinstance(token, str) or len(token) > 8192:
            return frozenset()
        try:
            payload = json.loads(self.security.codec.unseal(token))
        except (InvalidRequestState, ValueError):
            return frozenset()
        if (
            not isinstance(payload, dict)
            or payload.get("k") != "toolboxes"
            or payload.get("aud") != self.name
            or not isinstance(payload.get("exp"), (int, float))
            or not payload["exp"] > time.time()
            or not isinstance(payload.get("b"), list)
        ):
            return frozenset()
        return frozenset(name for name in payload["b"] if isinstance(name, str))
