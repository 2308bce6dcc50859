"""Pictures of the cell without a display: PyBullet's TinyRenderer, written as PNG.

``getCameraImage(..., renderer=ER_TINY_RENDERER)`` works in DIRECT mode. The
TinyRenderer draws every shape opaque, so the nominal robot's translucent
ghost is composited here: the cell is rendered once without the ghost and
once with it, and where the ghost is in front its colour is blended over
the first picture with the ghost's alpha.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import ArrayLike, FloatArray, PathLike
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.atomic import atomic_write_bytes, check_destination
from thermocomp.simulators.pybullet.client import Client
from thermocomp.simulators.pybullet.robot import RobotBody

#: Background colour of the renders (TinyRenderer's own clear colour is white).
BACKGROUND = (255, 255, 255)
#: Smallest picture side [px]: below this a picture of a cell shows nothing useful.
MIN_PICTURE_PX = 16
#: Largest picture side [px] (TinyRenderer keeps several buffers of width x height; 8192 x 8192 is ~1 GB).
MAX_PICTURE_PX = 8192


def check_picture_size(width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` [px] if both are integers from :data:`MIN_PICTURE_PX` to :data:`MAX_PICTURE_PX`,
    else :class:`ConfigurationError` naming ``--size``."""
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (width, height)):
        raise ConfigurationError(f"picture size (--size): expected whole pixels, got {width!r} x {height!r}")
    if not (MIN_PICTURE_PX <= width <= MAX_PICTURE_PX and MIN_PICTURE_PX <= height <= MAX_PICTURE_PX):
        raise ConfigurationError(f"picture size (--size): expected {MIN_PICTURE_PX} to {MAX_PICTURE_PX} px each, "
                                 f"got {width} x {height}")
    return int(width), int(height)


def check_png_path(path: PathLike) -> Path:
    """``path`` if it ends in ``.png`` and can be written (:func:`~thermocomp.io.atomic.check_destination`),
    else :class:`InputError` (before any rendering)."""
    dest = Path(path)
    if dest.suffix.lower() != ".png":
        raise InputError(f"expected a picture path ending in .png, got {dest.name!r}", path=str(dest))
    return check_destination(dest)


@dataclass(frozen=True)
class Camera:
    """A perspective camera looking at a point (PyBullet's yaw-pitch-distance form).

    Parameters
    ----------
    target
        Point looked at, world frame [m], ``(3,)``.
    distance
        Distance of the eye from ``target`` [m], > 0.
    yaw_deg, pitch_deg
        Camera heading about the world z axis and elevation [deg] (PyBullet's
        ``computeViewMatrixFromYawPitchRoll`` with z up; pitch < 0 looks down).
    fov_deg
        Vertical field of view [deg], in (0, 180).
    width, height
        Picture size [px], >= 16.
    """

    target: tuple[float, float, float]
    distance: float
    yaw_deg: float = 45.0
    pitch_deg: float = -25.0
    fov_deg: float = 45.0
    width: int = 960
    height: int = 720

    def __post_init__(self) -> None:
        if not (self.distance > 0 and 0 < self.fov_deg < 180):
            raise ConfigurationError(f"camera: expected distance > 0 and fov in (0, 180) deg, "
                                     f"got {self.distance}, {self.fov_deg}")
        check_picture_size(self.width, self.height)


def scene_points(client: Client) -> FloatArray:
    """Corners of the world AABB of every body and link in the client [m], ``(k, 3)``."""
    pb, cid = client.pb, client.id
    corners = []
    signs = np.array([[sx, sy, sz] for sx in (0, 1) for sy in (0, 1) for sz in (0, 1)], dtype=float)
    for i in range(pb.getNumBodies(physicsClientId=cid)):
        body = pb.getBodyUniqueId(i, physicsClientId=cid)
        for link in range(-1, pb.getNumJoints(body, physicsClientId=cid)):
            lo, hi = (np.array(v) for v in pb.getAABB(body, link, physicsClientId=cid))
            if np.all(np.isfinite(lo)) and np.all(hi >= lo):
                corners.append(lo + signs * (hi - lo))
    return np.vstack(corners) if corners else np.zeros((1, 3))


def view_axes(client: Client, yaw_deg: float, pitch_deg: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """World directions ``(right, up, forward)`` ``(3,)`` of a camera at ``yaw_deg``, ``pitch_deg`` (PyBullet's)."""
    view = client.pb.computeViewMatrixFromYawPitchRoll([0.0, 0.0, 0.0], 1.0, yaw_deg, pitch_deg, 0.0, 2,
                                                       physicsClientId=client.id)
    m = np.array(view, dtype=float).reshape(4, 4).T  # OpenGL: column-major; rows of m[:3, :3] are the camera axes
    return m[0, :3], m[1, :3], -m[2, :3]


def camera_framing(client: Client, points: ArrayLike | None = None, *, yaw_deg: float = 45.0,
                   pitch_deg: float = -25.0, fov_deg: float = 45.0, width: int = 960, height: int = 720,
                   margin: float = 1.05) -> Camera:
    """A camera from ``yaw_deg``, ``pitch_deg`` that shows every point of ``points`` ``(k, 3)`` [m, world].

    ``points`` defaults to the corners of every body's bounding box
    (:func:`scene_points`). The camera's axes come from PyBullet's own view
    matrix for that yaw and pitch; the target is moved to centre the points
    across the view, and the distance is the smallest that keeps every
    point inside the field of view, times ``margin``.
    """
    check_picture_size(width, height)  # before width / height is used: no division by zero
    pts = scene_points(client) if points is None else np.asarray(points, dtype=float).reshape(-1, 3)
    right, up, forward = view_axes(client, yaw_deg, pitch_deg)
    centre = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
    across = (pts - centre) @ np.column_stack([right, up])  # (k, 2) offsets in the view plane
    centre = centre + right * 0.5 * (across[:, 0].min() + across[:, 0].max()) \
        + up * 0.5 * (across[:, 1].min() + across[:, 1].max())
    v = pts - centre
    tan_v = np.tan(np.radians(fov_deg) / 2)
    tan_h = tan_v * width / height
    depth = v @ forward
    need = np.maximum(np.abs(v @ right) / tan_h, np.abs(v @ up) / tan_v) - depth
    distance = margin * max(float(need.max()), 0.1)
    return Camera(tuple(centre.tolist()), distance, yaw_deg, pitch_deg, fov_deg, width, height)  # type: ignore[arg-type]


def _render(client: Client, camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """``(rgb uint8 (h, w, 3), segmentation int32 (h, w))`` from the TinyRenderer."""
    pb, cid = client.pb, client.id
    view = pb.computeViewMatrixFromYawPitchRoll(list(camera.target), camera.distance, camera.yaw_deg,
                                                camera.pitch_deg, 0.0, 2, physicsClientId=cid)
    proj = pb.computeProjectionMatrixFOV(camera.fov_deg, camera.width / camera.height,
                                         camera.distance / 100.0, camera.distance * 10.0, physicsClientId=cid)
    w, h, rgba, _, seg = pb.getCameraImage(camera.width, camera.height, view, proj, renderer=pb.ER_TINY_RENDERER,
                                           lightDirection=[1.0, 0.6, 2.0], shadow=0, physicsClientId=cid)
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[..., :3]
    return rgb.copy(), np.asarray(seg, dtype=np.int32).reshape(h, w)


def render_cell(client: Client, camera: Camera, ghost: RobotBody | None = None, ghost_alpha: float = 0.35
                ) -> tuple[np.ndarray, np.ndarray]:
    """Render the cell; the ghost (if any) translucent over the rest.

    Returns
    -------
    rgb : ndarray of uint8, shape ``(height, width, 3)``
    segmentation : ndarray of int32, shape ``(height, width)``
        PyBullet body id seen at each pixel (-1: background), from the
        render *without* the ghost.
    """
    pb, cid = client.pb, client.id
    if ghost is None:
        return _render(client, camera)
    position, orientation = pb.getBasePositionAndOrientation(ghost.body, physicsClientId=cid)
    far = [position[0], position[1], position[2] - 1e4]  # out of view: the TinyRenderer has no hidden flag
    pb.resetBasePositionAndOrientation(ghost.body, far, orientation, physicsClientId=cid)
    try:
        rgb, seg = _render(client, camera)
    finally:
        pb.resetBasePositionAndOrientation(ghost.body, position, orientation, physicsClientId=cid)
    rgb_ghost, seg_ghost = _render(client, camera)
    mask = seg_ghost == ghost.body
    blended = (1.0 - ghost_alpha) * rgb[mask].astype(float) + ghost_alpha * rgb_ghost[mask].astype(float)
    rgb[mask] = np.clip(np.rint(blended), 0, 255).astype(np.uint8)
    return rgb, seg


#: Height of a legend line in a picture, as a share of the picture's height (at least :data:`LEGEND_MIN_PX`).
LEGEND_LINE_SHARE = 0.035
LEGEND_MIN_PX = 9


def with_legend(rgb: ArrayLike, lines: Sequence[str]) -> np.ndarray:
    """``rgb`` ``(h, w, 3)`` uint8 with ``lines`` written in its upper left corner on a light box, as the GUI
    writes its text above the robot (matplotlib's Agg renderer, off-screen); the rest of the picture unchanged."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    img = np.asarray(rgb)
    h, w, _ = img.shape
    dpi = 100.0
    fig = Figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.imshow(img, interpolation="nearest", aspect="auto")
    ax.set_axis_off()
    size_pt = max(LEGEND_MIN_PX, LEGEND_LINE_SHARE * h) * 72.0 / dpi / 1.2
    fig.text(0.01, 0.99, "\n".join(lines), ha="left", va="top", fontsize=size_pt, family="monospace",
             color=(0.1, 0.1, 0.1), bbox=dict(boxstyle="square,pad=0.3", facecolor=(1.0, 1.0, 1.0, 0.8),
                                             edgecolor="none"))
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def png_bytes(rgb: ArrayLike) -> bytes:
    """A PNG file (8-bit RGB, no interlace) of ``rgb`` ``(h, w, 3)`` uint8."""
    img = np.asarray(rgb)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"expected an (h, w, 3) uint8 image, got {img.shape} {img.dtype}")
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[row].tobytes() for row in range(h))  # filter type 0 per row

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def write_png(path: PathLike, rgb: ArrayLike) -> Path:
    """Write ``rgb`` as PNG to ``path`` completely or not at all (:func:`~thermocomp.io.atomic.atomic_write_bytes`)."""
    dest = check_png_path(path)
    atomic_write_bytes(dest, png_bytes(rgb))
    return dest


def read_png_rgb(path: PathLike) -> np.ndarray:
    """Read back a PNG written by :func:`write_png` as ``(h, w, 3)`` uint8 (tests and checks)."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise InputError("expected a PNG file", path=str(path))
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if tag == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if (depth, colour) != (8, 2):
                raise InputError("expected an 8-bit RGB PNG (as write_png writes)", path=str(path))
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + 3 * width)
    if np.any(raw[:, 0] != 0):
        raise InputError("expected unfiltered rows (as write_png writes)", path=str(path))
    return raw[:, 1:].reshape(height, width, 3)


__all__ = ["BACKGROUND", "MAX_PICTURE_PX", "MIN_PICTURE_PX", "Camera", "camera_framing", "check_picture_size",
           "check_png_path", "png_bytes", "read_png_rgb", "render_cell", "scene_points", "view_axes", "with_legend", "write_png"]
