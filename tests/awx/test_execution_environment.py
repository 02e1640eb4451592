"""meta/execution-environment.yml says what an execution environment (ansible-builder) must add for
the collection, and ansible-builder reads it so: ``ansible-builder introspect`` on the collection
finds exactly the requirements the files it names declare, and those files ship."""

import fnmatch
import os
import shutil
import subprocess

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.normpath(os.path.join(HERE, "..", ".."))
META = os.path.join(COLLECTION, "meta", "execution-environment.yml")


def builder():
    found = shutil.which("ansible-builder")
    assert found, "ansible-builder is not on PATH: tests/awx/run puts the tools venv (make venv) there"
    return found


def declared(kind):
    """The requirement lines of the file meta/execution-environment.yml names for ``kind``."""
    with open(META) as handle:
        name = yaml.safe_load(handle)["dependencies"][kind]
    with open(os.path.join(COLLECTION, name)) as handle:
        return [line.split("#")[0].strip() for line in handle if line.split("#")[0].strip()]


def test_the_files_it_names_are_relative_and_ship(tmp_path):
    with open(META) as handle:
        meta = yaml.safe_load(handle)
    with open(os.path.join(COLLECTION, "galaxy.yml")) as handle:
        ignored = yaml.safe_load(handle)["build_ignore"]
    assert sorted(meta["dependencies"]) == ["python", "system"]
    for name in meta["dependencies"].values():
        assert not os.path.isabs(name) and os.path.isfile(os.path.join(COLLECTION, name)), name
        assert not any(fnmatch.fnmatch(name, pattern) or name.startswith(pattern.rstrip("/") + "/")
                       for pattern in ignored), "%s is left out of the tarball by build_ignore" % name


def test_ansible_builder_finds_the_requirements_it_declares(tmp_path):
    # a collections folder holding this collection only, as ansible-builder sees an installed one
    os.makedirs(str(tmp_path / "ansible_collections" / "pep493"))
    os.symlink(COLLECTION, str(tmp_path / "ansible_collections" / "pep493" / "https"))
    done = subprocess.run([builder(), "introspect", str(tmp_path)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    found = yaml.safe_load(done.stdout)
    assert found["system"] == ["%s  # from collection pep493.https" % line for line in declared("system")]
    assert found["system"], "no system requirement found: the modules reach the hosts over SSH"
    # the controller side needs ansible-core and the standard library only: ansible-builder leaves ansible-core out
    assert found["python"] == ["%s  # from collection pep493.https" % line for line in declared("python")
                               if not line.startswith("ansible-core")]
