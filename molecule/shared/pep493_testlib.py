"""Helpers shared by the testinfra tests of every scenario.

The tests look at the host itself (files, systemd, real TLS connections) through the
testinfra podman backend. Two helpers reach the controller side:

* ``results(host, ...)`` reads the module results the converge playbook kept
  (molecule/shared/tasks/keep-results.yml), to compare what a module reported with
  what the host really does;
* ``run_module(host, ...)`` runs one module against the instance with the ``ansible``
  command and Molecule's inventory (used for the read-only info module, so its report
  is taken at verify time, after every change).
"""

import glob
import json
import os
import subprocess

import pytest
import yaml


def pytest_configure(config):
    """Test every Molecule instance through testinfra's podman backend.

    Molecule starts testinfra with its ansible backend, which runs every command as a
    whole Ansible call; the podman backend runs ``podman exec`` instead (several times
    faster). The hosts come from Molecule's inventory, so no scenario repeats its
    instance names. PEP493_TESTINFRA_BACKEND=ansible keeps the ansible backend (used to
    measure the difference); an explicit --hosts always wins.
    """
    inventory = os.environ.get("MOLECULE_INVENTORY_FILE")
    if getattr(config.option, "hosts", None):
        return
    if not inventory:
        raise pytest.UsageError("these tests run on Molecule instances: use molecule/run (or `molecule verify`), "
                                "or name the hosts with --hosts=podman://NAME")
    if os.environ.get("PEP493_TESTINFRA_BACKEND", "podman") != "podman":
        return
    with open(inventory) as handle:
        data = yaml.safe_load(handle) or {}
    hosts = {}

    def walk(group):
        for name, hostvars in ((group or {}).get("hosts") or {}).items():
            hosts.setdefault(name, hostvars or {})
        for child in ((group or {}).get("children") or {}).values():
            walk(child)

    for group in data.values():
        walk(group)
    specs = []
    for name in sorted(hosts):
        if hosts[name].get("ansible_connection") in ("podman", "containers.podman.podman"):
            specs.append("podman://" + name)
        else:
            specs.append("ansible://%s?ansible_inventory=%s" % (name, inventory))
    config.option.hosts = ",".join(specs)


CFG = "/etc/python/cert-verification.cfg"
UNIT_DIR = "/etc/systemd/system"
FIXTURE = "/etc/pep493-fixture"
URL = "https://localhost:4443/"

# Exit status of the fixture client (molecule/images/fixtures/.../https-client)
CLIENT_OK = 0
CLIENT_CERT_REJECTED = 2


def instance(host):
    return host.backend.get_hostname()


def platform(host):
    return host.file(FIXTURE + "/platform").content_string.strip()


def has_python2(host):
    return host.file("/usr/bin/python2.7").exists


def results(host, tag="converge", which="first"):
    """Module results kept by keep-results.yml for this instance.

    which: "first" (the first run), "last" (the latest, e.g. the idempotence run), "all".
    """
    stem = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "results",
                        "%s.%s." % (instance(host), tag))
    paths = sorted(glob.glob(glob.escape(stem) + "[0-9][0-9][0-9].json"))
    assert paths, "no results kept under %s*.json" % stem
    loaded = []
    for path in paths if which == "all" else [paths[0] if which == "first" else paths[-1]]:
        with open(path) as handle:
            loaded.append(json.load(handle))
    return loaded if which == "all" else loaded[0]


def has_results(host, tag):
    stem = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "results", "%s.%s." % (instance(host), tag))
    return bool(glob.glob(glob.escape(stem) + "[0-9][0-9][0-9].json"))


def run_module(host, module, args=None, check=False):
    """Run one module on the instance through Molecule's inventory; return its result."""
    cmd = ["ansible", instance(host), "-i", os.environ["MOLECULE_INVENTORY_FILE"],
           "-o", "-m", module]
    if args:
        cmd += ["-a", json.dumps(args)]
    if check:
        cmd.append("--check")
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_DEPRECATION_WARNINGS="0")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)
    line = [x for x in proc.stdout.splitlines() if x.startswith(instance(host) + " | ")]
    assert line, "no result from %s:\nstdout: %s\nstderr: %s" % (cmd, proc.stdout, proc.stderr)
    status, dummy, payload = line[-1].partition(" => ")
    result = json.loads(payload)
    result["_status"] = status.split(" | ", 1)[1].strip()
    result["_stderr"] = proc.stderr
    return result


def stat(host, *paths):
    """{path: {"type", "mode", "user", "group"}} in one command; missing paths are left out."""
    out = host.run("stat -c '%%n|%%F|%%a|%%U|%%G' -- " + " ".join(["%s"] * len(paths)) + " 2>/dev/null", *paths)
    found = {}
    for line in out.stdout.splitlines():
        name, kind, mode, user, group = line.rsplit("|", 4)
        found[name] = {"type": kind, "mode": int(mode, 8), "user": user, "group": group}
    return found


def systemd_show(host, unit, *props):
    """{property: value} from one `systemctl show`."""
    out = host.check_output("systemctl show " + " ".join("-p " + p for p in props) + " %s", unit_name(unit))
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def unit_environment(host, unit):
    """systemd's own view of a unit's Environment= (a list of NAME=VALUE)."""
    out = host.check_output("systemctl show -p Environment --value %s", unit)
    return out.split()


def start_client(host, unit):
    """Start a oneshot client unit through systemd; return (systemctl rc, ExecMainStatus)."""
    cmd = host.run("systemctl start %s", unit)
    status = host.check_output("systemctl show -p ExecMainStatus --value %s", unit)
    return cmd.rc, int(status)


def main_pid_environ(host, unit):
    pid = host.check_output("systemctl show -p MainPID --value %s", unit).strip()
    assert pid not in ("", "0"), "%s has no main process" % unit
    raw = host.check_output("tr '\\0' '\\n' < /proc/%s/environ", pid)
    return dict(line.split("=", 1) for line in raw.splitlines() if "=" in line)


def stray_files(host, folder):
    """Files in a folder that look like leftovers of an interrupted write."""
    out = host.run("find %s -maxdepth 1 -type f \\( -name '.*' -o -name '*.tmp' -o -name '*~' "
                   "-o -name '*.swp' -o -name 'tmp*' \\) -print", folder)
    return [x for x in out.stdout.splitlines() if x]


def file_state(host, paths):
    """{path: (sha256, mtime in ns, mode, owner)} for the paths that exist."""
    state = {}
    for path in paths:
        out = host.run("stat -c '%%Y.%%y %%a %%U' %s && sha256sum %s", path, path)
        if out.rc == 0:
            state[path] = out.stdout
    return state


DROPIN_NAME = "zz-pep493-https.conf"
MARKER_PREFIX = "# Managed by pep493.https.service_verification"


def unit_name(unit):
    return unit if "." in unit else unit + ".service"


def dropin_path(unit, name=DROPIN_NAME):
    return "%s/%s.d/%s" % (UNIT_DIR, unit_name(unit), name)


def assert_dropin(host, unit, value, reason=None, expires=None):
    """Our drop-in for unit is on disk as expected, and systemd reads it so."""
    path = dropin_path(unit)
    folder = path.rsplit("/", 1)[0]
    st = stat(host, path, folder)
    assert st.get(path) == {"type": "regular file", "mode": 0o644, "user": "root", "group": "root"}, st
    assert st.get(folder) == {"type": "directory", "mode": 0o755, "user": "root", "group": "root"}, st
    # exactly our file in the folder: no temp file or backup left behind
    assert host.check_output("ls -A %s", folder).split() == [DROPIN_NAME]
    text = host.file(path).content_string
    lines = text.splitlines()
    assert text.endswith("\n")
    assert lines[0].startswith(MARKER_PREFIX)
    assert [x for x in lines if not x.startswith("#")] == ["[Service]", "Environment=PYTHONHTTPSVERIFY=%s" % value]
    comments = "\n".join(x for x in lines if x.startswith("#"))
    if reason is not None:
        assert reason in comments
    if expires is not None:
        assert expires in comments
    # systemd's own view
    show = systemd_show(host, unit, "Environment", "DropInPaths", "NeedDaemonReload")
    assert "PYTHONHTTPSVERIFY=%s" % value in show["Environment"].split()
    assert path in show["DropInPaths"].split()
    assert show["NeedDaemonReload"] == "no"
    check = host.run("systemd-analyze verify %s", unit_name(unit))
    assert check.rc == 0, check.stderr
    assert path not in check.stderr, check.stderr


def assert_no_dropin(host, unit):
    path = dropin_path(unit)
    folder = path.rsplit("/", 1)[0]
    assert stat(host, path, folder) == {}, "drop-in or its empty folder left behind"
    assert not any(x.startswith("PYTHONHTTPSVERIFY=") for x in unit_environment(host, unit))


def python_verifies_by_default(host, python):
    """Does this interpreter, in a clean environment, verify HTTPS certificates by default?"""
    out = host.check_output(
        "env -i %s -c \"import ssl; print(ssl._create_default_https_context is ssl.create_default_context)\"",
        python)
    return out == "True"
