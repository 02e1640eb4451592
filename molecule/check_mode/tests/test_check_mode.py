"""check_mode: a check run reports every change and changes nothing; the real run does what it reported."""

import pep493_testlib as lib

SNAPSHOT = ("set -e; find /etc/python /etc/systemd/system -printf '%p %y %m %u:%g %s %T@ %i\\n' | LC_ALL=C sort; "
            "find /etc/python /etc/systemd/system -type f -exec sha256sum {} + | LC_ALL=C sort -k 2; "
            "systemctl show -p MainPID pep493-worker-py3@x")
X = "pep493-worker-py3@x.service"


def converged(host):
    return lib.has_results(host, "converge")


def test_check_run_changed_nothing_on_disk(host):
    """Same names, types, modes, owners, sizes, mtimes, inodes, checksums and process."""
    before = lib.results(host, tag="prepare")["snapshot"].splitlines()
    now = host.check_output(SNAPSHOT).splitlines()
    if not converged(host):
        assert now == before
    else:
        assert now != before


def test_check_run_reported_the_cfg_change(host):
    cert = lib.results(host, tag="check")["cert"]
    assert cert["changed"] is True
    assert cert["previous"] == "platform_default" and cert["verify"] == "enable"
    diffs = cert["diff"]
    text = [d for d in diffs if "after" in d and isinstance(d["after"], str) and "verify=" in d["after"]]
    assert text, diffs
    assert "verify=platform_default" in text[0]["before"] and "verify=enable" in text[0]["after"]
    modes = [d for d in diffs if isinstance(d.get("after"), dict) and "mode" in d["after"]]
    assert modes and modes[0]["before"]["mode"] == "0600" and modes[0]["after"]["mode"] == "0644", diffs


def test_check_run_reported_the_service_changes(host):
    svc = lib.results(host, tag="check")["svc"]
    assert svc["changed"] is True
    actions = {u["name"]: u["action"] for u in svc["services"]}
    assert actions == {"pep493-client-py3.service": "created", X: "updated"}
    assert [u["name"] for u in svc["removed"]] == ["pep493-worker-py3@old.service"]
    assert svc["restarted"] == [X]
    assert svc["reloaded"] is True
    assert len(svc["diff"]) == 3


def test_real_run_did_what_check_reported(host):
    if not converged(host):
        assert not lib.has_results(host, "converge")
        return
    check, real = lib.results(host, tag="check"), lib.results(host)
    for key in ("changed", "previous", "verify"):
        assert real["cert"][key] == check["cert"][key]
    for key in ("restarted", "reloaded", "changed"):
        assert real["svc"][key] == check["svc"][key]
    assert [(u["name"], u["action"]) for u in real["svc"]["services"]] == \
        [(u["name"], u["action"]) for u in check["svc"]["services"]]
    assert [u["name"] for u in real["svc"]["removed"]] == [u["name"] for u in check["svc"]["removed"]]
    # and the host shows it
    st = lib.stat(host, lib.CFG)[lib.CFG]
    assert st["mode"] == 0o644
    assert "verify=enable" in host.file(lib.CFG).content_string.splitlines()
    lib.assert_dropin(host, "pep493-client-py3", "0", reason="new exception")
    lib.assert_dropin(host, "pep493-worker-py3@x", "0", reason="changed exception")
    lib.assert_no_dropin(host, "pep493-worker-py3@old")
    assert lib.main_pid_environ(host, X).get("PYTHONHTTPSVERIFY") == "0"


def test_second_run_changes_nothing(host):
    if not converged(host):
        assert lib.results(host, tag="check", which="all")  # one check run so far
        assert len(lib.results(host, tag="check", which="all")) == 1
        return
    last = lib.results(host, which="last")
    assert last["cert"]["changed"] is False and last["svc"]["changed"] is False
