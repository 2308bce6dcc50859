"""Readers and writers: plain validated data in, files out (atomically)."""

from thermocomp.io.chain_csv import read_chain_csv, write_chain_csv
from thermocomp.io.deformation_csv import read_deformation_csv, write_deformation_csv
from thermocomp.io.dh_csv import read_dh_csv
from thermocomp.io.targets_csv import iter_targets_csv, read_targets_csv, write_targets_csv
from thermocomp.io.urdf import read_urdf, urdf_text, write_urdf

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
