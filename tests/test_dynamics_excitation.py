"""Excitation design (seed 003, "Data acquisition"): the frequency rules of its Table 2 and the designer."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.dynamics.excitation import ExcitationOptions, check_frequencies, design_excitation
from thermocomp.errors import ConfigurationError
from thermocomp.robot.builtin import load_robot


def test_seed_table_bad_set_is_bad_and_named():
    check = check_frequencies([1.0, 2.0, 1.2], 9.0)
    assert check.quality == "bad"
    harmonic = [i for i in check.issues if i.cause == "harmonic frequencies"]
    assert [i.joints for i in harmonic] == [(1, 2)]
    # The seed: "j1 and j2 will repeat after 1 cycle of j1 and 2 cycles of j2".
    assert "repeat after 1 cycle of joint 1 and 2 of joint 2" in harmonic[0].text


def test_seed_table_good_set_repeats_after_eleven_cycles():
    assert check_frequencies([1.1, 1.3, 1.5], 9.0).quality == "good"
    longer = check_frequencies([1.1, 1.3, 1.5], 20.0)
    assert longer.quality == "medium"
    # The seed: "repeat after 11 cycles of j1, 13 cycles of j2 and 15 cycles of j3" (10 s).
    assert "repeat after 11 cycles of joint 1 and 13 of joint 2 (10 s)" in longer.text()


def test_equal_frequencies_overlap():
    check = check_frequencies([1.0, 1.2, 1.2], 9.0)
    assert check.quality == "bad"
    assert "overlapping frequencies" in check.causes


def test_too_few_cycles_is_bad():
    check = check_frequencies([0.1, 0.13], 20.0)
    assert check.causes == ["too short"]
    assert "joint 1 completes 2 cycles" in check.text()


@pytest.mark.parametrize("frequencies, cause", [((1.0, 2.0, 1.2, 1.7, 1.9, 2.3), "harmonic frequencies"),
                                                ((1.0, 1.2, 1.2, 1.7, 1.9, 2.3), "overlapping frequencies")])
def test_designer_refuses_bad_sets_naming_the_cause(frequencies, cause):
    with pytest.raises(ConfigurationError, match=f"refused excitation: {cause}"):
        design_excitation(load_robot("gofa"), ExcitationOptions(duration=9.0, frequencies=frequencies))


@pytest.mark.parametrize("name", ["gofa", "ur5"])
@pytest.mark.parametrize("duration", [20.0, 60.0])
def test_designed_excitation_respects_limits_and_is_good(name, duration):
    chain = load_robot(name)
    options = ExcitationOptions(duration=duration)
    ex = design_excitation(chain, options)
    assert ex.check.quality == "good"
    assert np.all(ex.frequency * duration >= 3.0)
    assert np.all(ex.centre - ex.amplitude >= chain.lower) and np.all(ex.centre + ex.amplitude <= chain.upper)
    assert np.all(ex.peak_speed <= options.speed_fraction * chain.velocity * (1 + 1e-12))
    # Sampled motion has the exact derivatives it claims.
    t = ex.times(200.0)
    q, qd, qdd = ex.states(t)
    np.testing.assert_allclose(np.gradient(q, t, axis=0)[1:-1], qd[1:-1], rtol=0, atol=2e-3 * np.max(np.abs(qd)))
    assert np.max(np.abs(qd)) <= np.max(chain.velocity)
    # At least one joint reaches the requested speed fraction (the design pushes to the limit).
    assert np.max(ex.peak_speed / chain.velocity) == pytest.approx(options.speed_fraction, rel=1e-9)
