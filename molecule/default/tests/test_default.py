"""default: host-wide verify=enable plus one per-service exception, on every platform.

el7-standin is a stand-in for RHEL/CentOS 7's system python (Debian's python2.7 made to read
/etc/python/cert-verification.cfg as RHEL 7's does; not RHEL): there the file has an effect,
and the module's consumers and the audit's readers are not empty.
"""

import re
import subprocess

import pep493_testlib as lib

SHIPPED = open(lib.__file__.replace("pep493_testlib.py", "rhel7-cert-verification.cfg"), "rb").read()


def meaningful_lines(data):
    return [x for x in data.decode().splitlines() if x.strip() and not x.lstrip().startswith(("#", ";"))]


# --- the fixtures themselves (so a failure below means what it says) -----------------------

def test_fixture_server_runs_and_is_reachable_with_its_ca(host):
    assert host.service("pep493-https-server").is_running
    out = host.run("python3 -c \"import ssl, urllib.request; print(urllib.request.urlopen('%s', "
                   "context=ssl.create_default_context(cafile='%s/ca.pem')).read().decode())\"",
                   lib.URL, lib.FIXTURE)
    assert out.rc == 0, out.stderr
    assert out.stdout.strip() == "pep493-fixture-ok"


def test_fixture_ca_is_not_trusted(host):
    ca = host.file(lib.FIXTURE + "/ca.pem").content_string.strip().splitlines()[1]
    assert ca not in host.file("/etc/ssl/certs/ca-certificates.crt").content_string


# --- the host-wide file --------------------------------------------------------------------

def test_cfg_content(host):
    data = host.file(lib.CFG).content
    if lib.results(host)["cert"]["previous"] == "missing":
        # a new file: the module's own comment header, then exactly one setting
        assert meaningful_lines(data) == ["[https]", "verify=enable"]
        assert data.endswith(b"\n")
    else:
        # the vendor file: only its verify line changed, every other byte kept
        assert data == SHIPPED.replace(b"verify=platform_default", b"verify=enable")


def test_cfg_previous_value_reported(host):
    seeded = host.file(lib.CFG).content_string.startswith("# Possible values are:")
    assert lib.results(host)["cert"]["previous"] == ("platform_default" if seeded else "missing")
    assert lib.results(host)["cert"]["verify"] == "enable"


def test_cfg_attributes_and_no_stray_files(host):
    st = lib.stat(host, lib.CFG, "/etc/python")
    assert st[lib.CFG] == {"type": "regular file", "mode": 0o644, "user": "root", "group": "root"}
    assert st["/etc/python"] == {"type": "directory", "mode": 0o755, "user": "root", "group": "root"}
    cert = lib.results(host)["cert"]
    # the record of the file before the policy's first change: the rollback's way back
    expected = ["cert-verification.cfg", "cert-verification.cfg.pep493-original"]
    assert cert["record_file"] == lib.CFG + ".pep493-original"
    recorded = b"\nabsent\n" if cert["previous"] == "missing" else b"\n" + SHIPPED
    assert host.file(cert["record_file"]).content.endswith(recorded)
    if cert["previous"] != "missing":
        # the policy keeps a backup of the file it changed (pep493_https_cfg_backup defaults to true)
        assert host.file(cert["backup_file"]).content == SHIPPED
        # and names it, with its UTC time, in the record of the backups
        expected += [cert["backup_file"].rsplit("/", 1)[1], "cert-verification.cfg.pep493-backups"]
    else:
        assert "backup_file" not in cert
    assert sorted(host.check_output("ls -A /etc/python").split()) == sorted(expected)


def test_cfg_parses_as_python_reads_it(host):
    """The real ConfigParser of the platform's Python reads verify=enable."""
    if lib.has_python2(host):
        cmd = ("python2.7 -c \"import ConfigParser as C; c = C.RawConfigParser(); c.read('%s'); "
               "print(c.get('https', 'verify'))\"")
    else:
        cmd = ("python3 -c \"import configparser as C; c = C.RawConfigParser(); c.read('%s'); "
               "print(c.get('https', 'verify'))\"")
    assert host.check_output(cmd, lib.CFG) == "enable"


_PYTHONS = {}
_PYTHON_NAME = re.compile(r"^(python|platform-python)(\d+(\.\d+)?)?$")


def pythons(host):
    """{path: (real path, the file its ssl reads or None)} for every Python on the host, in one command."""
    name = lib.instance(host)
    if name not in _PYTHONS:
        code = "import ssl; print(getattr(ssl, '_cert_verification_config', None))"
        out = host.check_output(
            "for p in /usr/bin/python* /usr/libexec/platform-python*; do [ -e \"$p\" ] || continue; "
            "printf '%%s|%%s|%%s\\n' \"$p\" \"$(readlink -f \"$p\")\" \"$(\"$p\" -c %s 2>/dev/null)\"; done", code)
        found = {}
        for line in out.splitlines():
            path, real, reads = line.split("|")
            if _PYTHON_NAME.match(path.rsplit("/", 1)[1]):
                found[path] = (real, None if reads == "None" else reads)
        _PYTHONS[name] = found
    return _PYTHONS[name]


def readers(host):
    """The real paths of the interpreters whose ssl reads the cfg file, as they say themselves."""
    return sorted(set(real for real, reads in pythons(host).values() if reads == lib.CFG))


def real_paths(host, paths):
    return sorted(set(host.check_output("readlink -f %s", p) for p in paths))


def test_consumers_match_the_interpreters(host):
    """The module's consumers are exactly the interpreters that read this file (none on Debian)."""
    cert = lib.results(host)["cert"]
    assert cert["probed"] is True
    assert real_paths(host, [c["path"] for c in cert["consumers"]]) == readers(host)
    # one entry per interpreter, however many names it has (python, python2, python2.7)
    assert len(cert["consumers"]) == len(readers(host))
    warned = any("no Python on this host reads it" in w for w in cert.get("warnings", []))
    assert warned is (not readers(host))


def test_python2_ssl_still_imports(host):
    if lib.has_python2(host):
        assert host.run("python2.7 -c 'import ssl, urllib2, httplib'").rc == 0


def test_check_run_reports_no_change(host):
    check = lib.results(host, tag="check", which="last")
    assert check["cert"]["changed"] is False
    assert check["svc"]["changed"] is False


def test_policy_reports_compliance(host):
    for which in ("first", "last"):
        status = lib.results(host, which=which)["status"]
        assert status["compliance"]["compliant"] is True, status["compliance"]


def test_the_prediction_is_the_audit_only_after_a_run_that_changed_nothing(host):
    first, last = lib.results(host, which="first")["status"], lib.results(host, which="last")["status"]
    # the first run wrote the cfg file and the drop-in: audited again, from the host
    assert "prediction_reused" not in first and first["info"]["planned"] is False
    # the idempotence run changed nothing: the audit of the planned state is the audit
    assert last["prediction_reused"] is True and "predicted" not in last["compliance"]
    assert last["info"]["planned"] is True and last["info"]["planned_changes"] == []
    assert last["compliance"]["state"] == first["compliance"]["state"]


# --- the service exception -----------------------------------------------------------------

REASON = "fixture client of the self-signed test server"


def exception_unit(host):
    return "pep493-client-py2" if lib.has_python2(host) else "pep493-client-py3"


def test_dropin_on_disk_and_in_systemd(host):
    lib.assert_dropin(host, exception_unit(host), "0", reason=REASON, expires="2099-12-31")


def test_service_result(host):
    svc = lib.results(host)["svc"]
    (unit,) = svc["services"]
    assert unit["name"] == exception_unit(host) + ".service"
    assert unit["action"] == "created"
    assert unit["verify"] is False and unit["expired"] is False
    assert unit["unit_known"] is True
    assert unit["path"] == lib.dropin_path(exception_unit(host))
    assert svc["systemd_running"] is True and svc["reloaded"] is True
    # the idempotence run: the prediction planned no change to the drop-ins, so the module was left out
    last = lib.results(host, which="last")
    assert last["svc"]["skipped"] is True and last["status"]["info"]["planned_changes"] == []


def test_real_tls_through_systemd(host):
    """The exception really reaches the process systemd starts (Python 2), or has no effect (Python 3)."""
    rc, status = lib.start_client(host, exception_unit(host))
    if lib.has_python2(host):
        assert (rc, status) == (0, lib.CLIENT_OK)
        # the py3 client of the same host still verifies
        assert lib.start_client(host, "pep493-client-py3")[1] == lib.CLIENT_CERT_REJECTED
        if host.file("/etc/systemd/system/pep493-agent.service").exists:
            # the stand-in's agent (/usr/bin/python, no exception): verify=enable in the file decides
            assert lib.start_client(host, "pep493-agent")[1] == lib.CLIENT_CERT_REJECTED
    else:
        assert rc != 0 and status == lib.CLIENT_CERT_REJECTED


def test_honest_about_python3(host):
    unit = lib.results(host)["svc"]["services"][0]
    warnings = " ".join(lib.results(host)["svc"].get("warnings", []))
    if lib.has_python2(host):
        assert unit["effective"] is True
    else:
        assert unit["effective"] is False
        assert "Python 3" in warnings and exception_unit(host) in warnings


# --- the audit agrees with the host --------------------------------------------------------

_INFO = {}


def info(host):
    name = lib.instance(host)
    if name not in _INFO:
        _INFO[name] = lib.run_module(host, "pep493.https.verification_info")
        assert _INFO[name]["_status"] == "SUCCESS", _INFO[name]
    return _INFO[name]


def test_info_config_matches_file(host):
    config = info(host)["config"]
    assert config["exists"] is True and config["valid"] is True
    assert config["verify"] == "enable"
    assert config["mode"] == "0644" and config["owner"] == "root"
    assert real_paths(host, config["readers"]) == readers(host)
    assert len(config["readers"]) == len(readers(host))


def test_info_interpreters_match_reality(host):
    # reported once per interpreter, under one of its names
    reported = {pythons(host)[i["path"]][0]: i for i in info(host)["interpreters"]}
    assert len(reported) == len(info(host)["interpreters"])
    for python in ("/usr/bin/python2.7", "/usr/bin/python3"):
        real = pythons(host).get(python, (None,))[0]
        if real is None:
            assert python not in [i["path"] for i in info(host)["interpreters"]]
            continue
        assert real in reported, sorted(reported)
        entry = reported[real]
        honours = host.check_output("%s -c \"import ssl; print(hasattr(ssl, '_https_verify_envvar'))\"", python)
        assert entry["honours_env"] is (honours == "True")
        assert entry["reads_config"] == pythons(host)[python][1]
        assert entry["verifies_by_default"] is lib.python_verifies_by_default(host, python)


def test_info_service_matches_systemd(host):
    unit = exception_unit(host) + ".service"
    found = [s for s in info(host)["services"] if s["unit"] == unit]
    assert len(found) == 1, info(host)["services"]
    entry = found[0]
    assert entry["value"] == "0"
    assert entry["verify"] is False
    assert entry["managed"] is True
    assert entry["source"] == lib.dropin_path(exception_unit(host))
    assert entry["expires"] == "2099-12-31" and entry["expired"] is False
    assert entry["effective"] is lib.has_python2(host)
    others = [s["unit"] for s in info(host)["services"] if s["unit"] != unit]
    assert others == []  # no other unit mentions PYTHONHTTPSVERIFY


def test_info_summary_matches_reality(host):
    summary = info(host)["summary"]
    if lib.has_python2(host):
        # a Python 2 program without the exception really verifies
        out = host.run("env -i /usr/bin/python2.7 /usr/local/libexec/pep493/https-client")
        assert out.rc == lib.CLIENT_CERT_REJECTED
        assert summary["host_default"] is True
        assert summary["ineffective"] == 0
    else:
        assert summary["host_default"] is None
        assert summary["ineffective"] == 1
    assert summary["exceptions"] == 1
    assert summary["expired"] == 0
    assert info(host)["global"] == []
    assert info(host)["changed"] is False


# --- the stand-in says what it is ----------------------------------------------------------

def test_standin_is_labelled_and_diverts_only_ssl(host):
    """A host whose Python reads the file here is the el7-standin image, labelled as a stand-in."""
    # local diversions: files of Debian's packages replaced on purpose (dash's own are not local)
    diverted = [x for x in host.check_output("dpkg-divert --list").splitlines() if x.startswith("local ")]
    image = subprocess.run(["podman", "container", "inspect", "--format", "{{ .ImageName }}", lib.instance(host)],
                           capture_output=True, text=True, check=True).stdout.strip()
    label = subprocess.run(["podman", "image", "inspect", "--format", '{{ index .Labels "org.pep493.standin" }}', image],
                           capture_output=True, text=True, check=True).stdout.strip()
    if not readers(host):
        assert diverted == [] and label in ("", "<no value>")
        return
    assert image == "localhost/pep493-el7-standin:latest"
    assert label.startswith("RHEL/CentOS 7 python 2.7.5-51+") and label.endswith("; not RHEL"), label
    assert diverted == ["local diversion of /usr/lib/python2.7/ssl.py to /usr/lib/python2.7/ssl.py.debian"]
    assert readers(host) == ["/usr/bin/python2.7"]
    # RHEL 7's names for the system python
    assert host.check_output("readlink -f /usr/bin/python") == "/usr/bin/python2.7"
