"""rollout: a failing canary stops the rollout; once it is fixed every batch goes through."""

import json

import jsonschema
import testinfra

import pep493_testlib as lib
import rollout_lib as r

CANARY = testinfra.get_host("podman://" + r.CANARY)

SEEDED = {
    r.CANARY: r.sha256_of(r.SCENARIO + "/files/malformed.cfg"),
    r.BOOKWORM: r.sha256_of(r.REPO + "/molecule/shared/rhel7-cert-verification.cfg"),
    r.TRIXIE: None,
}


# --- stage 1: the canary fails, nothing else is touched -------------------------------------

def test_stage1_enforce_failed():
    assert r.kept_run("stage1")["rc"] != 0


def test_stage1_stopped_after_the_canary_batch():
    stdout = r.kept_run("stage1")["stdout"]
    assert r.batches(stdout) == [[r.CANARY]]
    assert "%s: FAILED - " % r.CANARY in stdout
    assert "is malformed" in stdout
    assert r.BOOKWORM + " " not in stdout.split("PLAY RECAP")[1] and r.TRIXIE not in stdout


def test_stage1_left_every_host_as_it_was(host):
    kept = lib.results(host, tag="stage1")
    name = lib.instance(host)
    if SEEDED[name] is None:
        assert kept["cfg"]["exists"] is False
    else:
        assert kept["cfg"]["checksum"] == SEEDED[name]
    assert kept["dropins"] == []


# --- stage 2: the canary repaired, the rollout goes through every batch ---------------------

def test_stage2_enforce_passed_batch_by_batch():
    run = r.kept_run("stage2")
    assert run["rc"] == 0, run["stdout"][-3000:]
    # serial [1, "10%", "100%"] on three hosts: the canary, then one, then the rest
    assert r.batches(run["stdout"]) == [[r.CANARY], [r.BOOKWORM], [r.TRIXIE]]
    assert "FAILED" not in run["stdout"]


def test_enforce_is_idempotent():
    run = r.kept_run("again")
    assert run["rc"] == 0, run["stdout"][-3000:]
    recap = run["stdout"].split("PLAY RECAP")[1].splitlines()
    lines = [x for x in recap if x.startswith("pep493-rollout-")]
    assert len(lines) == 3, recap
    assert all(" changed=0 " in x and " failed=0 " in x for x in lines), lines


def test_cfg_enforced_everywhere(host):
    assert host.file(lib.CFG).mode == 0o644
    cmd = ("python3 -c \"import configparser as C; c = C.RawConfigParser(); c.read('%s'); "
           "print(c.get('https', 'verify'))\"")
    assert host.check_output(cmd, lib.CFG) == "enable"


def test_canary_repaired_with_a_backup_of_the_broken_file():
    files = CANARY.check_output("ls /etc/python").split()
    assert len(files) == 2, files
    backup = [f for f in files if f != "cert-verification.cfg"][0]
    assert CANARY.check_output("sha256sum /etc/python/%s", backup).split()[0] == SEEDED[r.CANARY]
    lines = CANARY.file(lib.CFG).content_string.splitlines()
    # the line that broke "import ssl" is kept, commented out
    assert "verify=disable" not in lines
    assert any(x.startswith("#") and "verify=disable" in x for x in lines)


def test_exception_only_where_the_policy_gives_one(host):
    dropins = host.run("find %s -name %s", lib.UNIT_DIR, lib.DROPIN_NAME).stdout.split()
    if lib.instance(host) == r.CANARY:
        assert dropins == [lib.dropin_path("pep493-client-py2")]
        assert "PYTHONHTTPSVERIFY=0" in lib.unit_environment(host, "pep493-client-py2.service")
    else:
        assert dropins == []


def test_canary_python2_client_gets_through_with_its_exception():
    assert lib.start_client(CANARY, "pep493-client-py2.service")[1] == lib.CLIENT_OK


# --- the audit after the rollout ----------------------------------------------------------

def load_report():
    with open(r.ephemeral("report", "report.json")) as handle:
        return json.load(handle)


def test_audit_gate_passed():
    run = r.kept_run("audit")
    assert run["rc"] == 0, run["stdout"][-3000:]


def test_audit_report_matches_the_schema():
    with open(r.SCHEMA) as handle:
        schema = json.load(handle)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(load_report()))
    assert not errors, [e.message for e in errors[:5]]


def test_audit_report_agrees_with_the_hosts():
    report = load_report()
    states = dict((h["host"], h["state"]) for h in report["hosts"])
    assert states == {r.CANARY: "compliant_with_exceptions", r.BOOKWORM: "compliant", r.TRIXIE: "compliant"}
    canary = [h for h in report["hosts"] if h["host"] == r.CANARY][0]
    assert [e["unit"] for e in canary["exceptions"]] == ["pep493-client-py2.service"]
    assert canary["host_default"] is True
    assert all(h["verify"] == "enable" for h in report["hosts"])
