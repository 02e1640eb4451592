"""legacy: ansible-core 2.16 runs every module under Python 2.7 on bullseye."""

import os

import pep493_testlib as lib

SHIPPED = open(os.path.join(os.path.dirname(lib.__file__), "rhel7-cert-verification.cfg"), "rb").read()


def test_modules_ran_under_python_27(host):
    python = lib.results(host)["python"]
    assert python["executable"] == "/usr/bin/python2.7"
    assert python["version"]["major"] == 2 and python["version"]["minor"] == 7
    assert host.check_output("/usr/bin/python2.7 -c 'import sys; print(sys.version.split()[0])'") == "2.7.18"


def test_cfg_and_backup(host):
    cert = lib.results(host)["cert"]
    assert cert["changed"] is True and cert["previous"] == "platform_default"
    assert host.file(lib.CFG).content == SHIPPED.replace(b"verify=platform_default", b"verify=enable")
    backup = cert["backup_file"]
    assert host.file(backup).content == SHIPPED
    # backup: true also records the file before its first change (cert_verification's state=restored)
    assert host.file(cert["record_file"]).content.endswith(b"\n" + SHIPPED)
    assert sorted(host.check_output("ls -A /etc/python").split()) == sorted(
        ["cert-verification.cfg", os.path.basename(backup), "cert-verification.cfg.pep493-backups",
         "cert-verification.cfg.pep493-original"])
    st = lib.stat(host, lib.CFG)[lib.CFG]
    assert (st["mode"], st["user"]) == (0o644, "root")


def test_dropins_and_restart(host):
    lib.assert_dropin(host, "pep493-client-py2", "0", reason="talks to the fixture server", expires="2099-12-31")
    lib.assert_dropin(host, "pep493-worker-py2@l", "0", reason="legacy agent", expires="2099-12-31")
    svc = lib.results(host)["svc"]
    assert svc["restarted"] == ["pep493-worker-py2@l.service"]
    assert {u["action"] for u in svc["services"]} == {"created"}
    assert all(u["effective"] is True for u in svc["services"])
    assert lib.main_pid_environ(host, "pep493-worker-py2@l").get("PYTHONHTTPSVERIFY") == "0"


def test_real_tls(host):
    assert lib.start_client(host, "pep493-client-py2") == (0, lib.CLIENT_OK)
    assert lib.start_client(host, "pep493-client-py3")[1] == lib.CLIENT_CERT_REJECTED


def test_audit_under_python_27_agrees(host):
    audit = lib.results(host)["audit"]
    assert audit["config"]["verify"] == "enable" and audit["config"]["readers"] == []
    interpreters = {i["path"]: i for i in audit["interpreters"]}
    assert interpreters["/usr/bin/python2.7"]["honours_env"] is True
    assert interpreters["/usr/bin/python2.7"]["verifies_by_default"] is lib.python_verifies_by_default(
        host, "/usr/bin/python2.7")
    units = {u["unit"]: u for u in audit["services"]}
    assert sorted(units) == ["pep493-client-py2.service", "pep493-worker-py2@l.service"]
    worker = units["pep493-worker-py2@l.service"]
    assert worker["running_value"] == "0" and worker["pending_restart"] is False
    assert audit["summary"]["host_default"] is True


def test_idempotent_and_check_clean(host):
    last = lib.results(host, which="last")
    assert last["cert"]["changed"] is False and last["svc"]["changed"] is False
    check = lib.results(host, tag="check")
    assert check["cert"]["changed"] is False and check["svc"]["changed"] is False
