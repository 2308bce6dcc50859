"""The pure numerical core: numpy in, numpy out, SI units, world frame.

Deform the IRB140 halfway to the paper's exaggerated table, take the TCP
poses of a few random configurations as targets, solve the inverse
kinematics of the deformed robot from the nominal angles, and check
FK(IK(T)) = T.

Run: ``python examples/core_api.py``
"""

import sys

import numpy as np

from thermocomp import DeformationTable, Status, deformed_model, fk, load_robot, nominal_model, solve_ik


def main() -> int:
    chain = load_robot("irb140")
    table = DeformationTable.from_mm_deg([[1, 1, 1, 1, 1, 1]] * 6)  # Dx,Dy,Dz [mm], Dox,Doy,Doz [deg]
    model = deformed_model(chain, table, fraction=0.5)  # minute 100 of a 200-minute ramp

    rng = np.random.default_rng(7)
    q_program = chain.home + rng.uniform(-0.3, 0.3, (5, chain.n_joints))  # controller angles [rad]
    R_target, p_target = fk(nominal_model(chain), q_program)  # where the cold robot goes: (5, 3, 3), (5, 3) [m]

    result = solve_ik(model, R_target, p_target, q_seed=q_program)  # warm start: the program's own angles
    R_reached, p_reached = fk(model, result.q)
    miss_cold = np.linalg.norm(fk(model, q_program)[1] - p_target, axis=1)
    for k in range(len(q_program)):
        print(f"target {k}: {Status(int(result.status[k])).label}, "
              f"corrections {np.round(np.degrees(result.q[k] - q_program[k]), 4)} deg, "
              f"uncompensated miss {miss_cold[k] * 1e3:.3f} mm, "
              f"residual {np.linalg.norm(p_reached[k] - p_target[k]) * 1e3:.1e} mm")
    return 0 if np.all(result.status == Status.CONVERGED) else 2


if __name__ == "__main__":
    sys.exit(main())
