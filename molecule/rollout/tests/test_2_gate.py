"""rollout: the audit gate fails for the hosts of a --limit run; a repair brings the host back."""

import json

import pytest

import rollout_lib as r

BROKEN_LINE = "verify=disable  # pasted above the section header by hand"


@pytest.fixture(scope="module")
def runs():
    """A hand edit breaks bookworm's file; the limited gate catches it; enforce repairs it."""
    r.sh(r.BOOKWORM, "sed -i '1i %s' %s" % (BROKEN_LINE, r.CFG))
    report_dir = r.ephemeral("report-gate")
    gate = r.playbook("audit", "--limit", r.BOOKWORM, "-e", "pep493_https_audit_fail=true",
                      "-e", "pep493_https_report_dir=" + report_dir)
    with open(report_dir + "/report.json") as handle:
        report = json.load(handle)
    repair = r.playbook("enforce", "--limit", r.BOOKWORM, "-e", "pep493_https_cfg_repair=true")
    return gate, report, repair


def test_limited_audit_gate_fails_and_says_why(runs):
    (rc, out), dummy, dummy = runs
    assert rc != 0, out[-3000:]
    assert "Not compliant: %s" % r.BOOKWORM in out
    reason = "%s: non_compliant: %s is malformed" % (r.BOOKWORM, r.CFG)
    assert [line for line in r.printed_lines(out) if line.startswith(reason)], out[-3000:]


def test_limited_audit_reports_the_hosts_of_the_run(runs):
    dummy, report, dummy = runs
    assert [h["host"] for h in report["hosts"]] == [r.BOOKWORM]
    assert report["hosts"][0]["state"] == "non_compliant"
    assert report["totals"]["non_compliant"] == 1


def test_repair_brings_the_host_back_and_keeps_the_broken_file(runs):
    dummy, dummy, (rc, out) = runs
    assert rc == 0, out[-3000:]
    assert r.summary(out)[r.BOOKWORM].startswith("compliant; cfg malformed -> enable")
    backups = [f for f in r.host_state(r.BOOKWORM)["files"] if f.endswith("~")]
    assert len(backups) == 2, backups
    assert r.sh(r.BOOKWORM, "grep -c '^#%s$' %s" % (BROKEN_LINE, r.CFG)).strip() == "1"
