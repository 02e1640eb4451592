"""reach: the collection's playbooks from ansible-core 2.21 against a host whose only Python is
/usr/bin/python 2.7 (through the collection's runner) give what ansible-core 2.16 gives there
through its own payload: the same exit codes, recaps, batch lines, audit reports and forecasts,
and the same files on the host after every step; and what they do is right on its own (check mode
changes nothing, enforce puts the policy in place, a second enforce changes nothing, rollback puts
each host back)."""

import json
import os
import re

import pytest

CONTROLLERS = ("2.21", "2.16")
RUNS = ("forecast", "enforce-check", "enforce", "enforce-again", "audit-gate", "rollback-refused", "rollback")
SNAPSHOTS = ("initial", "enforce-check", "enforce", "rollback-refused", "rollback")
# the canary's file said verify=disable: putting that back needs the operator's acknowledgement
REFUSED = "rollback-refused"
ROOTS = {"reach-1-canary": "/", "reach-2-vendor-tree": "/srv/reach/2", "reach-3-no-file-tree": "/srv/reach/3"}
CFG = "etc/python/cert-verification.cfg"
DROPIN = "etc/systemd/system/pep493-agent.service.d/zz-pep493-https.conf"
RECAP = re.compile(r"^(reach-\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)\s+"
                   r"skipped=(\d+)\s+rescued=(\d+)\s+ignored=(\d+)", re.M)
# what differs between any two runs of a report: when it was made
VOLATILE = ("generated", "generated_at", "now", "date", "time", "audited", "forecasted")
# and of a backup's name: the pid and time of the run that made it
BACKUP = re.compile(r"\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d(?=[.~])")


def kept(controller, name):
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "reach", controller, name)


def exit_code(controller, run):
    with open(kept(controller, run + ".rc")) as handle:
        return int(handle.read())


def output(controller, run):
    with open(kept(controller, run + ".out")) as handle:
        return handle.read()


def recap(controller, run):
    return dict((found[0], tuple(int(n) for n in found[1:])) for found in RECAP.findall(output(controller, run)))


def batch_lines(controller, run):
    """The lines of each batch summary, in order (strings of the lists the debug tasks print)."""
    found = []
    for line in output(controller, run).splitlines():
        line = line.strip().rstrip(",")
        if line.startswith('"reach-'):
            found.append(BACKUP.sub(".BACKUP", json.loads(line)))
    return found


def files(controller, snapshot):
    with open(kept(controller, snapshot + ".files.json")) as handle:
        return json.load(handle)


def without_volatile(data):
    if isinstance(data, dict):
        return dict((key, without_volatile(value)) for key, value in data.items() if key not in VOLATILE)
    if isinstance(data, list):
        return [without_volatile(item) for item in data]
    return data


def report(controller, folder, name="report.json"):
    with open(os.path.join(kept(controller, folder), name)) as handle:
        return without_volatile(json.load(handle))


def test_the_host_has_no_python_but_2_7(host):
    assert host.run("command -v python3").rc != 0
    assert host.run("ls /usr/bin/python3*").rc != 0
    assert host.check_output("/usr/bin/python -c 'import sys; print(sys.version_info[:2])'") == "(2, 7)"


@pytest.mark.parametrize("controller,way,not_way", [
    ("2.21", "pep493_https_verification_info.py", "AnsiballZ_"),
    ("2.16", "AnsiballZ_verification_info.py", "pep493_https_verification_info.py"),
])
def test_each_controller_runs_the_modules_its_own_way(controller, way, not_way):
    # 2.21 as a user gets it: the collection's runner; 2.16, the reference: ansible-core's own payload
    ran = output(controller, "way")
    assert not os.path.exists(kept(controller, "way.rc")), ran[-3000:]
    assert way in ran and not_way not in ran


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_every_run_succeeds_from_each_controller(controller):
    failed = dict((run, output(controller, run)[-3000:]) for run in RUNS if run != REFUSED and exit_code(controller, run))
    assert not failed


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_an_unacknowledged_rollback_to_disable_stops_at_the_canary_and_changes_nothing(controller):
    assert exit_code(controller, REFUSED) == 2
    assert "pep493_https_allow_insecure_host_default" in output(controller, REFUSED)
    assert files(controller, REFUSED) == files(controller, "enforce")


@pytest.mark.parametrize("run", RUNS)
def test_each_run_has_the_same_recap_from_both_controllers(run):
    # a refused canary stops the run before the other hosts' batches
    assert sorted(recap("2.21", run)) == (["reach-1-canary"] if run == REFUSED else sorted(ROOTS))
    assert recap("2.21", run) == recap("2.16", run)


@pytest.mark.parametrize("run", ["enforce-check", "enforce", "enforce-again", "rollback-refused", "rollback"])
def test_the_batches_are_the_same_canary_first(run):
    lines = batch_lines("2.21", run)
    assert lines and lines[0].startswith("reach-1-canary")
    # the playbooks' own batches: the canary, 10 % (one host), the rest; a failed canary stops the run
    assert output("2.21", run).count("TASK [Summary of this batch]") == (1 if run == REFUSED else 3)
    assert lines == batch_lines("2.16", run)


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_the_files_are_the_same_from_both_controllers(snapshot):
    assert files("2.21", snapshot) == files("2.16", snapshot)


@pytest.mark.parametrize("folder,name", [("forecast", "forecast.json"), ("forecast", "report.json"),
                                         ("audit-gate", "report.json")])
def test_the_reports_are_the_same_from_both_controllers(folder, name):
    assert report("2.21", folder, name) == report("2.16", folder, name)


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_check_mode_changes_nothing(controller):
    assert files(controller, "enforce-check") == files(controller, "initial")


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_enforce_puts_the_policy_in_place_and_again_changes_nothing(controller):
    enforced = files(controller, "enforce")
    for root in ROOTS.values():
        assert "verify=enable" in enforced[root][CFG]["content"].splitlines()
        assert "PYTHONHTTPSVERIFY=0" in enforced[root][DROPIN]["content"]
    assert all(counts[1] == 0 for counts in recap(controller, "enforce-again").values())
    assert any(counts[1] for counts in recap(controller, "enforce").values())


@pytest.mark.parametrize("controller", CONTROLLERS)
def test_rollback_puts_each_host_back(controller):
    initial, rolled_back = files(controller, "initial"), files(controller, "rollback")
    for root in ROOTS.values():
        assert DROPIN not in rolled_back[root]
        assert (rolled_back[root].get(CFG) or {}).get("content") == (initial[root].get(CFG) or {}).get("content")
    assert "verify=disable" in initial["/"][CFG]["content"].splitlines()  # the canary's sed "fix" is back
    assert CFG not in rolled_back["/srv/reach/3"]
