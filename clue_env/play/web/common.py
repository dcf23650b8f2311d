"""What the game routes (:mod:`~clue_env.play.web.server`) and the replay routes
(:mod:`~clue_env.play.web.replay_routes`) share: the static folder, :class:`ApiError` and reading a
request body within a size and a time limit. Both import this module; the server adds the replay
routes, so the dependency runs one way: server → replay_routes → common.
"""

from __future__ import annotations

import asyncio
from importlib import resources

from fastapi import Request
from starlette.requests import ClientDisconnect

STATIC = resources.files("clue_env.play.web").joinpath("static")
#: seconds a request body may take to arrive in full (a stalled one gets 408 and the connection closes)
BODY_TIMEOUT = 5.0


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


async def read_body(request: Request, limit: int, timeout: float, too_large: str) -> bytes:
    """The raw body: 413 (``too_large``) over ``limit`` bytes, counted as it arrives whatever
    ``Content-Length`` says; 408 (and the connection closed) when it has not all arrived within
    ``timeout`` seconds; 400 when the client disconnected before it all arrived (a client gone is
    not an internal error)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise ApiError(400, "bad Content-Length header")
        if int(length) > limit:
            raise ApiError(413, too_large)
    body = bytearray()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    chunks = request.stream().__aiter__()
    while True:
        try:
            chunk = await asyncio.wait_for(chunks.__anext__(), max(0.0, deadline - loop.time()))
        except StopAsyncIteration:
            break
        except ClientDisconnect:  # the client went away mid-body: nobody to answer, nothing to log
            raise ApiError(
                400, "the client disconnected before its request body arrived", headers={"Connection": "close"}
            ) from None
        except asyncio.TimeoutError:
            raise ApiError(
                408, f"the request body did not arrive within {timeout:g} seconds", headers={"Connection": "close"}
            ) from None
        body += chunk
        if len(body) > limit:
            raise ApiError(413, too_large)
    return bytes(body)
