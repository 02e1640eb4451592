"""rollout: the audit playbook as a CI gate fails when one host stops complying."""

import json

import rollout_lib as r


def test_audit_gate_fails_on_a_downgraded_host():
    rc, dummy = r.podman(r.BOOKWORM, "sed", "-i", "s/^verify=enable$/verify=disable/", "/etc/python/cert-verification.cfg")
    assert rc == 0
    try:
        report_dir = r.ephemeral("report-gate")
        rc, out = r.playbook("audit", "-e", "pep493_https_audit_fail=true", "-e", "pep493_https_report_dir=" + report_dir)
        assert rc != 0, out[-3000:]
        assert "Not compliant: %s" % r.BOOKWORM in out
        with open(report_dir + "/report.json") as handle:
            report = json.load(handle)
        bookworm = [h for h in report["hosts"] if h["host"] == r.BOOKWORM][0]
        assert bookworm["state"] == "non_compliant"
        assert any("verify=disable" in reason for reason in bookworm["reasons"])
        assert report["totals"]["non_compliant"] == 1
    finally:
        r.podman(r.BOOKWORM, "sed", "-i", "s/^verify=disable$/verify=enable/", "/etc/python/cert-verification.cfg")
