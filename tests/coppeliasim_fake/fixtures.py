"""pytest fixtures serving the fake IRB140 scene (import them into a test module).

``fake_irb140`` (and ``session`` on it) is parametrised over the API generations the fake plays:
every test that uses it runs against a CoppeliaSim 4.6 and a 4.10 (development head) server.
"""

from __future__ import annotations

import pytest

from coppeliasim_fake.irb140 import build_irb140_scene
from coppeliasim_fake.server import FakeCoppeliaSim

#: The generations every adapter test runs against (keys of coppeliasim_fake.server.VERSIONS).
GENERATIONS = ("4.6", "4.10")

#: Seconds the adapter waits for a reply in the tests: the fake answers in
#: well under a millisecond, so anything longer means a hang.
TIMEOUT_S = 2.0

#: A non-zero configuration [deg] the scene starts in: reading the chain must not depend on it.
START_DEG = (10.0, 20.0, -30.0, 40.0, 50.0, 60.0)


@pytest.fixture(params=GENERATIONS)
def fake_irb140(request):
    """A running fake CoppeliaSim (4.6, then 4.10) with the IRB140 scene (tip dummy at the flange), stopped afterwards."""
    server = FakeCoppeliaSim(build_irb140_scene(START_DEG), lifetime_s=60.0, version=request.param).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def session(fake_irb140):
    """A connected :class:`thermocomp.simulators.coppeliasim.Session` to ``fake_irb140``."""
    from thermocomp.simulators.coppeliasim import connect

    s = connect("127.0.0.1", fake_irb140.port, TIMEOUT_S)
    try:
        yield s
    finally:
        s.close()
