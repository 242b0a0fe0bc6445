"""Slow and idle sockets from many loopback addresses: the connection attack of the hostile
runs (issue 58: 2,100 sockets from 20 addresses, 105 each, under the per-client cap, took
/health to seconds), for bench/hostile.py and the tests that hold the server to it.

Every address of 127.0.0.0/8 is this machine's own, so a flood from 127.0.0.2-127.0.0.21
is 20 clients to the server's per-client cap and nothing leaves the loopback.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import requests

from service.http.server import allow_connections

# A request whose chunked body never ends: a worker that waits for the body waits for good.
HALF_CHUNKED = (
    b"GET /breakeven?detail=full&gpu=rtx3090&hours=5 HTTP/1.1\r\nHost: x\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n10\r\nab"
)


def addresses(count: int, first: int = 2) -> list[str]:
    """``count`` loopback addresses from 127.0.0.``first`` on (127.0.0.1 is the probe's)."""
    return [f"127.0.0.{first + i}" for i in range(count)]


def let_go(sock: socket.socket) -> bool:
    """Whether the server has let go of a client's non-blocking socket: it answered (an
    error, a 503, a 408) or closed it. A flood reopens such sockets."""
    try:
        sock.recv(4096)
        return True  # an answer or EOF
    except BlockingIOError:
        return False
    except OSError:
        return True


class Flood:
    """``idle`` sockets that send nothing and ``half_sent`` that send HALF_CHUNKED, spread
    over ``sources`` round robin; any the server lets go of (refused, timed out) is opened
    again by :meth:`keep_up`. ``opened`` counts every socket opened."""

    def __init__(self, port: int, sources: list[str], idle: int, half_sent: int) -> None:
        self._port = port
        self._sources = sources
        self._plan = [False] * idle + [True] * half_sent
        self.sockets: list[socket.socket | None] = []
        self.opened = 0
        allow_connections(idle + half_sent)  # this process holds them all

    def _open(self, index: int) -> socket.socket | None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((self._sources[index % len(self._sources)], 0))
        sock.settimeout(2)
        try:
            sock.connect(("127.0.0.1", self._port))
            if self._plan[index]:
                sock.sendall(HALF_CHUNKED)
        except OSError:
            sock.close()
            return None
        sock.setblocking(False)
        self.opened += 1
        return sock

    def fill(self, between: Callable[[], None] | None = None) -> None:
        """Open them all (``between`` is called every 500, so a probe goes on meanwhile)."""
        self.sockets = []
        for index in range(len(self._plan)):
            self.sockets.append(self._open(index))
            if between is not None and index % 500 == 499:
                between()

    def keep_up(self) -> None:
        for index, sock in enumerate(self.sockets):
            if sock is None or let_go(sock):
                if sock is not None:
                    sock.close()
                self.sockets[index] = self._open(index)

    def held(self) -> int:
        return sum(sock is not None for sock in self.sockets)

    def close(self) -> None:
        for sock in self.sockets:
            if sock is not None:
                sock.close()
        self.sockets = []


@dataclass
class Probed:
    """/health asked over and over while a flood is held: each answer's seconds (inf: none)
    and what went wrong."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]

    def said(self) -> str:
        """The probes as a line: how many, their p50 and p99."""
        return (
            f"/health {len(self.latencies)} probes, p50 {self.quantile(0.5) * 1000:.1f} ms, "
            f"p99 {self.quantile(0.99) * 1000:.1f} ms"
        )


def health_under(base: str, flood: Flood, seconds: float, every_s: float = 0.05) -> Probed:
    """Probe ``base``/health from 127.0.0.1 for ``seconds`` while ``flood`` is kept up."""
    probed = Probed()
    session = requests.Session()
    end = time.monotonic() + seconds
    next_keep_up = 0.0
    while time.monotonic() < end:
        started = time.perf_counter()
        try:
            answer = session.get(base + "/health", timeout=5)
            if answer.status_code != 200:
                probed.failures.append(str(answer.status_code))
        except requests.RequestException as error:
            probed.failures.append(type(error).__name__)
            probed.latencies.append(float("inf"))
        else:
            probed.latencies.append(time.perf_counter() - started)
        if time.monotonic() >= next_keep_up:
            flood.keep_up()
            next_keep_up = time.monotonic() + 0.5
        time.sleep(every_s)
    session.close()
    return probed
