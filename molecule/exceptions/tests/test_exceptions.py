"""exceptions: add, change, expire, remove; exclusive; try-restart; real TLS across the phases.

The verifier runs three times (see molecule.yml); each test asserts what holds in the
current phase:
  before     after prepare: an earlier policy (worker@a verify=true, worker@old exempted) and
             a new exception for the running worker@d, written without a restart
  exception  after converge (the policy role) + idempotence: the policy in converge.yml
  removed    after side_effect: the Python 2 client's exception removed, worker@d restarted
"""

import pep493_testlib as lib

W = "pep493-worker-py2@"


def phase(host):
    if lib.has_results(host, "side_effect"):
        return "removed"
    if lib.has_results(host, "converge"):
        return "exception"
    return "before"


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


# --- real TLS through systemd --------------------------------------------------------------

def test_python2_client(host):
    expected = lib.CLIENT_OK if phase(host) == "exception" else lib.CLIENT_CERT_REJECTED
    rc, status = lib.start_client(host, "pep493-client-py2")
    assert status == expected, "phase %s" % phase(host)
    assert (rc == 0) is (expected == lib.CLIENT_OK)


def test_python3_client_always_rejected(host):
    rc, status = lib.start_client(host, "pep493-client-py3")
    assert rc != 0 and status == lib.CLIENT_CERT_REJECTED


# --- drop-ins on disk and in systemd -------------------------------------------------------

def test_dropins(host):
    p = phase(host)
    if p == "before":
        lib.assert_dropin(host, W + "a", "1", reason="earlier policy")
        lib.assert_dropin(host, W + "old", "0", reason="no longer needed", expires="2099-01-01")
        lib.assert_dropin(host, W + "d", "0", expires="2099-12-31")
        for unit in ("pep493-client-py2", "pep493-client-py3", W + "c"):
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
    else:
        lib.assert_no_dropin(host, "pep493-client-py2")


# --- restarts: only the changed running units ----------------------------------------------

def test_restarts_and_running_environment(host):
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
    # the idempotence run changed and restarted nothing
    last = lib.results(host, which="last")["policy"]
    assert {u["action"] for u in last["services"]} == {"unchanged"}
    assert last["removed"] == [] and last["reloaded"] is False


def test_removal_result(host):
    if phase(host) != "removed":
        assert not lib.has_results(host, "side_effect")
        return
    removal = lib.results(host, tag="side_effect")["removal"]
    (unit,) = removal["services"]
    assert unit["action"] == "removed" and unit["name"] == "pep493-client-py2.service"
    assert removal["changed"] is True and removal["reloaded"] is True


# --- the audit agrees with the host --------------------------------------------------------

def test_info_pending_restart_matches_proc(host):
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
    elif p == "removed":
        assert info_service(host, W + "d")["pending_restart"] is False
        assert info(host)["summary"]["pending_restart"] == 0


def test_info_services_match_systemd(host):
    reported = {s["unit"]: s for s in info(host)["services"]}
    for unit, entry in reported.items():
        env = [x for x in lib.unit_environment(host, unit) if x.startswith("PYTHONHTTPSVERIFY=")]
        assert entry["value"] == (env[-1].split("=", 1)[1] if env else None), unit
        assert entry["managed"] is True
        assert entry["source"] == lib.dropin_path(unit)
    expected = {
        "before": {W + "a", W + "old", W + "d"},
        "exception": {"pep493-client-py2", "pep493-client-py3", W + "a", W + "c", W + "d"},
        "removed": {"pep493-client-py3", W + "a", W + "c", W + "d"},
    }[phase(host)]
    assert set(reported) == {lib.unit_name(u) for u in expected}


def test_info_summary(host):
    summary = info(host)["summary"]
    p = phase(host)
    assert summary["host_default"] is True
    if p == "before":
        assert (summary["exceptions"], summary["opt_outs"], summary["expired"], summary["ineffective"]) == (3, 2, 0, 0)
        return
    assert summary["expired"] == 1
    assert summary["ineffective"] == 1  # the Python 3 client
    assert summary["exceptions"] == summary["opt_outs"] == (5 if p == "exception" else 4)
    findings = " ".join(summary["findings"])
    assert W + "c" in findings
