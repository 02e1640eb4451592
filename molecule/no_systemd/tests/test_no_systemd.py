"""no_systemd: PID 1 is not systemd; files written, no reload or restart, no failure, said so."""

import pep493_testlib as lib


def test_pid1_is_not_systemd(host):
    assert host.file("/proc/1/comm").content_string.strip() == "sleep"
    assert not host.file("/run/systemd/system").exists
    assert host.run("systemctl is-system-running").rc != 0


def test_files_written(host):
    st = lib.stat(host, lib.CFG)
    assert st[lib.CFG]["mode"] == 0o644 and st[lib.CFG]["user"] == "root"
    assert "verify=enable" in host.file(lib.CFG).content_string.splitlines()
    for unit in ("pep493-client-py3", "pep493-worker-py3@x"):
        path = lib.dropin_path(unit)
        folder = path.rsplit("/", 1)[0]
        st = lib.stat(host, path, folder)
        assert st[path] == {"type": "regular file", "mode": 0o644, "user": "root", "group": "root"}
        assert st[folder]["mode"] == 0o755
        assert host.check_output("ls -A %s", folder).split() == [lib.DROPIN_NAME]
        lines = host.file(path).content_string.splitlines()
        assert lines[-2:] == ["[Service]", "Environment=PYTHONHTTPSVERIFY=0"]


def test_dropins_valid_for_systemd_offline(host):
    """systemd's own parser (run offline) accepts the drop-ins."""
    out = host.run("SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no pep493-client-py3.service")
    assert lib.dropin_path("pep493-client-py3") not in out.stderr, out.stderr


def test_results_say_no_systemd(host):
    svc = lib.results(host)["svc"]
    assert svc["changed"] is True
    assert svc["systemd_running"] is False
    assert svc["reloaded"] is False
    assert svc["restarted"] == []
    assert {u["action"] for u in svc["services"]} == {"created"}
    assert "systemd" in svc["msg"]
    last = lib.results(host, which="last")["svc"]
    assert last["changed"] is False and {u["action"] for u in last["services"]} == {"unchanged"}


def test_cert_result(host):
    cert = lib.results(host)["cert"]
    assert cert["changed"] is True and cert["previous"] == "missing"
    assert lib.results(host, which="last")["cert"]["changed"] is False


def test_audit_reports_files_without_systemd(host):
    audit = lib.results(host)["audit"]
    assert audit["changed"] is False
    assert audit["config"]["verify"] == "enable"
    assert "failed" not in audit or audit["failed"] is False
    units = {u["unit"]: u for u in audit["services"]}
    assert sorted(units) == ["pep493-client-py3.service", "pep493-worker-py3@x.service"]
    for name, unit in units.items():
        # read from the files: what runs is unknown, not guessed; the load state is the files'
        assert unit["value"] == "0" and unit["managed"] is True and unit["source_kind"] == "dropin"
        assert unit["source"] == lib.dropin_path(name)
        assert unit["load_state"] == "loaded" and unit["active_state"] is None and unit["main_pid"] is None
        assert unit["effective"] is False  # Python 3, and there is no Python 2 on trixie
    assert not host.file("/usr/bin/python2.7").exists
    assert audit["summary"]["host_default"] is None
    assert audit["summary"]["ineffective"] == 2
