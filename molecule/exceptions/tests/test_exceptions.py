"""exceptions: add, change, expire, remove; exclusive; try-restart; the host-wide file; real TLS.

Runs on el7-standin, a stand-in for RHEL/CentOS 7's system python (Debian's python2.7 made to
read /etc/python/cert-verification.cfg as RHEL 7's does; not RHEL), so that the file's effect
is seen as well as the variable's. The verifier runs four times (see molecule.yml); each test
asserts what holds in the current phase:
  before            after prepare: an earlier policy (worker@a verify=true, worker@old exempted),
                    a new exception for the running worker@d written without a restart, and the
                    host-wide file broken by a junk line ("verify disable")
  exception         after converge (the policy role, repair: true) + idempotence: the policy in
                    converge.yml, the file repaired to verify=enable
  disabled          after side_effect: the Python 2 client's exception removed, worker@d
                    restarted, verify=disable in the file, PYTHONHTTPSVERIFY=1 for the agent
  platform_default  after side_effect_platform_default: verify=platform_default (only the file
                    changed: the drop-in, restart and per-service audit checks are skipped)
"""

import pytest

import pep493_testlib as lib

W = "pep493-worker-py2@"
AGENT = "pep493-agent"           # ExecStart=/usr/bin/python ... (the stand-in's RHEL 7 name)
CLIENT_CRASHED = 1               # the client died at "import urllib2" (a traceback, exit 1)
STANDIN_PYTHON = "/usr/bin/python2.7"
SHIPPED = open(lib.__file__.replace("pep493_testlib.py", "rhel7-cert-verification.cfg"), "rb").read()
MALFORMED = SHIPPED.replace(b"verify=platform_default", b"verify disable")


def phase(host):
    if lib.has_results(host, "platform_default"):
        return "platform_default"
    if lib.has_results(host, "side_effect"):
        return "disabled"
    if lib.has_results(host, "converge"):
        return "exception"
    return "before"


def services_unchanged_since_last_phase(host):
    """platform_default changes only the file: the drop-in and restart checks of the last phase stand."""
    if phase(host) == "platform_default":
        pytest.skip("only the host-wide file changed since the disabled phase, where this ran")


def by_name(units):
    return {u["name"]: u for u in units}


_INFO = {}


def info(host):
    key = (lib.instance(host), phase(host))
    if key not in _INFO:
        _INFO[key] = lib.run_module(host, "pep493.https.verification_info")
        assert _INFO[key]["_status"] == "SUCCESS", _INFO[key]
    return _INFO[key]


def info_service(host, unit):
    found = [s for s in info(host)["services"] if s["unit"] == lib.unit_name(unit)]
    assert len(found) == 1, [s["unit"] for s in info(host)["services"]]
    return found[0]


def realpath(host, path):
    return host.check_output("readlink -f %s", path)


# --- real TLS through systemd --------------------------------------------------------------

def test_standin_python2_client(host):
    """No exception after converge: the file decides (malformed, enable, disable, platform_default)."""
    expected = {
        "before": CLIENT_CRASHED,               # "import ssl" raises on the malformed file
        "exception": lib.CLIENT_OK,             # PYTHONHTTPSVERIFY=0 wins over verify=enable
        "disabled": lib.CLIENT_OK,              # no variable, verify=disable
        "platform_default": lib.CLIENT_CERT_REJECTED,  # no variable, platform_default = verify
    }[phase(host)]
    rc, status = lib.start_client(host, "pep493-client-py2")
    assert status == expected, "phase %s" % phase(host)
    assert (rc == 0) is (expected == lib.CLIENT_OK)


def test_standin_agent(host):
    """The agent never gets through: broken, then verify=enable, then PYTHONHTTPSVERIFY=1 over disable."""
    expected = CLIENT_CRASHED if phase(host) == "before" else lib.CLIENT_CERT_REJECTED
    rc, status = lib.start_client(host, AGENT)
    assert rc != 0 and status == expected, "phase %s" % phase(host)
    if phase(host) == "before":
        log = host.check_output("journalctl -q -o cat -u %s.service", AGENT)
        assert "ParsingError" in log and lib.CFG in log


def test_python3_client_always_rejected(host):
    rc, status = lib.start_client(host, "pep493-client-py3")
    assert rc != 0 and status == lib.CLIENT_CERT_REJECTED


# --- the host-wide file and what Python 2 makes of it ---------------------------------------

def test_standin_import_ssl(host):
    """A malformed file breaks ssl, urllib2 and httplib for every Python 2 program; repair brings them back."""
    for module in ("ssl", "urllib2", "httplib"):
        out = host.run("env -i /usr/bin/python -c 'import %s'" % module)
        if phase(host) == "before":
            assert out.rc == 1, module
            assert "ParsingError: File contains parsing errors: %s" % lib.CFG in out.stderr, out.stderr
        else:
            assert out.rc == 0, out.stderr


def test_cfg_file_on_disk(host):
    data = host.file(lib.CFG).content
    p = phase(host)
    if p == "before":
        assert data == MALFORMED
        return
    value = {"exception": "enable", "disabled": "disable", "platform_default": "platform_default"}[p]
    # the junk line is kept, commented out; every other line of the vendor file too
    assert b"\n#verify disable\n" in data
    assert [x for x in data.splitlines() if x.startswith(b"verify")] == [b"verify=" + value.encode()]
    assert lib.stat(host, lib.CFG)[lib.CFG] == {"type": "regular file", "mode": 0o644, "user": "root",
                                                "group": "root"}
    cmd = ("python2.7 -c \"import ConfigParser as C; c = C.RawConfigParser(); c.read('%s'); "
           "print(c.get('https', 'verify'))\"")
    assert host.check_output(cmd, lib.CFG) == value


def test_repair_result(host):
    """The role repaired the file, kept the malformed one as a backup, and found its reader."""
    if phase(host) == "before":
        assert not lib.has_results(host, "converge")
        return
    cert = lib.results(host)["cert"]
    assert cert["previous"] == "malformed" and cert["verify"] == "enable"
    assert cert["repaired_lines"] == [MALFORMED.splitlines().index(b"verify disable") + 1]
    assert host.file(cert["backup_file"]).content == MALFORMED
    assert [realpath(host, c["path"]) for c in cert["consumers"]] == [STANDIN_PYTHON]
    assert [c["verifies_by_default"] for c in cert["consumers"]] == [True]
    assert not any("no Python on this host reads it" in w for w in cert.get("warnings", []))
    again = lib.results(host, which="last")["cert"]
    assert again["changed"] is False and again["previous"] == "enable"


def test_repair_check_run_finds_the_reader(host):
    """In check mode over the malformed file, the interpreter that breaks on it is its reader."""
    check = lib.results(host, tag="prepare")["repair_check"]
    assert check["changed"] is True and check["previous"] == "malformed"
    assert [realpath(host, c["path"]) for c in check["consumers"]] == [STANDIN_PYTHON]
    assert check["consumers"][0]["verifies_by_default"] is None   # it cannot even import ssl
    assert not any("no Python on this host reads it" in w for w in check.get("warnings", []))


def test_file_knob_results(host):
    if phase(host) in ("before", "exception"):
        return
    disabled = lib.results(host, tag="side_effect")["disabled"]
    assert disabled["changed"] is True and disabled["previous"] == "enable"
    assert [realpath(host, c["path"]) for c in disabled["consumers"]] == [STANDIN_PYTHON]
    assert [c["verifies_by_default"] for c in disabled["consumers"]] == [False]
    assert any("verify=disable turns HTTPS certificate verification off" in w for w in disabled["warnings"])
    if phase(host) == "platform_default":
        default = lib.results(host, tag="platform_default")["platform_default"]
        assert default["changed"] is True and default["previous"] == "disable"
        assert [c["verifies_by_default"] for c in default["consumers"]] == [True]


# --- drop-ins on disk and in systemd -------------------------------------------------------

def test_dropins(host):
    services_unchanged_since_last_phase(host)
    p = phase(host)
    if p == "before":
        lib.assert_dropin(host, W + "a", "1", reason="earlier policy")
        lib.assert_dropin(host, W + "old", "0", reason="no longer needed", expires="2099-01-01")
        lib.assert_dropin(host, W + "d", "0", expires="2099-12-31")
        for unit in ("pep493-client-py2", "pep493-client-py3", W + "c", AGENT):
            lib.assert_no_dropin(host, unit)
        return
    lib.assert_no_dropin(host, W + "old")  # exclusive removed it, and its empty folder
    lib.assert_no_dropin(host, W + "b")    # never part of the policy
    lib.assert_dropin(host, W + "a", "0", reason="changed from verify=true", expires="2099-12-31")
    lib.assert_dropin(host, W + "c", "0", expires="2020-01-31")
    lib.assert_dropin(host, W + "d", "0", expires="2099-12-31")
    lib.assert_dropin(host, "pep493-client-py3", "0")
    if p == "exception":
        lib.assert_dropin(host, "pep493-client-py2", "0", reason="talks to the fixture server")
        lib.assert_no_dropin(host, AGENT)
    else:
        lib.assert_no_dropin(host, "pep493-client-py2")
        lib.assert_dropin(host, AGENT, "1", reason="must verify even where the host-wide default is off")


# --- restarts: only the changed running units ----------------------------------------------

def test_restarts_and_running_environment(host):
    services_unchanged_since_last_phase(host)
    before = lib.results(host, tag="prepare")["pids"]
    pids = {k: host.check_output("systemctl show -p MainPID --value %s", W + k) for k in "abd"}
    env = {k: lib.main_pid_environ(host, W + k).get("PYTHONHTTPSVERIFY") for k in "abd"}
    p = phase(host)
    assert pids["b"] == before["b"] and env["b"] is None  # never changed, never restarted
    if p == "before":
        assert pids == before
        assert env == {"a": None, "b": None, "d": None}  # drop-in written, process not restarted
        return
    assert pids["a"] != before["a"] and env["a"] == "0"  # updated and try-restarted
    if p == "exception":
        assert pids["d"] == before["d"] and env["d"] is None  # restart: never -> pending
    else:
        assert pids["d"] != before["d"] and env["d"] == "0"


def test_module_results(host):
    later = lib.results(host, tag="prepare")["later"]
    assert later["pending_restart"] == [W + "d.service"]
    assert later["restarted"] == []
    if phase(host) == "before":
        return
    policy = lib.results(host)["policy"]
    units = by_name(policy["services"])
    assert {n: u["action"] for n, u in units.items()} == {
        "pep493-client-py2.service": "created",
        "pep493-client-py3.service": "created",
        W + "a.service": "updated",
        W + "c.service": "created",
        W + "d.service": "unchanged",
    }
    assert [u["name"] for u in policy["removed"]] == [W + "old.service"]
    assert policy["reloaded"] is True
    # the role hands pep493_https_restart (try-restart) to the module, which restarted the
    # changed running unit; what the host shows is checked in test_restarts_and_running_environment
    assert policy["restarted"] == [W + "a.service"]
    assert lib.results(host)["status"]["compliance"]["compliant"] is True
    # expiry
    assert units[W + "c.service"]["expired"] is True
    assert [n for n, u in units.items() if u["expired"]] == [W + "c.service"]
    warnings = " ".join(policy.get("warnings", []))
    assert W + "c" in warnings and "2020-01-31" in warnings
    # honest effect: Python 3 is not affected
    assert units["pep493-client-py3.service"]["effective"] is False
    assert units["pep493-client-py2.service"]["effective"] is True
    assert units[W + "a.service"]["effective"] is True
    assert "pep493-client-py3" in warnings and "Python 3" in warnings
    # the idempotence run changed and restarted nothing: the prediction planned no change to the
    # drop-ins, so the module was left out
    last = lib.results(host, which="last")
    assert last["policy"]["skipped"] is True and last["status"]["info"]["planned_changes"] == []


def test_removal_result(host):
    if phase(host) in ("before", "exception"):
        assert not lib.has_results(host, "side_effect")
        return
    removal = lib.results(host, tag="side_effect")["removal"]
    (unit,) = removal["services"]
    assert unit["action"] == "removed" and unit["name"] == "pep493-client-py2.service"
    assert removal["changed"] is True and removal["reloaded"] is True
    (agent,) = lib.results(host, tag="side_effect")["agent"]["services"]
    assert agent["action"] == "created" and agent["verify"] is True
    assert agent["effective"] is True   # /usr/bin/python -> python2 -> python2.7


# --- the audit agrees with the host --------------------------------------------------------

def test_info_pending_restart_matches_proc(host):
    services_unchanged_since_last_phase(host)
    p = phase(host)
    for k in "ad":
        entry = info_service(host, W + k)
        running = lib.main_pid_environ(host, W + k).get("PYTHONHTTPSVERIFY")
        assert entry["running_value"] == running
        assert entry["pending_restart"] is (running != entry["value"])
    if p == "before":
        # both drop-ins were written without a restart
        assert info_service(host, W + "a")["pending_restart"] is True
        assert info_service(host, W + "d")["pending_restart"] is True
        assert info(host)["summary"]["pending_restart"] == 2
    elif p == "exception":
        assert info_service(host, W + "d")["pending_restart"] is True
        assert info(host)["summary"]["pending_restart"] == 1
    else:
        assert info_service(host, W + "d")["pending_restart"] is False
        assert info(host)["summary"]["pending_restart"] == 0


def test_info_services_match_systemd(host):
    services_unchanged_since_last_phase(host)
    reported = {s["unit"]: s for s in info(host)["services"]}
    for unit, entry in reported.items():
        env = [x for x in lib.unit_environment(host, unit) if x.startswith("PYTHONHTTPSVERIFY=")]
        assert entry["value"] == (env[-1].split("=", 1)[1] if env else None), unit
        assert entry["managed"] is True
        assert entry["source"] == lib.dropin_path(unit)
    after = {"pep493-client-py3", W + "a", W + "c", W + "d", AGENT}
    expected = {
        "before": {W + "a", W + "old", W + "d"},
        "exception": {"pep493-client-py2", "pep493-client-py3", W + "a", W + "c", W + "d"},
        "disabled": after,
        "platform_default": after,
    }[phase(host)]
    assert set(reported) == {lib.unit_name(u) for u in expected}


def test_info_config_and_readers(host):
    """reads_config and config.readers name the stand-in's python in every phase, the malformed one too."""
    config = info(host)["config"]
    p = phase(host)
    assert config["exists"] is True
    assert [realpath(host, r) for r in config["readers"]] == [STANDIN_PYTHON]
    if p == "before":
        assert config["valid"] is False and config["verify"] == "malformed"
        assert [e["line"] for e in config["errors"]] == [MALFORMED.splitlines().index(b"verify disable") + 1]
    else:
        assert config["valid"] is True
        assert config["verify"] == {"exception": "enable", "disabled": "disable",
                                    "platform_default": "platform_default"}[p]
    interpreters = {realpath(host, i["path"]): i for i in info(host)["interpreters"]}
    py2 = interpreters[STANDIN_PYTHON]
    assert py2["reads_config"] == lib.CFG and py2["honours_env"] is True
    assert interpreters[realpath(host, "/usr/bin/python3")]["reads_config"] is None
    if p == "before":
        assert "ParsingError" in py2["error"] and py2["verifies_by_default"] is None
    else:
        assert py2["error"] is None
        assert py2["verifies_by_default"] is lib.python_verifies_by_default(host, STANDIN_PYTHON)


def test_info_host_default_is_what_a_python2_program_gets(host):
    """summary.host_default against a real request by a Python 2 program with no variable set."""
    out = host.run("env -i /usr/bin/python /usr/local/libexec/pep493/https-client")
    summary = info(host)["summary"]
    real = {lib.CLIENT_OK: False, lib.CLIENT_CERT_REJECTED: True, CLIENT_CRASHED: None}[out.rc]
    assert summary["host_default"] is real, out.stdout + out.stderr
    assert real is {"before": None, "exception": True, "disabled": False, "platform_default": True}[phase(host)]


def test_info_summary(host):
    summary = info(host)["summary"]
    p = phase(host)
    findings = " ".join(summary["findings"])
    if p == "before":
        assert (summary["exceptions"], summary["opt_outs"], summary["expired"], summary["ineffective"]) == (3, 2, 0, 0)
        assert "%s is malformed" % lib.CFG in findings
        assert "no interpreter on this host reads it" not in findings
        return
    assert summary["expired"] == 1
    assert summary["ineffective"] == 1  # the Python 3 client
    assert summary["exceptions"] == 5
    assert summary["opt_outs"] == (5 if p == "exception" else 4)
    assert W + "c" in findings
    assert ("%s says verify=disable" % lib.CFG in findings) is (p == "disabled")
