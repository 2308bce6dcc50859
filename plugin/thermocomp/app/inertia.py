"""``thermocomp inertia``: a robot's link inertials from its meshes, and the URDF carrying them, all or none.

The job around :func:`thermocomp.inertia.robot.compute_inertials` (seed 000, Step 1; docs/inertia.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.inertia.robot import InertiaOptions, InertiaReport, compute_inertials
from thermocomp.io.job import Job
from thermocomp.io.robot_files import RobotFileOptions
from thermocomp.io.robots import robot_file
from thermocomp.robot.chain import Chain


@dataclass(frozen=True)
class InertiaJob:
    """Options of :func:`inertials_to_urdf` (``thermocomp inertia``)."""

    robot: str | PathLike | Chain
    meshes: PathLike
    options: InertiaOptions
    out: PathLike | None = None
    mesh_map: PathLike | None = None
    package_dirs: Mapping[str, PathLike] | None = None
    tip_link: str | None = None
    corrections: PathLike | None = None
    robot_options: RobotFileOptions | None = None


def inertials_to_urdf(spec: InertiaJob) -> tuple[InertiaReport, list[Path]]:
    """:func:`compute_inertials`, and the URDF carrying them written to ``out`` (``thermocomp inertia``).

    ``out`` is checked before any mesh is read (a :class:`~thermocomp.io.job.Job`:
    never an input, never the robot file, a mesh map, the corrections, a
    mesh or the mesh folder's files). Returns the report and the files
    written (none without ``out``).
    """
    robot, meshes, options, out = spec.robot, spec.meshes, spec.options, spec.out
    mesh_map, package_dirs, tip_link, corrections = spec.mesh_map, spec.package_dirs, spec.tip_link, spec.corrections
    robot_options = spec.robot_options

    with Job() as job:
        job.input(robot_file(robot), "--robot")
        job.input(meshes, "--meshes")
        job.input(mesh_map, "--mesh-map")
        job.input(corrections, "--corrections")
        for folder in package_dirs.values() if package_dirs else ():
            job.input(folder, "--package")
        out = job.output(out, "--out")
        job.check()
        report = compute_inertials(robot, meshes, options, mesh_map=mesh_map, package_dirs=package_dirs,
                                   tip_link=tip_link, corrections=corrections, robot_options=robot_options)
        job.inputs([r.path for r in report.refs], "mesh")  # checked again by the commit
        if out is not None:
            job.write_text(out, report.urdf_text())
        return report, job.commit()


__all__ = ["inertials_to_urdf"]
