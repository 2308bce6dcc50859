"""Robot programs as a language: ABB RAPID and UR URScript read, checked and written (docs/programs.md).

:func:`read_program` gives the program as read (:class:`RobotProgram`: motions in execution order with their
source spans); :mod:`~thermocomp.programs.compensate` (points, configurations, solving, the snapshot),
:mod:`~thermocomp.programs.timing`, :mod:`~thermocomp.programs.feasibility` and
:mod:`~thermocomp.programs.indexed` are the steps of a compensation, which the job
:func:`thermocomp.app.program.compensate_program` runs (files in, the same program with only its targets
changed out).
"""

from thermocomp.programs.model import Motion, Point, RobotProgram, Span, Wait
from thermocomp.programs.options import ProgramOptions
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.read import read_program
from thermocomp.programs.timing import TimingOptions

__all__ = [
    "Motion",
    "Point",
    "ProgramOptions",
    "RapidOptions",
    "RobotProgram",
    "Span",
    "TimingOptions",
    "Wait",
    "read_program",
]
