"""Printing with a velocity-servo robot (seed 004, de Gier 2015): the UR5 commanded by joint speeds at 125 Hz.

The numerical parts, numpy in and numpy out (docs/printing.md):

* :mod:`.servo_sim`: the simulated velocity servo (PyBullet, headless; imported when a simulator opens);
* :mod:`.multisine`: the identification input (seed 004, Section 4-3);
* :mod:`.identification`: delay from a step and subspace identification per joint (Section 4-3, Tables 4-1, 4-2);
* :mod:`.mpc`: the unconstrained MPC with its Kalman filter, IO and IIO forms (Section 6-3);
* :mod:`.pid`: the PID with feed-forward of Eq. 6-20;
* :mod:`.paths`, :mod:`.tracking`: the print paths, the closed loop and the print error (Eqs. 6-17 to 6-19);
* :mod:`.models_toml`, :mod:`.rtde_csv`, :mod:`.urscript_excite`: the models file's text, an RTDE recording's
  text, the identification experiment as a URScript program (text in, text out: the app reads and writes).

Importing this package imports numpy only.
"""
