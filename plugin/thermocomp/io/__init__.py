"""Readers and writers: plain validated data in, files out (atomically)."""

from typing import TYPE_CHECKING

from thermocomp._lazy import lazy_exports

if TYPE_CHECKING:
    from thermocomp.io.chain_csv import read_chain_csv, write_chain_csv
    from thermocomp.io.deformation_csv import read_deformation_csv, write_deformation_csv
    from thermocomp.io.dh_csv import read_dh_csv
    from thermocomp.io.targets_csv import iter_targets_csv, read_targets_csv, write_targets_csv
    from thermocomp.io.urdf import read_urdf, urdf_text, write_urdf

#: Where each public name lives: imported on first use (thermocomp._lazy).
_EXPORTS = {
    "iter_targets_csv": "thermocomp.io.targets_csv",
    "read_chain_csv": "thermocomp.io.chain_csv",
    "read_deformation_csv": "thermocomp.io.deformation_csv",
    "read_dh_csv": "thermocomp.io.dh_csv",
    "read_targets_csv": "thermocomp.io.targets_csv",
    "read_urdf": "thermocomp.io.urdf",
    "urdf_text": "thermocomp.io.urdf",
    "write_chain_csv": "thermocomp.io.chain_csv",
    "write_deformation_csv": "thermocomp.io.deformation_csv",
    "write_targets_csv": "thermocomp.io.targets_csv",
    "write_urdf": "thermocomp.io.urdf",
}
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

__all__ = [
    "iter_targets_csv",
    "read_chain_csv",
    "read_deformation_csv",
    "read_dh_csv",
    "read_targets_csv",
    "read_urdf",
    "urdf_text",
    "write_chain_csv",
    "write_deformation_csv",
    "write_targets_csv",
    "write_urdf",
]
