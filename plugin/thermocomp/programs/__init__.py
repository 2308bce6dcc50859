"""Robot programs in, compensated robot programs out: ABB RAPID and UR URScript (docs/programs.md).

:func:`compensate_program` reads a program, compensates every motion target
for the thermal deformation and writes the same program with only its
targets changed; :func:`read_program` gives the program as read
(:class:`RobotProgram`: motions in execution order with their source spans).
"""

from thermocomp.programs.compensate import (
    ProgramOptions,
    ProgramReport,
    compensate_program,
    read_program,
)
from thermocomp.programs.model import Motion, Point, RobotProgram, Span, Wait
from thermocomp.programs.rapid import RapidOptions
from thermocomp.programs.timing import TimingOptions

__all__ = [
    "Motion",
    "Point",
    "ProgramOptions",
    "ProgramReport",
    "RapidOptions",
    "RobotProgram",
    "Span",
    "TimingOptions",
    "Wait",
    "compensate_program",
    "read_program",
]
