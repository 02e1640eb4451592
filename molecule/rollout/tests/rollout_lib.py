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


def ephemeral(*parts):
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], *parts)


def kept_run(name):
    """{'rc', 'stdout'} of a playbook run kept by converge.yml (stage1, stage2, audit)."""
    with open(ephemeral("results", name + ".json")) as handle:
        return json.load(handle)


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def batches(stdout):
    """The host lists of the per-batch summaries, in the order the batches ran."""
    found = []
    for line in stdout.splitlines():
        line = line.strip().strip('",')
        if line.startswith("batch of "):
            found.append(line.split(": ", 1)[1].split(", "))
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
