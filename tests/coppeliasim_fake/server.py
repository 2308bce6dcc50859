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

``version`` picks the API generation it plays (see :data:`VERSIONS`):

- ``"4.6"``: one ``sim`` namespace with the 4.6-era functions
  (``getObjectMatrix``, ``getInt32Param``, ``readCustomDataBlock`` ...); the
  properties API (``getBufferProperty`` ...) does not exist;
- ``"4.9"``: the same, plus the properties API of 4.8-4.9 (no handle
  properties, no ``app.productVersionNb``);
- ``"4.10"`` (the 4.10 development head, coppeliaSimLib master): ``require
  'sim'`` gives sim-1 (lua/sim.lua: ``return require('sim-1')``), which has
  every function, the legacy ones merged back from ``sim1``; ``require
  'sim-2'`` gives the new API, without the legacy functions and constants.
  Like the real server, ``zmqRemoteApi.require(name)`` sets the *server's*
  global ``sim`` (``_G[vname] = require(name)``), shared by every client.

A function the namespace lacks fails as on the real server: ``{err: "No
such function: sim.getObjectMatrix"}`` (``zmqRemoteApi.handleRequest``).
:meth:`FakeCoppeliaSim.stall` holds the reply to a function for a while, as a
CoppeliaSim held by a modal dialog or a long script does.

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

from coppeliasim_fake.scene import (
    CONSTANTS,
    CURRENT_CONSTANTS,
    LEGACY_CONSTANTS,
    LEGACY_FUNCTIONS,
    PROPERTY_FUNCTIONS,
    FakeSim,
    Scene,
    SimError,
)

MISMATCH = "The client ZeroMQ remote API version does not match CoppeliaSim's version"

#: ``sim.intparam_program_full_version`` of each generation the fake plays (4.6.0 rev 18 and
#: 4.9.0 rev 6: the last revisions tagged in CoppeliaRobotics/coppeliaSimLib; 4.10.0 rev 5: what the
#: 4.10 development head's include/simLib/simConst.h says).
VERSIONS = {"4.6": 4060018, "4.9": 4090006, "4.10": 4100005}


def namespaces(version: str, sim: FakeSim) -> dict[str, tuple[frozenset[str], dict]]:
    """The modules ``zmqRemoteApi.require`` can load: name -> (function names, constants)."""
    every = frozenset(sim.names())
    if version == "4.6":
        return {"sim": (every - PROPERTY_FUNCTIONS, dict(CONSTANTS))}
    if version == "4.9":  # the properties API without handle properties; app.productVersionNb comes with 4.10
        return {"sim": (every - {"getHandleProperty", "getHandleArrayProperty"}, {**CONSTANTS, "handle_app": -13})}
    sim1 = (every, {**CONSTANTS, **CURRENT_CONSTANTS})
    sim2 = (every - LEGACY_FUNCTIONS,
            {**{k: v for k, v in CONSTANTS.items() if k not in LEGACY_CONSTANTS}, **CURRENT_CONSTANTS})
    return {"sim": sim1, "sim-1": sim1, "sim-2": sim2}


class FakeCoppeliaSim:
    """Serve ``scene`` on ``tcp://127.0.0.1:<random port>``.

    Parameters
    ----------
    scene
        The in-memory scene.
    protocol
        2 (CoppeliaSim 4.6 and later, what the client 2.x speaks) or 1 (earlier).
    version
        The API generation played: a key of :data:`VERSIONS`.
    lifetime_s
        The server stops by itself after this many seconds.
    """

    def __init__(self, scene: Scene, *, protocol: int = 2, lifetime_s: float = 60.0, version: str = "4.9") -> None:
        if version not in VERSIONS:
            raise ValueError(f"version: expected one of {sorted(VERSIONS)}, got {version!r}")
        self.scene = scene
        scene.version = VERSIONS[version]
        self.version = version
        self.sim = FakeSim(scene)
        self.modules = namespaces(version, self.sim)
        # The module the server's global ``sim`` holds: before 4.10 the server add-on's own ``sim = require 'sim'``
        # is global from the start; the 4.10 head's is local (``local sim = require 'sim'``, zmqRemoteApi commit
        # 92b2fc5), so ``sim`` is nil until a client requires it.
        self.loaded: str | None = None if version == "4.10" else "sim"
        self._stalls: dict[str, float] = {}
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

    def stall(self, func: str, seconds: float) -> None:
        """Hold the reply to the next request for ``func`` (e.g. ``"sim.getObject"``) ``seconds`` long."""
        self._stalls[func] = seconds

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
                reply = self._reply(raw)
                held = self._stalls.pop(self.calls[-1], 0.0) if self.calls else 0.0
                if held and self._stop.wait(held):
                    break  # stopped while holding: the client never gets its reply
                socket.send(cbor2.dumps(reply))
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
        self.loaded = "sim"  # protocol 1 had no require: sim is always there
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
            if len(args) != 1 or args[0] not in self.modules:
                raise SimError(f"module '{args[0] if args else None}' not found")
            self.loaded = args[0]  # _G[vname] = require(name): the server's global, for every client
            return []
        if func == "zmqRemoteApi.info":
            if args != ["sim"]:
                raise SimError(f"no such namespace {args!r}")
            if self.loaded is None:
                return [None]  # zmqRemoteApi.info of a nil global is nil
            functions, constants = self.modules[self.loaded]
            info: dict = {name: {"func": {}} for name in functions}
            info.update({name: {"const": value} for name, value in constants.items()})
            return [info]
        if isinstance(func, str) and func.startswith("sim.") and self.loaded is not None:
            if func[4:] not in self.modules[self.loaded][0]:
                raise KeyError(func)
            return self.sim.call(func[4:], args)
        raise KeyError(func)
