"""Robot programs as a language: ABB RAPID and UR URScript read, checked and written (docs/programs.md).

:func:`read_program` gives the program as read (:class:`RobotProgram`: motions in execution order with their
source spans); :mod:`~thermocomp.programs.compensate` (points, configurations, solving, writing),
:mod:`~thermocomp.programs.timing`, :mod:`~thermocomp.programs.feasibility` and
:mod:`~thermocomp.programs.passes` (tables of targets) are the steps of a compensation, which the job
:func:`thermocomp.app.program.compensate_program` runs (files in, the same program with only its targets
changed out).
"""

from typing import TYPE_CHECKING

from thermocomp._lazy import lazy_exports

if TYPE_CHECKING:
    from thermocomp.programs.model import RobotProgram
    from thermocomp.programs.options import ProgramOptions
    from thermocomp.programs.rapid import RapidOptions
    from thermocomp.programs.read import read_program

#: Where each public name lives: imported on first use (thermocomp._lazy).
_EXPORTS = {
    "ProgramOptions": "thermocomp.programs.options",
    "RapidOptions": "thermocomp.programs.rapid",
    "RobotProgram": "thermocomp.programs.model",
    "read_program": "thermocomp.programs.read",
}
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = [
    "ProgramOptions",
    "RapidOptions",
    "RobotProgram",
    "read_program",
]
