"""The audit as AWX / Automation Platform runs it, without AWX: jobs run by ansible-runner (the
engine AWX runs jobs with), the audit sliced into three jobs over a local fleet (each host a
throw-away root of its own, reached with the local connection), each job with its own fact cache
in its artifacts folder - filled from a fact store before the job and saved back after it, as AWX
does with fact storage on - then the report job on the whole inventory without report files. Its
report must be the one a single audit of the whole fleet gives: the same hosts, states, reasons and
risk, in the same order; and each slice publishes its hosts' results under keys of their own.

Needs ansible-runner (tests/awx/run puts the tools venv on PATH) and the collection on the path
Ansible looks in (tools/env)."""

import datetime
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import yaml

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report

SLICES = 3
CFG = "etc/python/cert-verification.cfg"
UNIT_DIR = "usr/lib/systemd/system"
DROPIN_DIR = "etc/systemd/system"
PYTHON2_UNIT = "[Unit]\nDescription=%s\n[Service]\nExecStart=/usr/bin/python2.7 /srv/%s/agent.py\n"


def in_days(days):
    return (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=days)).isoformat()


def exception(name, days):
    return dict(name=name, verify=False, reason="vendor agent pins a private CA (CHG-%d)" % days, expires=in_days(days))


# host -> (cfg file or None, {unit: (its drop-in: None, "ours" or "override")}, exceptions of its policy)
FLEET = {
    "web-1": ("[https]\nverify=enable\n", {}, []),
    "web-2": ("[https]\nverify=disable\n", {}, []),
    "web-3": (None, {}, []),
    "app-1": ("[https]\nverify=enable\n", {"legacy": "ours"}, [exception("legacy", 400)]),
    "app-2": ("[https]\nverify=enable\n", {"legacy": "ours"}, [exception("legacy", 10)]),
    "db-1": ("[https]\nverify=enable\n", {"rogue": "override"}, []),
    "db-2": ("[https]\nverify=platform_default\n", {}, []),
}


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(text if isinstance(text, bytes) else text.encode())


def make_root(root, cfg, units, exceptions):
    os.makedirs(os.path.join(root, "etc", "python"))
    if cfg is not None:
        write(root, CFG, cfg)
    allowed = dict((item["name"], item) for item in exceptions)
    for unit, kind in units.items():
        write(root, "%s/%s.service" % (UNIT_DIR, unit), PYTHON2_UNIT % (unit, unit))
        if kind == "ours":
            write(root, "%s/%s.service.d/zz-pep493-https.conf" % (DROPIN_DIR, unit),
                  dropin.render_dropin(False, allowed[unit]["reason"], allowed[unit]["expires"]))
        elif kind == "override":
            write(root, "%s/%s.service.d/override.conf" % (DROPIN_DIR, unit),
                  "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n")


class Fleet(object):
    """The inventory of the local fleet, and the jobs run on it."""

    def __init__(self, base):
        self.base = base
        self.hosts = {}
        for host, (cfg, units, exceptions) in sorted(FLEET.items()):
            root = os.path.join(base, "roots", host)
            make_root(root, cfg, units, exceptions)
            self.hosts[host] = dict(ansible_connection="local", ansible_python_interpreter=sys.executable,
                                    pep493_https_root=root, pep493_https_exceptions=exceptions)

    def inventory(self, hosts):
        # the local connection keeps its temp files in ~/.ansible/tmp unless told: keep them here
        return {"all": {"hosts": dict((host, self.hosts[host]) for host in hosts),
                        "vars": {"ansible_remote_tmp": os.path.join(self.base, "remote-tmp")}}}

    def job(self, ident, playbook, hosts, store, **extravars):
        """Run ``playbook`` on ``hosts`` as a job of its own (ansible-runner, private data dir
        jobs/IDENT), with the facts of ``store`` in its fact cache before, and those the job
        changed saved back to ``store`` after; returns the job's artifacts folder."""
        folder = os.path.join(self.base, "jobs", ident)
        for part in ("inventory", "env", "project"):
            os.makedirs(os.path.join(folder, part))
        with open(os.path.join(folder, "inventory", "hosts.yml"), "w") as handle:
            yaml.safe_dump(self.inventory(hosts), handle)
        with open(os.path.join(folder, "env", "extravars"), "w") as handle:
            yaml.safe_dump(extravars, handle)
        with open(os.path.join(folder, "env", "envvars"), "w") as handle:
            yaml.safe_dump(dict(ANSIBLE_COLLECTIONS_PATH=os.environ["ANSIBLE_COLLECTIONS_PATH"],
                                ANSIBLE_HOME=os.path.join(self.base, "ansible-home"), ANSIBLE_NOCOLOR="1",
                                ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_DEPRECATION_WARNINGS="0"), handle)
        artifacts = os.path.join(folder, "artifacts", ident)
        shutil.copytree(store, os.path.join(artifacts, "fact_cache"))
        began = time.time()
        done = subprocess.run(["ansible-runner", "run", folder, "-p", playbook, "--ident", ident],
                              capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, "job %s failed:\n%s\n%s" % (ident, done.stdout[-6000:], done.stderr[-2000:])
        for path in glob.glob(os.path.join(artifacts, "fact_cache", "*")):
            if os.path.getmtime(path) >= began:
                shutil.copy(path, store)
        return artifacts


def artifact_data(artifacts):
    """What the job published with set_stats: the playbook_on_stats event's artifact_data."""
    for path in glob.glob(os.path.join(artifacts, "job_events", "*.json")):
        with open(path) as handle:
            event = json.load(handle)
        if event.get("event") == "playbook_on_stats":
            return event["event_data"]["artifact_data"]
    raise AssertionError("no playbook_on_stats event in %s" % artifacts)


def load(path):
    with open(path) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    base = str(tmp_path_factory.mktemp("awx"))
    fleet = Fleet(base)
    names = sorted(fleet.hosts)
    sliced_store, whole_store = os.path.join(base, "facts-sliced"), os.path.join(base, "facts-whole")
    os.makedirs(sliced_store)
    os.makedirs(whole_store)
    slices = []
    for number in range(SLICES):
        hosts = names[number::SLICES]   # AWX gives slice N of M the hosts N, N+M, N+2M, ...
        artifacts = fleet.job("audit-slice%d" % number, "pep493.https.audit", hosts, sliced_store,
                              pep493_https_report_dir=os.path.join(base, "slice%d" % number))
        slices.append((hosts, artifacts, load(os.path.join(base, "slice%d" % number, "report.json"))))
    fleet.job("report", "pep493.https.report", names, sliced_store, pep493_https_report_dir=os.path.join(base, "fleet"))
    fleet.job("audit-whole", "pep493.https.audit", names, whole_store,
              pep493_https_report_dir=os.path.join(base, "whole"))
    return dict(hosts=names, slices=slices, report=load(os.path.join(base, "fleet", "report.json")),
                whole=load(os.path.join(base, "whole", "report.json")))


def summary(report):
    return [(h["host"], h["state"], h["reasons"], h["risk"]) for h in report["hosts"]]


def test_each_slice_audited_its_own_hosts(jobs):
    assert sorted(sum((hosts for hosts, dummy, dummy in jobs["slices"]), [])) == jobs["hosts"]
    for hosts, dummy, report in jobs["slices"]:
        assert sorted(h["host"] for h in report["hosts"]) == hosts


def test_the_report_from_the_fact_cache_is_the_one_of_an_audit_of_the_whole_fleet(jobs):
    assert summary(jobs["report"]) == summary(jobs["whole"])
    assert jobs["report"]["totals"] == jobs["whole"]["totals"]
    # the fleet gives every kind of result, so the comparison means something
    states = set(h["state"] for h in jobs["whole"]["hosts"])
    assert states == {"compliant", "compliant_with_exceptions", "non_compliant"}, states
    assert {h["risk"]["rank"] for h in jobs["whole"]["hosts"]} == {3, 4}
    audited = dict((h["host"], h["audited"]) for hosts, dummy, report in jobs["slices"] for h in report["hosts"])
    assert dict((h["host"], h["audited"]) for h in jobs["report"]["hosts"]) == audited


def test_no_slice_overwrites_another_slices_artifacts(jobs):
    published = {}
    for hosts, artifacts, report in jobs["slices"]:
        data = artifact_data(artifacts)
        assert sorted(data) == sorted(fleet_report.artifact_key("pep493_https_audit_", host) for host in hosts)
        assert not set(data) & set(published), "two slices published the same key"
        published.update(data)
    states = dict((h["host"], h["state"]) for h in jobs["whole"]["hosts"])
    assert dict((item["host"], item["state"]) for item in published.values()) == states
