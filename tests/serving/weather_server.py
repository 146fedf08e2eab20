"""A FastMCP server: the remote side for `tools_from_session` (stdio or HTTP)."""

from __future__ import annotations

import os
import sys

from fastmcp import FastMCP

server = FastMCP("weather")
CALLS = {"forecast": 0}


@server.tool
def forecast(city: str, days: int = 1) -> dict[str, object]:
    """Forecast for a city."""
    CALLS["forecast"] += 1
    return {"city": city, "days": days, "sky": "sunny"}


@server.tool
def calls() -> int:
    """How many times `forecast` ran on this server."""
    return CALLS["forecast"]


@server.tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError(f"kaboom {x}")


@server.tool
def crash() -> str:
    """Ends the server process (a transport failure for the client)."""
    os._exit(3)


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        server.run(show_banner=False)
