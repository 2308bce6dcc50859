"""A fake CoppeliaSim ZMQ remote-API server: CBOR over a ZMQ REP socket.

It speaks what CoppeliaSim's ``ZMQ remote API server`` add-on speaks
(CoppeliaRobotics/zmqRemoteApi, ``addOns/ZMQ remote API server.lua``), so the
official client ``coppeliasim_zmqremoteapi_client.RemoteAPIClient`` works
against it unchanged:

- a request is a CBOR map ``{func, args[, argsL], uuid[, ver, lang, timeout]}``
  (``ver``, ``lang`` and ``timeout`` come with a client's first request);
- a reply is ``{ret: [values...]}``, or ``{err: message}`` when the function
  failed or does not exist;
- ``zmqRemoteApi.require(name)`` loads a namespace, ``zmqRemoteApi.info(name)``
  describes it as ``{key: {func: {}} | {const: value} | {...}}``;
- ``_*end*_`` releases a client;
- a request without ``uuid`` (a client of the earlier protocol) gets the
  server's mismatch reply ``{success: false, error: "The client ZeroMQ remote
  API version does not match CoppeliaSim's version"}``.

``protocol=1`` makes it answer like the first protocol generation instead
(CoppeliaSim's ``simAddOnZMQ remote API.lua``): ``{success, ret | error}``
replies, no ``uuid`` handling, no ``zmqRemoteApi.require``.

The server runs in a daemon thread on 127.0.0.1 with a random free port,
polls with a short timeout and stops by itself after ``lifetime_s``.
"""

from __future__ import annotations

import threading
import time

import cbor2
import zmq

from coppeliasim_fake.scene import CONSTANTS, FakeSim, Scene, SimError

MISMATCH = "The client ZeroMQ remote API version does not match CoppeliaSim's version"


class FakeCoppeliaSim:
    """Serve ``scene`` on ``tcp://127.0.0.1:<random port>``.

    Parameters
    ----------
    scene
        The in-memory scene.
    protocol
        2 (CoppeliaSim 4.6 and later, what the client 2.x speaks) or 1 (earlier).
    lifetime_s
        The server stops by itself after this many seconds.
    """

    def __init__(self, scene: Scene, *, protocol: int = 2, lifetime_s: float = 60.0) -> None:
        self.scene = scene
        self.sim = FakeSim(scene)
        self.protocol = protocol
        self.lifetime_s = lifetime_s
        self.calls: list[str] = []  # every func received, in order
        self.clients: set[str] = set()
        self.port: int | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._context = zmq.Context()

    # -- lifecycle -----------------------------------------------------------------
    def start(self) -> FakeCoppeliaSim:
        self._thread = threading.Thread(target=self._run, name="fake-coppeliasim", daemon=True)
        self._thread.start()
        if not self._ready.wait(5.0):
            raise RuntimeError("the fake CoppeliaSim server did not start within 5 s")
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self._context.term()

    def __enter__(self) -> FakeCoppeliaSim:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def sim_calls(self) -> set[str]:
        """The ``sim.*`` functions called so far (names without the prefix)."""
        return {c[4:] for c in self.calls if c.startswith("sim.")}

    def _run(self) -> None:
        socket = self._context.socket(zmq.REP)
        socket.setsockopt(zmq.LINGER, 0)
        self.port = socket.bind_to_random_port("tcp://127.0.0.1")
        self._ready.set()
        deadline = time.monotonic() + self.lifetime_s
        try:
            while not self._stop.is_set() and time.monotonic() < deadline:
                if not socket.poll(20):
                    continue
                raw = socket.recv()
                socket.send(cbor2.dumps(self._reply(raw)))
        finally:
            socket.close(0)

    # -- protocol -------------------------------------------------------------------
    def _reply(self, raw: bytes) -> dict:
        try:
            req = cbor2.loads(raw)
        except cbor2.CBORDecodeError as exc:
            return {"err": f"Error trying to decode received data: {exc}"}
        if not isinstance(req, dict):
            return {"err": "expected a CBOR map"}
        if self.protocol == 1:
            return self._reply_v1(req)
        if "uuid" not in req:
            return {"success": False, "error": MISMATCH}
        func = req.get("func")
        self.calls.append(str(func))
        if func == "_*end*_":
            self.clients.discard(req["uuid"])
            return {}
        self.clients.add(req["uuid"])
        args = list(req.get("args") or [])
        try:
            return {"ret": self._dispatch(func, args)}
        except SimError as exc:
            return {"err": f"{exc} (in function '{func}')"}
        except KeyError:
            return {"err": f"No such function: {func}"}
        except TypeError as exc:  # wrong number of arguments, as Lua would report it
            return {"err": f"bad arguments: {exc} (in function '{func}')"}

    def _reply_v1(self, req: dict) -> dict:
        func = req.get("func")
        self.calls.append(str(func))
        args = list(req.get("args") or [])
        if func == "zmqRemoteApi.require":
            return {"success": False, "error": f"No such function: {func}"}
        try:
            return {"success": True, "ret": self._dispatch(func, args)}
        except (SimError, KeyError, TypeError) as exc:
            return {"success": False, "error": str(exc)}

    def _dispatch(self, func, args: list) -> list:
        if func == "zmqRemoteApi.require":
            if args != ["sim"]:
                raise SimError(f"module {args[0] if args else None!r} not found")
            return []
        if func == "zmqRemoteApi.info":
            if args != ["sim"]:
                raise SimError(f"no such namespace {args!r}")
            info: dict = {name: {"func": {}} for name in self.sim.names()}
            info.update({name: {"const": value} for name, value in CONSTANTS.items()})
            return [info]
        if isinstance(func, str) and func.startswith("sim."):
            return self.sim.call(func[4:], args)
        raise KeyError(func)
