"""Robot programs in, compensated robot programs out: ABB RAPID and UR URScript (docs/programs.md).

:func:`compensate_program` reads a program, compensates every motion target
for the thermal deformation and writes the same program with only its
targets changed; :func:`read_program` gives the program as read
(:class:`RobotProgram`: motions in execution order with their source spans).
"""

from typing import TYPE_CHECKING

from thermocomp._lazy import lazy_exports

if TYPE_CHECKING:
    from thermocomp.programs.compensate import (
        ProgramOptions,
        ProgramReport,
        compensate_program,
        read_program,
    )
    from thermocomp.programs.model import Motion, Point, RobotProgram, Span, Wait
    from thermocomp.programs.rapid import RapidOptions
    from thermocomp.programs.timing import TimingOptions

#: Where each public name lives: imported on first use (thermocomp._lazy).
_EXPORTS = {
    "Motion": "thermocomp.programs.model",
    "Point": "thermocomp.programs.model",
    "ProgramOptions": "thermocomp.programs.compensate",
    "ProgramReport": "thermocomp.programs.compensate",
    "RapidOptions": "thermocomp.programs.rapid",
    "RobotProgram": "thermocomp.programs.model",
    "Span": "thermocomp.programs.model",
    "TimingOptions": "thermocomp.programs.timing",
    "Wait": "thermocomp.programs.model",
    "compensate_program": "thermocomp.programs.compensate",
    "read_program": "thermocomp.programs.compensate",
}
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

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
