"""thermocomp: thermal-deformation compensation of industrial robots."""
