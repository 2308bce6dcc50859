"""Excitation design (seed 003, "Data acquisition"): the frequency rules of its Table 2 and the designer."""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.dynamics.excitation import ExcitationOptions, check_frequencies, design_excitation
from thermocomp.errors import ConfigurationError
from thermocomp.io.robots import load_robot


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


def _fourier(rng, t, base_hz=0.1, harmonics=12, n=6):
    w = 2 * np.pi * base_hz * np.arange(1, harmonics + 1)
    a, b = rng.normal(size=(2, n, harmonics))
    return np.sin(np.outer(t, w)) @ (b / w).T - np.cos(np.outer(t, w)) @ (a / w).T


def test_automatic_cutoff_covers_a_fourier_series_and_not_the_noise():
    """The cutoff follows the positions' own band: a 12-harmonic Fourier series on a 0.1 Hz base reaches 1.2 Hz
    (the old rule, ten times the dominant frequency, gave 1 Hz), white encoder noise does not widen it, a single
    sine's band is its frequency, and the Nyquist bound holds."""
    from thermocomp.dynamics.filtering import CUTOFF_MARGIN, bandwidth, choose_cutoff

    rate = 25.0
    t = np.arange(1501) / rate
    rng = np.random.default_rng(5)
    q = _fourier(rng, t) + rng.normal(0.0, 1e-3, (t.size, 6))
    band = bandwidth(q, rate)
    # The widest band is the 12th harmonic's; a joint whose random 12th coefficient is small stops at the 11th.
    assert abs(np.max(band) - 1.2) < 0.05 and np.all((band > 1.05) & (band < 1.25)), band
    cutoff = choose_cutoff(q, rate)
    assert cutoff.value == pytest.approx(CUTOFF_MARGIN * float(np.max(band)))
    assert "99.9 %" in cutoff.reason and "joint" in cutoff.reason
    sine = 0.8 * np.sin(2 * np.pi * 0.23 * t)[:, None]
    assert 0.23 <= bandwidth(sine, rate)[0] <= 0.23 + 2 / 60.0  # within the Hann main lobe: 2 bins of 1 / 60 s
    # A joint at rest with encoder noise does not pull the cutoff up to the Nyquist bound.
    still = np.column_stack([sine[:, 0], rng.normal(0.0, 1e-4, t.size)])
    assert choose_cutoff(still, rate).value == pytest.approx(CUTOFF_MARGIN * bandwidth(sine, rate)[0])
    assert bandwidth(still, rate)[1] == 0.0
    fast = choose_cutoff(np.sin(2 * np.pi * 3.0 * t)[:, None], rate)
    assert fast.value == pytest.approx(0.4 * 0.5 * rate) and "bounded by 0.4 x the Nyquist" in fast.reason


def test_slowest_component_of_fourier_and_sine_motions():
    from thermocomp.dynamics.report import slowest_frequency

    rate = 25.0
    t = np.arange(1501) / rate
    q = np.column_stack([_fourier(np.random.default_rng(1), t, n=1)[:, 0], np.sin(2 * np.pi * 0.37 * t),
                         np.linspace(0.0, 1.0, t.size)])
    f = slowest_frequency(q, rate)
    assert f[0] == pytest.approx(0.1, abs=0.01)  # the base harmonic, not the dominant one
    assert f[1] == pytest.approx(0.37, abs=0.01)
    assert f[2] * 60.0 < 1.0  # a ramp does not come back: less than one period in the recording


def test_recorded_speeds_are_used_when_given():
    """A recording with speeds (and no accelerations): the speeds are the recorded ones (filtered), not the
    derivative of the positions; accelerations are their derivative."""
    from thermocomp.dynamics.identify import prepare
    from thermocomp.io.recording_csv import Recording

    rate = 50.0
    t = np.arange(3001) / rate
    q = np.sin(2 * np.pi * 0.2 * t)[:, None]
    qd_recorded = 1.1 * 2 * np.pi * 0.2 * np.cos(2 * np.pi * 0.2 * t)[:, None]  # a drive's own speed estimate
    tau = np.cos(t)[:, None]
    data = prepare(Recording(t, q, tau, qd=qd_recorded))
    keep = slice(data.dropped, t.size - data.dropped)
    np.testing.assert_allclose(data.qd, qd_recorded[keep], atol=1e-3)
    np.testing.assert_allclose(data.qdd, -1.1 * (2 * np.pi * 0.2) ** 2 * q[keep], atol=1e-3)


def test_consistent_parametrisation_keeps_the_margin():
    """Every parameter vector the consistent fit can reach is strictly inside the consistent set by the margin, and
    the map back recovers the fit's numbers."""
    from thermocomp.dynamics.identify import (
        CONSISTENCY_MARGIN,
        _parameters_from_x,
        _x_from_parameters,
        margin_of,
    )
    from thermocomp.dynamics.parameters import is_consistent

    x = np.random.default_rng(4).normal(0.0, 2.0, (200, 10))
    pi = _parameters_from_x(x)
    m = margin_of(pi)
    assert np.all(m >= CONSISTENCY_MARGIN * (1 - 1e-9)) and np.min(m) < 2 * CONSISTENCY_MARGIN
    assert all(is_consistent(p) for p in pi)
    np.testing.assert_allclose(_x_from_parameters(pi), x, atol=1e-6)
