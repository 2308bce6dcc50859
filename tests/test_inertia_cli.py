"""``thermocomp inertia`` through its real entry point (``thermocomp.cli.main.main``)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

from thermocomp.cli.main import EXIT_USAGE, main
from thermocomp.inertia import builtin_inertials
from thermocomp.inertia.links import link_names
from thermocomp.io.meshes import read_mesh, write_stl
from thermocomp.io.robots import load_robot, robot_dir
from thermocomp.io.urdf import read_urdf

MESHES = robot_dir("gofa") / "meshes"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["inertia", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def inertial_masses(urdf_text: str) -> dict[str, float]:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(urdf_text)
    return {link.get("name"): float(link.find("inertial/mass").get("value")) for link in root.findall("link")}


def test_builtin_meshes_give_a_table_and_a_urdf(tmp_path, capsys):
    out = tmp_path / "gofa_inertial.urdf"
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m",
                          "--total-mass", "28", "--out", str(out))
    assert code == 0, err
    lines = text.splitlines()
    assert lines[1].split()[:4] == ["link", "method", "volume_cm3", "mass_kg"]
    assert [line.split()[0] for line in lines[2:9]] == link_names(6)
    assert all(line.split()[1] == "closed" for line in lines[2:9])
    assert f"wrote {out}" in text
    chain = read_urdf(out)
    np.testing.assert_allclose(chain.p, load_robot("gofa").p, atol=1e-15)
    masses = inertial_masses(out.read_text())
    shipped = builtin_inertials("gofa")
    for link in shipped.links:
        assert masses[link.link] == pytest.approx(link.mass, rel=1e-9)
    assert sum(masses[n] for n in link_names(6)) == pytest.approx(28.0, rel=1e-12)


def test_millimetre_meshes_with_units_mm_give_the_same_masses(tmp_path, capsys):
    for link in link_names(6):
        m = read_mesh(MESHES / f"{link}.stl", 1.0)
        write_stl(tmp_path / f"{link}.stl", m.vertices * 1000.0, m.faces)
    code, text, _ = run(capsys, "--robot", "gofa", "--meshes", str(tmp_path), "--units", "mm", "--total-mass", "28")
    assert code == 0
    masses = [float(line.split()[3]) for line in text.splitlines()[2:9]]
    np.testing.assert_allclose(masses, [x.mass for x in builtin_inertials("gofa").links], atol=6e-4)  # printed to 1 g


def test_corrections_scale_mass_and_inertia(tmp_path, capsys):
    lam = tmp_path / "lambda.csv"
    lam.write_text("# seed 000 Table II style\nlink,lambda\n2,0.96\nlink1,1.03\n")
    out = tmp_path / "x.urdf"
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28",
                          "--corrections", str(lam), "--out", str(out))
    assert code == 0, err
    masses = inertial_masses(out.read_text())
    shipped = builtin_inertials("gofa")
    assert masses["link1"] == pytest.approx(1.03 * shipped["link1"].mass, rel=1e-9)
    assert masses["link2"] == pytest.approx(0.96 * shipped["link2"].mass, rel=1e-9)
    assert masses["link3"] == pytest.approx(shipped["link3"].mass, rel=1e-9)
    assert "Eq. 9" in text


@pytest.mark.parametrize("content, where, words", [
    ("link,lambda\nlink7,1.0\n", "line 2, column 'link'", "link7"),
    ("link,lambda\n7,1.0\n", "line 2, column 'link'", "0..6, got '7'"),
    ("link,lambda\n\u00b2,1.1\n", "line 2, column 'link'", "got '\u00b2'"),  # str.isdigit() is True for it
    ("link,lambda\n1,1\n\u0663,1\n", "line 3, column 'link'", "got '\u0663'"),  # Arabic-Indic 3: int() reads 3
    ("link,lambda\n1,-1\n", "line 2, column 'lambda'", "> 0"),
    ("link,lambda\n1,x\n", "line 2, column 'lambda'", "x"),
    ("link,lambda\n1,1\nlink1,1\n", "line 3, column 'link'", "twice"),
    ("# nothing to correct\nlink,lambda\n", "", "corrects nothing"),
])
def test_bad_corrections_name_file_line_and_column(tmp_path, capsys, content, where, words):
    lam = tmp_path / "lambda.csv"
    lam.write_text(content, encoding="utf-8")
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28",
                          "--corrections", str(lam))
    assert code == 1 and f"{lam}{', ' if where else ':'}{where}" in err and words in err, err
    assert "Traceback" not in err and text == ""


def test_an_open_mesh_needs_a_stated_fallback(tmp_path, capsys):
    shutil.copytree(MESHES, tmp_path / "m")
    m = read_mesh(tmp_path / "m" / "link3.stl", 1.0)
    write_stl(tmp_path / "m" / "link3.stl", m.vertices, m.faces[1:])  # one triangle missing
    args = ["--robot", "gofa", "--meshes", str(tmp_path / "m"), "--units", "m", "--total-mass", "28"]
    code, _, err = run(capsys, *args)
    assert code == 1
    assert str(tmp_path / "m" / "link3.stl") in err and "3 open (boundary) edges" in err and "fallback" in err
    code, text, _ = run(capsys, *args, "--fallback", "convex_hull")
    assert code == 0 and "convex_hull" in text and "note: link3: volume of the convex hull" in text
    code, text, _ = run(capsys, *args, "--fallback", "signed")
    assert code == 0 and "note: link3: 'signed' volume of an open surface (3 open (boundary) edges" in text


def test_never_writes_over_an_input(tmp_path, capsys):
    lam = tmp_path / "lambda.csv"
    lam.write_text("link,lambda\n1,1\n")
    code, _, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28",
                       "--corrections", str(lam), "--out", str(lam))
    assert code == 1 and "overwrite" in err
    assert lam.read_text() == "link,lambda\n1,1\n"


@pytest.mark.parametrize("argv, words", [
    (["--total-mass", "28", "--package", "nopath"], "NAME=DIR"),
])
def test_bad_options_are_errors(capsys, argv, words):
    code, _, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", *argv)
    assert code == 1 and words in err


def test_units_and_total_mass_are_required(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["inertia", "--robot", "gofa", "--meshes", str(MESHES), "--total-mass", "28"])
    assert exc.value.code == EXIT_USAGE and "--units" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["inertia", "--robot", "gofa", "--meshes", str(MESHES), "--units", "m"])


@pytest.mark.slow
def test_console_script_help_lists_the_options():
    proc = subprocess.run([sys.executable, "-m", "thermocomp", "inertia", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    for option in ("--meshes", "--units", "--total-mass", "--fallback", "--corrections", "--mesh-map", "--out"):
        assert option in proc.stdout


def test_out_naming_a_directory_fails_before_the_table(tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28",
                          "--out", str(folder))
    assert code == 1 and str(folder) in err and "directory" in err and "Traceback" not in err
    assert text == ""  # checked before computing: no table printed
    assert list(folder.iterdir()) == [] and not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


@pytest.mark.slow
def test_help_shows_no_default_for_required_or_unset_options():
    proc = subprocess.run([sys.executable, "-m", "thermocomp", "inertia", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "(default: None)" not in proc.stdout and "(default: [])" not in proc.stdout
    assert "(default: visual)" in proc.stdout  # a real default is still shown


def test_an_implausible_density_is_warned_with_its_value(tmp_path, capsys):
    """Metre meshes given --units mm: volumes 1e-9 of the truth, so a density 1e9 times the right one."""
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28")
    assert code == 0 and "warning:" not in text, err
    volume_cm3 = float(next(line for line in text.splitlines() if line.startswith("total")).split()[1])
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "mm", "--total-mass", "28")
    assert code == 0, err
    warning = next(line for line in text.splitlines() if line.startswith("warning:"))
    assert "implausible" in warning and "mesh unit" in warning
    value = float(warning.split("density is ")[1].split(" kg/m^3")[0])
    assert value == pytest.approx(28.0 / (volume_cm3 * 1e-6 * 1e-9), rel=1e-3)  # .4g printed
    shown_m3 = float(warning.split("total volume ")[1].split(" m^3")[0])  # total mass / density
    assert shown_m3 == pytest.approx(volume_cm3 * 1e-6 * 1e-9, rel=1e-3)


def test_columns_stay_aligned_with_a_flipped_mesh(tmp_path, capsys):
    shutil.copytree(MESHES, tmp_path / "m")
    m = read_mesh(tmp_path / "m" / "link3.stl", 1.0)
    write_stl(tmp_path / "m" / "link3.stl", m.vertices, m.faces[:, ::-1])  # every face turned inward
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(tmp_path / "m"), "--units", "m",
                          "--total-mass", "28")
    assert code == 0, err
    lines = text.splitlines()
    header, rows = lines[1], lines[2:9]
    assert "link3   closed (flipped) " in rows[3]
    for column in ("volume_cm3", "mass_kg", "I3_kg_m2"):
        end = header.index(column) + len(column)
        for row in rows:  # right-aligned numbers end where their header ends
            assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (column, row)


def test_the_placeholder_inertials_are_stated_with_the_urdf_total(tmp_path, capsys):
    out = tmp_path / "x.urdf"
    code, text, err = run(capsys, "--robot", "gofa", "--meshes", str(MESHES), "--units", "m", "--total-mass", "28",
                          "--out", str(out))
    assert code == 0, err
    note = next(line for line in text.splitlines() if "placeholder" in line)
    stated = float(note.split("masses sum to ")[1].split(" kg")[0])
    masses = inertial_masses(out.read_text())
    assert stated == pytest.approx(sum(masses.values()), abs=5e-4)  # printed to 1 g
    assert sum(masses.values()) != pytest.approx(28.0, abs=1e-4)  # the placeholders are real
