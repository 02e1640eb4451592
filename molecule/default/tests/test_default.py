"""default: host-wide verify=enable plus one per-service exception, on every platform."""

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


def test_cfg_attributes(host):
    f = host.file(lib.CFG)
    assert f.is_file and not f.is_symlink
    assert f.mode == 0o644
    assert (f.user, f.group) == ("root", "root")
    d = host.file("/etc/python")
    assert d.is_directory and d.mode == 0o755 and d.user == "root"


def test_no_stray_files(host):
    assert host.check_output("ls -A /etc/python").split() == ["cert-verification.cfg"]


def test_cfg_parses_as_python_reads_it(host):
    """The real ConfigParser of the platform's Python reads verify=enable."""
    if lib.has_python2(host):
        cmd = ("python2.7 -c \"import ConfigParser as C; c = C.RawConfigParser(); c.read('%s'); "
               "print(c.get('https', 'verify'))\"")
    else:
        cmd = ("python3 -c \"import configparser as C; c = C.RawConfigParser(); c.read('%s'); "
               "print(c.get('https', 'verify'))\"")
    assert host.check_output(cmd, lib.CFG) == "enable"


def test_no_consumer_on_debian_and_the_module_said_so(host):
    """No Debian Python reads the file; the module must not claim otherwise."""
    for py in ("python2.7", "python3"):
        if host.exists(py):
            out = host.check_output("%s -c \"import ssl; print(hasattr(ssl, '_cert_verification_config'))\"", py)
            assert out == "False"
    cert = lib.results(host)["cert"]
    assert cert["probed"] is True
    assert cert["consumers"] == []
    assert any("no Python on this host reads it" in w for w in cert.get("warnings", []))


def test_python2_ssl_still_imports(host):
    if lib.has_python2(host):
        assert host.run("python2.7 -c 'import ssl, urllib2, httplib'").rc == 0


def test_check_run_reports_no_change(host):
    assert lib.results(host, tag="check", which="last")["cert"]["changed"] is False
