"""Every numerical tolerance of thermocomp, named and justified in one place.

Tests derive their own tolerances from these values instead of inventing new
ones (STYLE.md, practice 15).
"""

from __future__ import annotations

#: IK convergence on position [m]. Double precision resolves about 1e-16 of
#: a 1 m reach; 1e-9 m leaves three orders of magnitude for round-off in a
#: 6-joint product of transforms and is far below any robot's repeatability.
IK_POSITION_TOL = 1e-9

#: IK convergence on orientation [rad], the angle of R_target @ R_reached.T.
IK_ORIENTATION_TOL = 1e-9

#: Loosest convergence a solve may be given: 1 mm and 1 degree, the order of the deformations compensated
#: (the paper's exaggerated table is 1 mm and 1 degree a joint). A looser one (1e308 was accepted) calls an
#: uncompensated row "converged".
IK_MAX_POSITION_TOL = 1e-3
IK_MAX_ORIENTATION_TOL = 0.017453292519943295  # 1 degree [rad]

#: Newton iterations allowed per solve before a target is declared
#: "not converged". Warm-started solves need 2-4; a cold multi-start seed
#: may need 30.
IK_MAX_ITERATIONS = 60

#: Residual above which a solve that stalled is called "unreachable" rather
#: than "not converged" [m] and [rad]: a Gauss-Newton iteration that stalls
#: this far from its target sits in a least-squares minimum, not in a slow
#: convergence.
UNREACHABLE_POSITION = 1e-4
UNREACHABLE_ORIENTATION = 1e-4

#: Smallest singular value of the 6 x n Jacobian (position rows in m/rad,
#: orientation rows in rad/rad) below which a solution is flagged as near a
#: singularity. A value of 1e-3 means a 1 mrad joint error per micrometre or
#: microradian of task error: compensation there amplifies noise 1000 times.
NEAR_SINGULAR_SIGMA = 1e-3

#: Smallest singular values at or above this are settled by a lower bound, those below it computed exactly
#: (:func:`thermocomp.kinematics.ik.sigma_min_lower_bound`): ten times the threshold above.
SETTLED_SIGMA = 10.0 * NEAR_SINGULAR_SIGMA

#: Orthonormality check of rotation matrices read from users (max abs error
#: of R @ R.T - I). Matrices typed with 6 to 9 significant digits pass.
ROTATION_ORTHONORMAL_TOL = 1e-6

#: Unit-length check of user axes and quaternions before normalisation.
UNIT_NORM_TOL = 1e-6

#: Two URDF or table-form chains are the same robot when joint positions agree
#: to this [m] and axes to this [rad]; float text written with repr()
#: round-trips exactly, so this only absorbs rpy conversion round-off.
ROUNDTRIP_POSITION_TOL = 1e-12
ROUNDTRIP_ANGLE_TOL = 1e-12

#: A joint angle of axis 1, 4 or 6 within this [rad] of a quadrant boundary (a multiple of 90 degrees) lies in
#: both quadrants it separates (:func:`thermocomp.kinematics.confdata.near_configuration`). The controller numbers
#: an exact boundary by the angle's sign (ABB, RAPID Reference Manual, Basic Characteristics, "Robot
#: configuration", Figures 33-34: int(angle / 90 deg) for a positive angle, int(angle / 90 deg - 1) for a negative
#: one, so -90 deg is quadrant -2 where floor gives -1),
#: and a robtarget taught on a boundary (a tool pointing straight down, [0, 1, 0, 0], turns axis 4 by 0 or 180
#: deg) comes back from its 9 written digits a few 1e-8 rad to either side. 1e-6 rad passes those and is four
#: orders of magnitude below the nearest mismatch of a robtarget that is not on a boundary in the corpus of 482
#: RAPID programs (1.5e-4 rad).
QUADRANT_BOUNDARY_TOL = 1e-6

#: Joint distance [rad] between a solution and its continuation predictor
#: (or between consecutive minutes) above which the configuration is treated
#: as a branch switch. The predictor sits micro-radians from the solution
#: and a minute of thermal drift moves joints by milli-radians at most; a
#: branch switch moves them by tenths of a radian or more.
BRANCH_JUMP = 0.05

#: A nominal solution found from a target's reference configuration is kept
#: without a multi-start search when no joint moved more than this [rad] from
#: the reference: distinct IK branches of a 6R arm differ by far more.
REFERENCE_ACCEPT = 0.25

#: A quaternion read from a file must have a norm within this of 1; it is then
#: normalised. Robot controllers print quaternions with 4 to 9 digits (ABB
#: RAPID robtargets: about 8), which puts the norm within 1e-4 of 1; 1e-3 lets
#: those through and still rejects a typo or a component in the wrong column,
#: which moves the norm by far more.
QUAT_NORM_TOL = 1e-3

#: Symmetry of an inertia tensor read from a user or a file, relative to its
#: trace: ``max |I - I^T| <= INERTIA_RTOL * trace(I)``. Tensors computed here
#: are symmetric by construction; the data files carry 10 significant digits
#: (5e-11 relative per component), so a file that differs by more than 1e-8
#: of the trace was not written symmetric.
INERTIA_RTOL = 1e-8

#: Triangle inequality of the principal moments, relative to the trace:
#: ``I1 + I2 >= I3 - INERTIA_TRIANGLE_RTOL * trace(I)``. Equality holds for a
#: flat plate; a sum of three components each rounded to 10 significant
#: digits moves the sides by at most ~2e-10 of the trace, so 1e-8 only lets a
#: plate's round-off through.
INERTIA_TRIANGLE_RTOL = 1e-8

#: The same two rules for an inertia read from a URDF, relative to its largest
#: principal moment: ``I1 >= -tol`` and ``I1 + I2 >= I3 - tol``. URDF writers
#: type 4-7 significant digits (a CAD exporter's plate, ``izz = ixx + iyy``,
#: rounded to 6 digits moves the sides by up to ~1e-6 of the largest moment),
#: so 1e-5 lets round-off through and refuses a tensor no body has.
URDF_INERTIA_RTOL = 1e-5

#: Joint axis lines of a URDF and of the robot they are mapped onto must
#: coincide within this distance [m] (and directions within
#: :data:`AXIS_MATCH_TOL`). URDF joint origins are typed to 0.1 mm or better;
#: a larger distance means another robot, another base frame or another zero
#: pose, and mapping meshes by it would misplace them.
FRAME_MATCH_TOL = 1e-4

#: Angle [rad] within which a URDF joint axis must equal the robot's: URDF
#: axes and rpy angles are typed to 6 or more digits (``1.5708`` is 4e-6 rad
#: from pi/2); 1e-5 rad passes those and is 1 micrometre over 0.1 m.
AXIS_MATCH_TOL = 1e-5

#: A model has a closed-form IK (kinematics/closed_form.py) when the offsets its
#: structure needs to be zero are below this [m]: table values typed as 0 are 0
#: exactly, and any real offset (the GoFa's 80 mm wrist) is far above it.
CLOSED_FORM_STRUCTURE_TOL = 1e-12

#: Significant digits of the joint angles [deg] in a results file (``%.12g``). The compensation checks
#: the angles as written, not as computed: a row whose written angles miss the IK tolerance is not
#: converged (:func:`thermocomp.compensation.compensate.written_angles`).
WRITTEN_DIGITS = 12
