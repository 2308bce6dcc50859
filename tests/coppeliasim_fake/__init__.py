"""A fake CoppeliaSim for the tests: its ZMQ remote API (CBOR over ZMQ) and an in-memory scene.

``FakeCoppeliaSim(build_irb140_scene()).start()`` serves an IRB140 scene on
127.0.0.1 at a random free port; the official client connects to it unchanged.
"""

from coppeliasim_fake.irb140 import build_irb140_scene
from coppeliasim_fake.scene import FakeSim, Scene, SimError
from coppeliasim_fake.server import MISMATCH, FakeCoppeliaSim

__all__ = ["MISMATCH", "FakeCoppeliaSim", "FakeSim", "Scene", "SimError", "build_irb140_scene"]
