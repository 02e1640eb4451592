"""Helpers of the rollout scenario's tests: the playbook runs kept by converge.yml, and new
runs of the collection's playbooks against this scenario's inventory."""

import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(SCENARIO))
SCHEMA = os.path.join(REPO, "tests", "report", "report.schema.json")
CANARY = "pep493-rollout-1-canary"
BOOKWORM = "pep493-rollout-2-bookworm"
TRIXIE = "pep493-rollout-3-trixie"
HOSTS = [CANARY, BOOKWORM, TRIXIE]
CFG = "/etc/python/cert-verification.cfg"
RECORD = CFG + ".pep493-original"


def vendor_file():
    with open(os.path.join(REPO, "molecule", "shared", "rhel7-cert-verification.cfg"), "rb") as handle:
        return handle.read()


def seeded():
    """The cfg file each host arrives with (None: no file)."""
    vendor = vendor_file()
    return {CANARY: vendor.replace(b"verify=platform_default\n", b"verify=disable\n"), BOOKWORM: vendor, TRIXIE: None}


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def ephemeral(*parts):
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], *parts)


def kept_run(name):
    """{'rc', 'stdout'} of a playbook run kept by converge.yml (stage0, stage1, again, audit)."""
    with open(ephemeral("results", name + ".json")) as handle:
        return json.load(handle)


def printed_lines(stdout):
    """The strings of every list a debug task printed, in order."""
    found = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith('"') and not line.startswith('"msg"'):
            try:
                found.append(json.loads(line.rstrip(",")))
            except ValueError:
                continue
    return found


def batches(stdout):
    """The host lists of the per-batch summaries, in the order the batches ran."""
    return [line.split(": ", 1)[1].split(", ") for line in printed_lines(stdout) if line.startswith("batch of ")]


def summary(stdout):
    """{host: its summary line without the host name} (the last one printed for each host)."""
    found = {}
    for line in printed_lines(stdout):
        host, sep, rest = line.partition(": ")
        if sep and host in HOSTS:
            found[host] = rest
    return found


def playbook(name, *args):
    """Run ansible-playbook pep493.https.<name> against the scenario's inventory."""
    cmd = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", ephemeral("inventory"),
           "pep493.https." + name] + list(args)
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_DEPRECATION_WARNINGS="0")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def podman(host, *cmd):
    proc = subprocess.run(["podman", "exec", host] + list(cmd), capture_output=True, text=True, timeout=60,
                          check=False)
    return proc.returncode, proc.stdout


def sh(host, script):
    """Run a shell script in the instance; its stdout (fails the test when it fails)."""
    rc, out = podman(host, "sh", "-c", script)
    assert rc == 0, (script, rc, out)
    return out


def host_state(host):
    """What the policy may change on a host, in one command: the cfg file's checksum (or
    "missing"), the files in /etc/python and every drop-in of ours."""
    out = sh(host, "sha256sum %s 2>/dev/null | cut -d' ' -f1 || true; echo ---; ls -A /etc/python 2>/dev/null; "
                   "echo ---; find /etc/systemd/system -name zz-pep493-https.conf | sort" % CFG)
    cfg, files, dropins = out.split("---\n")
    return dict(cfg=cfg.strip() or "missing", files=files.split(), dropins=dropins.split())
