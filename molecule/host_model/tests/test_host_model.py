"""host_model: the audit's value, effective and pending_restart of every unit, against what
systemd and the services' own processes say; the planned report against the applied one."""

import json

import pytest

import pep493_testlib as lib

COMPARED = ("config", "services", "global", "summary", "scan_errors", "interpreters", "systemd_running", "probed",
            "root")


@pytest.fixture(scope="module")
def truth(host):
    """ground_truth.py's answer: systemd's view, the running processes, then each unit restarted."""
    return json.loads(host.check_output("/usr/bin/python3 /usr/local/libexec/pep493-hm/ground_truth.py"))


def audited(host):
    return dict((s["unit"], s) for s in lib.results(host)["applied"]["services"])


def expected_effective(unit, fact):
    """Whether PYTHONHTTPSVERIFY reached Python 2 code in the unit's processes: from what each
    process recorded about itself, and, where the value is "0", from its own HTTPS request."""
    reached = []
    for role, record in sorted(fact["records"].items()):
        got = record["major"] == 2 and not record["ignore_environment"] and (
            fact["value"] is None or record["value"] == fact["value"])
        if fact["value"] == "0":
            # the proof: a Python 2 that got "0" skips verification and reaches the self-signed server
            assert (record["tls"] == "ok") is got, (unit, role, record)
        reached.append(got)
    return any(reached)


def expected_pending(fact):
    running = fact["before"].get("ActiveState") == "active" and fact["before"].get("MainPID", "0") != "0"
    if not running or fact["catalogue"]["start"] == "oneshot":
        return False
    return fact["running"]["value"] != fact["restarted"]["value"]


def test_the_modules_ran_under_the_scenarios_python(host):
    python = lib.results(host)["python"]
    expected = 2 if python["executable"] == "/usr/bin/python2.7" else 3
    assert python["version"]["major"] == expected


def test_there_are_enough_units_and_they_ran_as_designed(truth):
    assert len(truth) >= 40
    for unit, fact in truth.items():
        start = fact["catalogue"]["start"]
        if start in ("daemon", "oneshot", "transient"):
            assert fact["records"] and fact["value_recorded"], (unit, fact)
        if start == "no":
            assert fact["before"]["LoadState"] == "masked", (unit, fact)
        if start == "fails":
            assert fact["after"]["ActiveState"] == "failed", (unit, fact)


def test_every_unit_is_reported_and_agrees_with_systemd_and_its_processes(host, truth):
    services = audited(host)
    disagreements = []
    for unit, fact in sorted(truth.items()):
        record = services.get(unit)
        if record is None:
            disagreements.append("%s: not reported" % unit)
            continue
        before = fact["before"]
        checks = [
            ("value", record["value"], fact["value"]),
            ("value_known", record["value_known"], True),
            ("pending_restart", record["pending_restart"], expected_pending(fact)),
            ("load_state", record["load_state"], before["LoadState"]),
            ("main_pid", record["main_pid"], int(before["MainPID"]) or None),
        ]
        if record["needs_daemon_reload"] is not None:
            # systemd answers for a unit it has loaded; asking it about another one loads it
            checks.append(("needs_daemon_reload", record["needs_daemon_reload"], before["NeedDaemonReload"] == "yes"))
        if fact["catalogue"]["cannot_tell"]:
            checks.append(("effective (cannot tell)", record["effective"], None))
        else:
            checks.append(("effective", record["effective"], expected_effective(unit, fact)))
        for name, got, want in checks:
            if got != want:
                disagreements.append("%s: %s is %r, the host says %r" % (unit, name, got, want))
    assert disagreements == [], "\n".join(disagreements)


def test_the_audit_names_no_unit_twice_and_no_missing_one(host):
    units = [s["unit"] for s in lib.results(host)["applied"]["services"]]
    assert len(units) == len(set(units))
    assert "hm-alias-nick.service" not in units
    assert not [s for s in lib.results(host)["applied"]["services"] if s["load_state"] == "not-found"]


def test_the_planned_report_is_the_report_after_applying_it(host):
    kept = lib.results(host)
    planned, applied = kept["planned"], kept["applied"]
    assert planned["planned"] is True and applied["planned"] is False
    assert sorted((c["path"], c["action"]) for c in planned["planned_changes"]) == [
        ("/etc/python/cert-verification.cfg", "created"),
        ("/etc/systemd/system/hm-fx-py3.service.d/zz-pep493-https.conf", "created"),
        ("/etc/systemd/system/hm-masked.service.d/zz-pep493-https.conf", "updated"),
        ("/etc/systemd/system/hm-pend-added.service.d/zz-pep493-https.conf", "created"),
        ("/etc/systemd/system/hm-pend-changed.service.d/zz-pep493-https.conf", "updated"),
        ("/etc/systemd/system/hm-pend-removed.service.d/zz-pep493-https.conf", "removed"),
    ]
    for key in COMPARED:
        assert planned[key] == applied[key], key
    pending = sorted(s["unit"] for s in applied["services"] if s["pending_restart"] and s["unit"].startswith("hm-"))
    assert pending == ["hm-pend-added.service", "hm-pend-changed.service", "hm-pend-removed.service"]
    # the services started before DefaultEnvironment= gave every service "1" are pending too
    others = [s for s in applied["services"] if s["pending_restart"] and not s["unit"].startswith("hm-")]
    assert others and all((s["value"], s["source_kind"], s["running_value"]) == ("1", "manager", None) for s in others)
