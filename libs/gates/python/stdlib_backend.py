"""The build backend of intutic-clawde (PEP 517, PEP 660), in the standard library alone, so that
`pip install libs/gates/python` needs neither the network nor setuptools. It packs intutic_clawde/
into a pure-Python wheel (py3-none-any) whose metadata is pyproject.toml's [project] table; a key of
that table it does not know is an error, so metadata is never silently dropped."""
import ast
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "intutic_clawde"
KNOWN_KEYS = {"name", "version", "description", "requires-python", "license", "dependencies", "keywords", "classifiers"}
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|#')


def read_project(path=os.path.join(HERE, "pyproject.toml")):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib
    except ImportError:  # Python 3.9 and 3.10
        project = read_project_table_without_tomllib(text)
    else:
        project = tomllib.loads(text).get("project", {})
    unknown = sorted(set(project) - KNOWN_KEYS)
    if unknown:
        raise ValueError(f"pyproject.toml: [project] {', '.join(unknown)}: not known to stdlib_backend.py; add it there (KNOWN_KEYS, metadata_text)")
    for key in ("name", "version"):
        if not isinstance(project.get(key), str) or not project[key]:
            raise ValueError(f"pyproject.toml: [project] {key} must be a non-empty string")
    return project


def _without_comment(line):
    for match in STRING_OR_COMMENT.finditer(line):
        if match.group() == "#":
            return line[: match.start()]
    return line


def read_project_table_without_tomllib(text):
    """The [project] table, read from the TOML this file uses: `key = value` with a basic string or an
    array of them as the value (an array may span lines), comments, and [table] headers."""
    project, section, key, value = {}, None, None, None
    for line in text.splitlines():
        line = _without_comment(line).strip()
        if not line:
            continue
        if value is None:
            header = re.fullmatch(r"\[([^\]\[]+)\]", line)
            if header:
                section = header.group(1).strip()
                continue
            key, equals, value = (part.strip() for part in line.partition("="))
            if not equals:
                raise ValueError(f"pyproject.toml: expected key = value, got {line!r}")
        else:
            value += " " + line
        bare = STRING.sub('""', value)
        if bare.count("[") > bare.count("]"):
            continue  # an array that goes on on the next line
        if section == "project":
            project[key.strip('"')] = ast.literal_eval(value)
        key = value = None
    return project


def metadata_text(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    if "license" in project:
        lines.append(f"License: {project['license']}")
    if project.get("keywords"):
        lines.append(f"Keywords: {','.join(project['keywords'])}")
    lines.extend(f"Classifier: {c}" for c in project.get("classifiers", []))
    lines.extend(f"Requires-Dist: {d}" for d in project.get("dependencies", []))
    if any("\n" in line for line in lines):
        raise ValueError("pyproject.toml: [project] values are single lines")
    return "\n".join(lines) + "\n"


def _distribution(project):
    return f"{re.sub(r'[-_.]+', '_', project['name']).lower()}-{project['version']}"


def _source_date_epoch():
    """SOURCE_DATE_EPOCH when set (reproducible builds), else now; never before 1980 (zip's epoch)."""
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", time.time())), 315532800)


def _dist_info_files(project):
    dist_info = f"{_distribution(project)}.dist-info"
    wheel = "Wheel-Version: 1.0\nGenerator: stdlib_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [(f"{dist_info}/METADATA", metadata_text(project).encode()), (f"{dist_info}/WHEEL", wheel.encode())]


def _package_files():
    for directory, subdirectories, names in os.walk(os.path.join(HERE, PACKAGE)):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                yield os.path.relpath(path, HERE).replace(os.sep, "/"), f.read()


def _write_wheel(wheel_directory, project, files):
    """The wheel of these files and the dist-info, with the RECORD of their hashes; its file name."""
    filename = f"{_distribution(project)}-py3-none-any.whl"
    entries = list(files) + _dist_info_files(project)
    record_name = f"{_distribution(project)}.dist-info/RECORD"
    record = [f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}" for name, data in entries]
    entries.append((record_name, ("\n".join(record + [f"{record_name},,"]) + "\n").encode()))
    date_time = time.gmtime(_source_date_epoch())[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_editable = get_requires_for_build_wheel


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = read_project()
    for name, data in _dist_info_files(project):
        os.makedirs(os.path.join(metadata_directory, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(metadata_directory, name), "wb") as f:
            f.write(data)
    return f"{_distribution(project)}.dist-info"


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, read_project(), _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth file puts this directory on sys.path: edits take effect without reinstalling."""
    project = read_project()
    return _write_wheel(wheel_directory, project, [(f"__editable__.{_distribution(project)}.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = read_project()
    root = _distribution(project)
    sources = []
    for name in ("pyproject.toml", "stdlib_backend.py"):
        with open(os.path.join(HERE, name), "rb") as f:
            sources.append((name, f.read()))
    files = [("PKG-INFO", metadata_text(project).encode())] + sources + list(_package_files())
    mtime = _source_date_epoch()
    with tarfile.open(os.path.join(sdist_directory, f"{root}.tar.gz"), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files:
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            tar.addfile(info, io.BytesIO(data))
    return f"{root}.tar.gz"
