"""rollout: rollback puts each host back to its own previous state - the valid file before a
repair, no file where the policy created it, a disable only with its acknowledgement - says
"would" in check mode, and changes nothing on a host it refuses."""

import json

import pytest
import testinfra

import pep493_testlib as lib
import rollout_lib as r

ONE_BATCH = json.dumps({"pep493_https_serial": ["100%"]})


@pytest.fixture(scope="module")
def runs():
    before = dict((host, r.host_state(host)) for host in r.HOSTS)
    check = r.playbook("rollback", "--check", "-e", ONE_BATCH)
    after_check = dict((host, r.host_state(host)) for host in r.HOSTS)
    refused = r.playbook("rollback", "-e", ONE_BATCH)
    after_refused = dict((host, r.host_state(host)) for host in r.HOSTS)
    acknowledged = r.playbook("rollback", "--limit", r.CANARY, "-e", "pep493_https_allow_insecure_host_default=true")
    return dict(before=before, check=check, after_check=after_check, refused=refused, after_refused=after_refused,
                acknowledged=acknowledged)


def restored_backup(line):
    return line.split("restored from ", 1)[1].split(" ", 1)[0]


def test_check_mode_says_what_would_be_restored_and_changes_nothing(runs):
    rc, out = runs["check"]
    assert rc != 0  # the canary's restore is refused, in check mode too
    lines = r.summary(out)
    assert lines[r.BOOKWORM].startswith("cfg would be restored from %s." % r.CFG)
    assert "(enable -> platform_default); malformed backups skipped: %s." % r.CFG in lines[r.BOOKWORM]
    assert lines[r.TRIXIE] == ("cfg would be removed: there was no file before its first change (%s); "
                               "drop-ins unchanged" % r.RECORD)
    assert "would be removed: pep493-client-py2.service" not in lines[r.CANARY]
    assert runs["after_check"] == runs["before"]


def test_a_disable_is_not_restored_without_its_acknowledgement(runs):
    rc, out = runs["refused"]
    assert rc != 0
    line = r.summary(out)[r.CANARY]
    assert line.startswith("FAILED - Put the cfg file back as it was before the last change: ")
    assert "says verify=disable" in line and "pep493_https_allow_insecure_host_default: true" in line
    assert runs["after_refused"][r.CANARY] == runs["before"][r.CANARY]


def test_after_a_repair_the_valid_file_comes_back(runs):
    rc, out = runs["refused"]
    line = r.summary(out)[r.BOOKWORM]
    assert "malformed backups skipped: " in line
    state = runs["after_refused"][r.BOOKWORM]
    assert state["cfg"] == r.sha256(r.vendor_file())
    assert r.sh(r.BOOKWORM, "cat %s" % restored_backup(line)).encode() == r.vendor_file()
    assert [f for f in state["files"] if f.endswith(".before-restore~")], state


def test_a_created_file_goes_back_to_no_file(runs):
    state = runs["after_refused"][r.TRIXIE]
    assert state["cfg"] == "missing" and state["dropins"] == []
    assert "cert-verification.cfg.pep493-original" in state["files"]


def test_with_the_acknowledgement_the_canary_gets_its_own_file_back(runs):
    rc, out = runs["acknowledged"]
    assert rc == 0, out[-3000:]
    assert r.summary(out)[r.CANARY].endswith("(enable -> disable); drop-ins removed: pep493-client-py2.service")
    state = r.host_state(r.CANARY)
    assert state["cfg"] == r.sha256(r.seeded()[r.CANARY]) and state["dropins"] == []
    env = lib.unit_environment(testinfra.get_host("podman://" + r.CANARY), "pep493-client-py2.service")
    assert not any(x.startswith("PYTHONHTTPSVERIFY=") for x in env)
