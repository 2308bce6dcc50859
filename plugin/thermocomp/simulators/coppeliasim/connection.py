"""Connecting to CoppeliaSim's ZMQ remote API through the official client.

The official client (``coppeliasim-zmqremoteapi-client``, imported lazily)
waits for replies forever and reports server errors as a bare ``Exception``.
This module adds what a plugin needs around it:

- a **probe** before the client's first call: one request in the client's
  own first-contact form (CBOR map ``func, args, argsL, uuid, ver, lang,
  timeout`` over a ZMQ REQ socket), answered within ``timeout_s`` or
  :class:`CoppeliaSimUnreachable`; a reply in another protocol generation
  (``success``/``error`` fields instead of ``ret``/``err``) raises
  :class:`CoppeliaSimProtocolMismatch` naming the client's and the server's
  protocol versions; the probe then releases its server slot (``_*end*_``);
- receive and send timeouts on the client's socket (``zmq.RCVTIMEO``,
  ``zmq.SNDTIMEO``, ``zmq.LINGER = 0``), so no call hangs; closing waits at
  most :data:`CLOSE_WAIT_S` for the send of ``_*end*_`` and as long for its reply;
- :meth:`Session.call`, which turns a timeout into :class:`CoppeliaSimUnreachable`
  and reconnects by itself after a call that was interrupted (Ctrl-C between
  a request and its reply leaves a REQ socket unusable);
- the client CoppeliaSim ships from 4.9.0 rev 6 on (still labelled 2.0.4; the
  registry's 2.0.4 does not do this) waits at most 5 s for its first reply,
  raising a bare ``Exception("Failed connecting to CoppeliaSim.")``, and leaves
  that 5 s receive timeout on its socket for every later call
  (zmqRemoteApi, clients/python/.../__init__.py, ``initialTimeout``, commit
  b596d91). The probe has already made first contact, so the session turns
  that off (``initialTimeout = 0``) and keeps its own timeout; should the
  message come anyway, it is reported as the server not answering, never as
  an error of CoppeliaSim's;
- the choice of ``sim`` calls for the server's version, made once here
  (:mod:`thermocomp.simulators.coppeliasim.api`, ``session.api``).

CoppeliaSim's ZMQ server listens on ``23000 + `` its instance index
(``sim.intparam_processid``: 0 for the first CoppeliaSim running on the
machine, 1 for the second ...; zmqRemoteApi's server add-on from 4.7,
``defaultRpcPort = 23000 + sim.getInt32Param(sim.intparam_processid)``) unless
the named parameter ``zmqRemoteApi.rpcPort`` is set; :meth:`Session.describe`
names the version and the port reached.

See docs/coppeliasim.md for the list of ``sim`` functions the plugin uses.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from thermocomp.errors import ConfigurationError, ThermocompError
from thermocomp.simulators.coppeliasim.api import (
    SimApi,
    choose_api,
    read_full_version,
    version_text,
)

#: Default address of CoppeliaSim's ZMQ remote API server (its add-on's ``zmqRemoteApi.rpcPort``):
#: the first CoppeliaSim on the machine; the n-th one started while others run listens on 23000 + n - 1.
DEFAULT_HOST = "localhost"
DEFAULT_PORT = 23000
#: Seconds to wait for any reply. CoppeliaSim answers between two frames of
#: its main loop (tens of milliseconds); a busy scene or a modal dialog can
#: hold it for seconds.
DEFAULT_TIMEOUT_S = 5.0

#: Seconds closing waits, at most, to hand the server its ``_*end*_`` (send and
#: reply): CoppeliaSim answers it between two frames (tens of milliseconds);
#: a server that does not frees the slot after its own client timeout, so
#: closing need not wait for it any longer than this.
CLOSE_WAIT_S = 0.2

CLIENT_PACKAGE = "coppeliasim-zmqremoteapi-client"

#: What the client bundled with CoppeliaSim 4.9.0 rev 6 and later raises (a bare ``Exception``)
#: when its first reply does not come within 5 s.
BUNDLED_CLIENT_TIMEOUT_TEXT = "Failed connecting to CoppeliaSim."


class CoppeliaSimError(ThermocompError):
    """Base class of the CoppeliaSim adapter's errors."""


class CoppeliaSimUnreachable(CoppeliaSimError):
    """No ZMQ remote API server answered at the address within the timeout."""


class CoppeliaSimProtocolMismatch(CoppeliaSimError):
    """The server speaks another version of the ZMQ remote API protocol than the client."""


class CoppeliaSimServerError(CoppeliaSimError):
    """CoppeliaSim refused a call (an ``{err}`` reply); the message names the call and the server's text."""


class SceneError(CoppeliaSimError):
    """The scene has no suitable robot (or object) at the given path."""


def check_address(host: str, port: int, timeout_s: float) -> None:
    """Raise :class:`ConfigurationError` unless host, port and timeout are usable."""
    if not isinstance(host, str) or not host:
        raise ConfigurationError(f"host: expected a host name or address, got {host!r}")
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise ConfigurationError(f"port: expected an integer in 1..65535, got {port!r}")
    if not (isinstance(timeout_s, (int, float)) and timeout_s > 0):
        raise ConfigurationError(f"timeout: expected a positive number of seconds, got {timeout_s!r}")


def client_version() -> str:
    """Installed version of the official client package, e.g. ``"2.0.4"``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(CLIENT_PACKAGE)
    except PackageNotFoundError:
        return "unknown"


def _unreachable(endpoint: str, timeout_s: float) -> CoppeliaSimUnreachable:
    return CoppeliaSimUnreachable(
        f"no CoppeliaSim ZMQ remote API server answered at {endpoint} within {timeout_s:g} s. "
        "Start CoppeliaSim (its 'ZMQ remote API server' add-on starts with it and listens on port "
        f"{DEFAULT_PORT} + the instance index: {DEFAULT_PORT + 1} for a second CoppeliaSim started while the first "
        "runs, and so on, unless the named parameter zmqRemoteApi.rpcPort says otherwise; CoppeliaSim logs "
        "'ZeroMQ Remote API server starting (rpcPort=...)'), or connect to the right host and port (--port)."
    )


def probe(host: str, port: int, timeout_s: float, client_protocol: int) -> None:
    """One request in the official client's first-contact form; raise unless a protocol-2 server answers.

    Raises
    ------
    CoppeliaSimUnreachable
        Nothing answered within ``timeout_s``.
    CoppeliaSimProtocolMismatch
        The reply is not in the client's protocol; the message names both versions.
    """
    import cbor2
    import zmq

    endpoint = f"tcp://{host}:{port}"
    context = zmq.Context()
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SNDTIMEO, int(timeout_s * 1000))
    try:
        socket.connect(endpoint)
        probe_uuid = str(uuid.uuid4())
        socket.send(cbor2.dumps({
            "func": "zmqRemoteApi.info", "args": ["sim"], "argsL": 1, "uuid": probe_uuid,
            "ver": client_protocol, "lang": "python", "timeout": max(1, int(timeout_s)),
        }))
        if not socket.poll(int(timeout_s * 1000), zmq.POLLIN):
            raise _unreachable(endpoint, timeout_s)
        try:
            reply = cbor2.loads(socket.recv())
        except cbor2.CBORDecodeError as exc:
            raise CoppeliaSimProtocolMismatch(
                f"the server at {endpoint} answered something that is not CBOR ({exc}): is it CoppeliaSim's "
                f"ZMQ remote API? This client ({CLIENT_PACKAGE} {client_version()}) speaks protocol {client_protocol}."
            ) from exc
        mine = f"this client ({CLIENT_PACKAGE} {client_version()}) speaks protocol {client_protocol}"
        if isinstance(reply, dict) and "ret" in reply and "success" not in reply:  # protocol 1 sends both
            socket.send(cbor2.dumps({"func": "_*end*_", "args": [], "uuid": probe_uuid}))
            if socket.poll(int(timeout_s * 1000), zmq.POLLIN):
                socket.recv()
            return
        if isinstance(reply, dict) and "success" in reply:
            said = f": {reply['error']!r}" if reply.get("error") else ""
            raise CoppeliaSimProtocolMismatch(
                f"CoppeliaSim at {endpoint} speaks another version of the ZMQ remote API protocol: {mine} "
                "(requests carry a client uuid, replies 'ret'/'err'); the server answered in protocol 1 "
                f"(replies 'success'/'error'{said}). Use the client shipped with your "
                "CoppeliaSim (programming/zmqRemoteApi/clients/python) or a CoppeliaSim whose server speaks "
                f"protocol {client_protocol} (4.6 and later)."
            )
        if isinstance(reply, dict) and "err" in reply:
            raise CoppeliaSimProtocolMismatch(
                f"CoppeliaSim at {endpoint} refused the client's first request: {mine}; the server, of an "
                f"unknown protocol version, answered: {reply['err']!r}"
            )
        raise CoppeliaSimProtocolMismatch(
            f"CoppeliaSim at {endpoint} answered in an unknown protocol: {mine}; the server sent {reply!r}"
        )
    finally:
        socket.close(0)
        context.term()


class Session:
    """A connection to CoppeliaSim: the official client and its ``sim`` object.

    Use :func:`connect` to make one. ``session.call("getObjectPose", h, rel)``
    calls ``sim.getObjectPose(h, rel)``; ``session.const("handle_world")``
    reads a constant of ``sim``; ``session.api`` makes the calls that differ
    between CoppeliaSim versions (chosen once, at connection).
    """

    def __init__(self, host: str, port: int, timeout_s: float) -> None:
        self.host, self.port, self.timeout_s = host, port, timeout_s
        self.endpoint = f"tcp://{host}:{port}"
        self._client: Any = None
        self._sim: Any = None
        self._broken = False
        self.client_protocol = 0
        self.coppeliasim_version = "unknown"
        self.full_version = 0
        self.api: SimApi | None = None

    def _new_client(self) -> None:
        """Make the official client (it connects lazily: nothing is sent yet) with timeouts on its socket."""
        import zmq
        from coppeliasim_zmqremoteapi_client import RemoteAPIClient

        client = RemoteAPIClient(self.host, self.port)
        ms = int(self.timeout_s * 1000)
        client.socket.setsockopt(zmq.RCVTIMEO, ms)
        client.socket.setsockopt(zmq.SNDTIMEO, ms)
        client.socket.setsockopt(zmq.LINGER, 0)
        if getattr(client, "initialTimeout", 0):
            # The bundled client's 5 s first-contact guard would replace our receive timeout by its
            # own for every call; the probe makes first contact, so it is not needed (module docstring).
            client.initialTimeout = 0
        self._client = client
        # The protocol version the client sends on first contact ("ver"; 2 in client 2.0.x).
        self.client_protocol = int(client.VERSION)
        self._broken = False

    def _require_sim(self) -> None:
        """The server's ``sim`` namespace: as loaded, if some client (or, before 4.10, the server itself)
        has loaded it; else ``require('sim')``. ``zmqRemoteApi.require`` sets the *server's* global ``sim``
        for every client (``_G[vname] = require(name)``): requiring it again would put sim-1 under a user's
        script working with sim-2 (or the reverse). :mod:`.api` works with either."""
        client = self._client

        def load():
            info = client.call("zmqRemoteApi.info", ["sim"])
            if isinstance(info, dict) and info:
                return client.getObject("sim", _info=info)
            return client.require("sim")

        self._sim = self._guarded(load, "zmqRemoteApi.info('sim') / require('sim')")

    def _open(self) -> None:
        self._new_client()
        self._require_sim()

    def _guarded(self, fn, what: str | Callable[[], str]):
        """``fn()``, its failures as this module's errors; ``what`` names the call (or makes the name, on failure)."""
        import zmq

        done = False
        try:
            result = fn()
            done = True
        except zmq.Again as exc:
            what = what() if callable(what) else what
            raise CoppeliaSimUnreachable(
                f"CoppeliaSim at {self.endpoint} stopped answering ({what} got no reply within "
                f"{self.timeout_s:g} s)"
            ) from exc
        except Exception as exc:  # noqa: BLE001 -- the official client's only error type, see below
            # The official client raises a bare ``Exception`` for an ``{err}`` reply
            # (and for an argument it cannot encode, before sending). Both leave the
            # REQ socket in step (the reply was received, or nothing was sent), so
            # the session stays usable. Anything of another type is not the
            # server's answer: let it through, and reconnect before the next call.
            if type(exc) is not Exception:
                raise
            what = what() if callable(what) else what
            if str(exc) == BUNDLED_CLIENT_TIMEOUT_TEXT:
                # The bundled client's own receive timeout: no reply came, the REQ socket still waits for it.
                raise CoppeliaSimUnreachable(
                    f"CoppeliaSim at {self.endpoint} stopped answering ({what} got no reply within the "
                    f"client's 5 s: '{exc}')"
                ) from exc
            done = True
            raise CoppeliaSimServerError(
                f"{what} failed in CoppeliaSim at {self.endpoint}: {exc}"
            ) from exc
        finally:
            if not done:
                self._broken = True  # a request may be left without its reply: reconnect before the next call
        return result

    def call(self, name: str, *args: Any) -> Any:
        """``sim.<name>(*args)`` on the server; see docs/coppeliasim.md for the functions used."""
        if self._broken:
            self.reconnect()
        if self._sim is None:
            raise CoppeliaSimError(f"the connection to {self.endpoint} is closed")
        function = getattr(self._sim, name, None)
        if function is None:
            raise CoppeliaSimError(f"CoppeliaSim at {self.endpoint} ({self.coppeliasim_version}) has no sim.{name}")
        # The arguments are shown only when the call fails: no repr of them on every call.
        return self._guarded(lambda: function(*args), lambda: f"sim.{name}({', '.join(map(repr, args))[:200]})")

    def has(self, name: str) -> bool:
        """Whether the server's ``sim`` namespace lists the function ``name`` (``zmqRemoteApi.info``)."""
        return callable(getattr(self._sim, name, None))

    def const(self, name: str, *older: str) -> Any:
        """A constant of ``sim`` (e.g. ``handle_world``); ``older``: its names in earlier versions, tried next."""
        for n in (name, *older):
            value = getattr(self._sim, n, None)
            if value is not None:
                return value
        raise CoppeliaSimError(f"CoppeliaSim at {self.endpoint} has no constant sim.{name}")

    def reconnect(self) -> None:
        """Drop the client and connect a new one (new client uuid)."""
        self._close_client()
        self._open()

    def _close_client(self) -> None:
        client, self._client, self._sim = self._client, None, None
        if client is None:
            return
        if not self._broken and client.sendCnt > 0:
            self._send_end(client)
        client.socket.close(0)

    def _send_end(self, client: Any) -> None:
        """Release this client's slot on the server: ``_*end*_``, as the protocol's clients do on leaving.

        Best effort, waiting at most :data:`CLOSE_WAIT_S` (or the session's
        timeout, if shorter) for the send and for the reply each: a server
        that does not answer frees the slot after its own client timeout anyway.
        """
        import cbor2
        import zmq

        ms = int(min(self.timeout_s, CLOSE_WAIT_S) * 1000)
        try:
            client.socket.setsockopt(zmq.SNDTIMEO, ms)  # a server gone away leaves nothing to send to
            client.socket.send(cbor2.dumps({"func": "_*end*_", "args": [], "uuid": client.uuid}))
            if client.socket.poll(ms, zmq.POLLIN):
                client.socket.recv()
        except zmq.ZMQError:
            pass  # the socket is being dropped anyway; the server times the client out

    def close(self) -> None:
        """Close the connection: at most :data:`CLOSE_WAIT_S` to send ``_*end*_`` and as long for its reply."""
        self._close_client()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        """One line: where (host and port reached), which CoppeliaSim and API, which protocol and client."""
        api = f", {self.api.name}" if self.api is not None else ""
        return (f"CoppeliaSim {self.coppeliasim_version} at {self.endpoint} (port {self.port}){api}, ZMQ remote "
                f"API protocol {self.client_protocol} ({CLIENT_PACKAGE} {client_version()})")


def connect(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, timeout_s: float = DEFAULT_TIMEOUT_S) -> Session:
    """Connect to CoppeliaSim's ZMQ remote API.

    Parameters
    ----------
    host, port
        Address of the server (default ``localhost:23000``).
    timeout_s
        Seconds to wait for any reply [s], > 0.

    Raises
    ------
    CoppeliaSimUnreachable
        Nothing answered within ``timeout_s`` (fails after about ``timeout_s``, never hangs).
    CoppeliaSimProtocolMismatch
        The server speaks another protocol version; the message names both.
    """
    check_address(host, port, timeout_s)
    session = Session(host, port, timeout_s)
    session._new_client()
    connected = False
    try:
        probe(host, port, timeout_s, session.client_protocol)
        session._require_sim()
        full = read_full_version(session)
        connected = True
    finally:
        if not connected:
            session.close()
    session.full_version = full
    session.coppeliasim_version = version_text(full)
    session.api = choose_api(session, full)  # once, for the whole session
    return session
