"""Rebuild a corpus folder for ``bench/corpus.py`` from a ``SOURCES.csv`` and clones of the repositories it names.

The corpus's program texts are other projects' code and are not committed (tests/data/programs_corpus/README.md):
each row names its repository, path and commit. This script takes the clones (``git clone`` of each repository,
with its history) and writes, for every row whose commit is there, the program and the task's other modules
(column ``modules``) at that commit, with the rows found, into one folder that ``bench/corpus.py --extra`` reads::

    .venv/bin/python bench/corpus_gather.py --clones CLONES --out /work/corpus
    .venv/bin/python bench/corpus.py --extra /work/corpus --robots /work/corpus_robots --jobs 2 --timeout 120

``CLONES/<owner>+<name>`` is the clone of ``github.com/<owner>/<name>`` (a work tree, or a bare git directory, or a
folder holding one as ``repo``). A module's file name is its path with ``/`` as ``__`` after ``<owner>__<name>__``,
as the program's; some early rows changed spaces to ``_`` or gave a ``.txt`` module a ``.mod`` suffix, so a module
is also looked for under those names, then by its base name beside the program. A row whose path is a file of
another language (``.py``, ``.cs``, ``.md``, ...) holds a program cut out of it by hand (a string, a comment block, a
code listing): it is not rebuilt. A path ``ARCHIVE!MEMBER`` names a file inside an archive of the repository (a
RobotStudio Pack&Go ``.rspag``, a ``.zip``, a controller backup ``.tar``), read from the archive; a member of an
archive inside it is ``OUTER!INNER/MEMBER``. Rows not found or not rebuilt are printed, with why, and left out of the folder's
SOURCES.csv.
"""

from __future__ import annotations

import argparse
import csv
import io
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

#: The suffixes of files that hold a program as a whole (the others hold one inside text of another language).
WHOLE = frozenset({"", ".mod", ".modx", ".prg", ".sys", ".script", ".urscript", ".txt", ".ur"})
DEFAULT_SOURCES = Path(__file__).resolve().parent.parent / "tests" / "data" / "programs_corpus" / "SOURCES.csv"


def git_dir(clones: Path, repository: str) -> Path | None:
    """The clone of ``repository`` (``owner/name``) under ``clones``, or None."""
    folder = clones / repository.replace("/", "+")
    for candidate in (folder / "repo", folder):
        if candidate.is_dir():
            return candidate
    return None


def _git(repo: Path, *args: str) -> bytes | None:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def module_path(row: dict, module: str, files: list[str]) -> str | None:
    """The path in the repository of ``module``, a file name of the ``modules`` column of ``row``."""
    prefix = row["repository"].replace("/", "__") + "__"
    encoded = {prefix + p.replace("/", "__").replace("!", "__"): p for p in files}
    for name in (module, module.replace(" ", "_")):
        found = encoded.get(name) or {k.replace(" ", "_"): v for k, v in encoded.items()}.get(name)
        if found:
            return found
    base = module.rsplit("__", 1)[-1].lower()
    bases = {base, base.removesuffix(".mod")} if base.endswith(".txt.mod") else {base}
    same = [p for p in files if p.rsplit("/", 1)[-1].lower() in bases]
    here = row["path"].rsplit("/", 1)[0] if "/" in row["path"] else ""
    beside = [p for p in same if (p.rsplit("/", 1)[0] if "/" in p else "") == here]
    return beside[0] if beside else same[0] if len(same) == 1 else None


def _archive_members(data: bytes, prefix: str) -> dict[str, bytes]:
    """Every file of the zip or tar archive ``data`` by its name ``prefix + member`` (``/`` for ``\\``), with the
    files of the archives inside it as ``prefix + inner + "/" + member``; ``{}`` when ``data`` is neither."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files = [(info.filename, archive.read(info)) for info in archive.infolist() if not info.is_dir()]
    except zipfile.BadZipFile:
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                files = [(info.name, tar.extractfile(info).read()) for info in tar.getmembers() if info.isfile()]
        except tarfile.TarError:
            return {}
    found = {}
    for name, member in files:
        name = name.replace("\\", "/").removeprefix("./")
        found[prefix + name] = member
        if name.lower().endswith((".zip", ".rspag", ".tar")):
            found.update(_archive_members(member, prefix + name + "/"))
    return found


def _tree(repo: Path, commit: str, path: str) -> tuple[bytes | None, list[str], dict[str, bytes]]:
    """The file ``path`` (``ARCHIVE!MEMBER`` inside an archive) at ``commit``, the paths beside it (the commit's
    files, or the archive's members as ``ARCHIVE!MEMBER``) and the archive's members by those paths."""
    if "!" not in path:
        listing = _git(repo, "ls-tree", "-r", "-z", "--name-only", commit) or b""  # (-z: paths not quoted)
        return _git(repo, "show", f"{commit}:{path}"), listing.decode("utf-8", "surrogateescape").split("\0"), {}
    outer = path.split("!", 1)[0]
    data = _git(repo, "show", f"{commit}:{outer}")
    members = _archive_members(data, outer + "!") if data else {}
    return members.get(path), list(members), members


def gather(sources: Path, clones: Path, out: Path) -> list[str]:
    """Write ``out/SOURCES.csv`` and ``out/<language>/<file>`` for every row found; return what was not found."""
    with sources.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames or [], list(reader)
    kept, missing = [], []
    for row in rows:
        suffix = Path(row["path"]).suffix.lower()
        if suffix not in WHOLE:
            missing.append(f"{row['file']}: cut out of a {suffix} file by hand ({row['repository']}, {row['path']})")
            continue
        repo = git_dir(clones, row["repository"])
        text, files, members = _tree(repo, row["commit"], row["path"]) if repo else (None, [], {})
        if text is None:
            missing.append(f"{row['file']}: {'no clone' if repo is None else 'not at that commit'} "
                           f"({row['repository']}, {row['path']}, {row['commit']})")
            continue
        modules = {}
        for module in filter(None, row["modules"].split(";")):
            path = module_path(row, module, files)
            data = path and (members.get(path) if members else _git(repo, "show", f"{row['commit']}:{path}"))
            if data is None:
                missing.append(f"{row['file']}: its module {module} is not at {row['commit']}")
                break
            modules[module] = data
        else:
            folder = out / row["language"]
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in {row["file"]: text, **modules}.items():
                (folder / name).write_bytes(data)
            kept.append(row)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "SOURCES.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(kept)
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES, help="the SOURCES.csv (default: the tests')")
    parser.add_argument("--clones", type=Path, required=True, help="the folder of clones, CLONES/<owner>+<name>")
    parser.add_argument("--out", type=Path, required=True, help="the corpus folder to write (must not exist)")
    args = parser.parse_args(argv)
    if args.out.exists():
        parser.error(f"--out {args.out}: expected a folder that does not exist yet, got an existing path")
    missing = gather(args.sources, args.clones, args.out)
    for line in missing:
        print(f"not gathered: {line}", file=sys.stderr)
    with (args.out / "SOURCES.csv").open(encoding="utf-8") as f:
        print(f"{sum(1 for _ in csv.DictReader(f))} programs in {args.out}, {len(missing)} rows not found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
