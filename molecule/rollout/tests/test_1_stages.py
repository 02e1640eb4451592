"""rollout: a dry run says per host what would change and changes nothing; the real run goes
through every batch; the audit gate passes; a policy the module would refuse changes nothing."""

import json

import jsonschema
import testinfra

import pep493_testlib as lib
import rollout_lib as r

CANARY = testinfra.get_host("podman://" + r.CANARY)
SEEDED = r.seeded()
NO_READER = "no Python on this host reads the file"


# --- stage 0: the dry run says per host what would change, and whether it would comply ---------

def test_stage0_dry_run_says_per_host_what_would_change():
    run = r.kept_run("stage0")
    assert run["rc"] == 0, run["stdout"][-3000:]
    assert r.batches(run["stdout"]) == [[r.CANARY], [r.BOOKWORM], [r.TRIXIE]]
    lines = r.summary(run["stdout"])
    would = {r.CANARY: "would be compliant_with_exceptions; cfg would change disable -> enable (%s); "
                       "drop-ins that would be added: pep493-client-py2.service" % NO_READER,
             r.BOOKWORM: "would be compliant; cfg would change platform_default -> enable (%s); "
                         "drop-ins unchanged" % NO_READER,
             r.TRIXIE: "would be compliant; cfg would change missing -> enable (%s); drop-ins unchanged" % NO_READER}
    assert lines == would


def test_stage0_warns_per_host_that_no_python_would_read_the_file():
    stdout = r.kept_run("stage0")["stdout"]
    for host in r.HOSTS:
        assert "%s: %s would be changed, but no Python on this host reads it" % (host, r.CFG) in stdout


def test_stage0_left_every_host_untouched():
    # stage 1 is the first run that changed the hosts: its own results say what it found
    lines = r.summary(r.kept_run("stage1")["stdout"])
    assert "cfg disable -> enable" in lines[r.CANARY]
    assert "drop-ins added: pep493-client-py2.service" in lines[r.CANARY]
    assert "cfg platform_default -> enable" in lines[r.BOOKWORM]
    assert "cfg missing -> enable" in lines[r.TRIXIE]
    # the record of the file before its first change is the file the canary arrived with
    record = CANARY.file(r.RECORD).content
    assert record.startswith(b"# pep493.https.cert_verification: the file before its first change")
    assert record.endswith(b"present %d\n" % len(SEEDED[r.CANARY]) + SEEDED[r.CANARY])


# --- stage 1: the rollout goes through every batch --------------------------------------------

def test_stage1_enforce_passed_batch_by_batch():
    run = r.kept_run("stage1")
    assert run["rc"] == 0, run["stdout"][-3000:]
    # serial [1, "10%", "100%"] on three hosts: the canary, then one, then the rest
    assert r.batches(run["stdout"]) == [[r.CANARY], [r.BOOKWORM], [r.TRIXIE]]
    assert r.summary(run["stdout"]) == {
        r.CANARY: "compliant_with_exceptions; cfg disable -> enable (%s); drop-ins added: "
                  "pep493-client-py2.service" % NO_READER,
        r.BOOKWORM: "compliant; cfg platform_default -> enable (%s); drop-ins unchanged" % NO_READER,
        r.TRIXIE: "compliant; cfg missing -> enable (%s); drop-ins unchanged" % NO_READER,
    }


def test_stage1_warns_per_host_that_no_python_reads_the_file():
    stdout = r.kept_run("stage1")["stdout"]
    for host in r.HOSTS:
        assert "%s: %s written, but no Python on this host reads it" % (host, r.CFG) in stdout


def test_enforce_is_idempotent_and_quiet():
    run = r.kept_run("again")
    assert run["rc"] == 0, run["stdout"][-3000:]
    recap = run["stdout"].split("PLAY RECAP")[1].splitlines()
    lines = [x for x in recap if x.startswith("pep493-rollout-")]
    assert len(lines) == 3, recap
    assert all(" changed=0 " in x and " failed=0 " in x for x in lines), lines
    assert "no Python on this host reads it" not in run["stdout"]
    assert r.summary(run["stdout"])[r.TRIXIE] == "compliant; cfg enable (unchanged); drop-ins unchanged"


def test_cfg_enforced_everywhere(host):
    assert host.file(lib.CFG).mode == 0o644
    cmd = ("python3 -c \"import configparser as C; c = C.RawConfigParser(); c.read('%s'); "
           "print(c.get('https', 'verify'))\"")
    assert host.check_output(cmd, lib.CFG) == "enable"


def test_history_beside_the_cfg_file(host):
    name = lib.instance(host)
    state = r.host_state(name)
    record = host.file(r.RECORD)
    assert record.mode == 0o600
    backups = [f for f in state["files"] if f.endswith("~")]
    if SEEDED[name] is None:
        assert state["files"] == ["cert-verification.cfg", "cert-verification.cfg.pep493-original"]
        assert record.content.endswith(b"\nabsent\n")
    else:
        assert len(backups) == 1, state
        assert host.file("/etc/python/" + backups[0]).content == SEEDED[name]
        assert record.content.endswith(SEEDED[name])
        # the backup's line, with its UTC time, in the record of the backups the rollback orders them by
        recorded = host.file("/etc/python/cert-verification.cfg.pep493-backups")
        assert recorded.mode == 0o600
        assert recorded.content.splitlines()[-1].endswith(b" " + backups[0].encode())


def test_exception_only_where_the_policy_gives_one(host):
    dropins = r.host_state(lib.instance(host))["dropins"]
    if lib.instance(host) == r.CANARY:
        assert dropins == [lib.dropin_path("pep493-client-py2")]
        assert "PYTHONHTTPSVERIFY=0" in lib.unit_environment(host, "pep493-client-py2.service")
    else:
        assert dropins == []


def test_canary_python2_client_gets_through_with_its_exception():
    assert lib.start_client(CANARY, "pep493-client-py2.service")[1] == lib.CLIENT_OK


# --- the audit after the rollout ----------------------------------------------------------

def load_report(folder="report"):
    with open(r.ephemeral(folder, "report.json")) as handle:
        return json.load(handle)


def test_audit_gate_passed():
    run = r.kept_run("audit")
    assert run["rc"] == 0, run["stdout"][-3000:]
    assert "3 host(s): compliant 2, compliant_with_exceptions 1." in run["stdout"]


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


# --- a policy the module would refuse changes nothing ---------------------------------------

def test_a_policy_the_module_would_refuse_changes_nothing_and_stops_the_rollout():
    before = dict((host, r.host_state(host)) for host in r.HOSTS)
    policy = {"pep493_https_verify": "platform_default",
              "pep493_https_exceptions": [
                  {"name": "sshd.socket", "reason": "socket activation", "expires": "2099-01-01"},
                  {"name": "legacy-app", "reason": "ends in a backslash \\", "expires": "2099-01-01"}]}
    rc, out = r.playbook("enforce", "-e", json.dumps(policy))
    assert rc != 0
    # the canary's batch fails, and the rollout stops there
    assert r.batches(out) == [[r.CANARY]]
    recap = out.split("PLAY RECAP")[1]
    assert r.BOOKWORM not in recap and r.TRIXIE not in recap
    line = r.summary(out)[r.CANARY]
    assert line.startswith("FAILED - Refuse a policy that is not safe or not complete: Policy refused, nothing was "
                           "changed: pep493_https_exceptions[0]: unit name 'sshd.socket' is a .socket unit"), line
    assert "pep493_https_exceptions[1] (legacy-app.service): reason " in line and "ends with a backslash" in line
    # the refusal appears where it happened (Ansible's error line and result) and once in the
    # summary; the task that stops the rollout points to the summary instead of repeating it
    assert out.count("is a .socket unit") <= 3, out[-4000:]
    assert "The policy failed on this host (the reason is in the summary above)" in out
    assert dict((host, r.host_state(host)) for host in r.HOSTS) == before
