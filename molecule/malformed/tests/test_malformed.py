"""malformed: refused without repair (file untouched), repaired with repair=true."""

import hashlib
import os

import pep493_testlib as lib

SEED = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "files", "malformed.cfg"), "rb").read()
# what RHEL 7 reads back: line 1 before any section, line 5 junk
REPAIRED = (b"#verify=disable\n"
            b"# a comment before the first section\n"
            b"[https]\n"
            b"verify=enable\n"
            b"#this line is junk\n"
            b"[other]\n"
            b"key=value\n")

PY2_PARSE = ("python2.7 -c \"import ConfigParser as C, sys; c = C.RawConfigParser(); c.read(sys.argv[1]); "
             "print(c.get('https', 'verify'))\" %s")


def test_seed_really_breaks_python2_configparser(host):
    """The seeded file is malformed for Python 2's own parser (what RHEL 7 uses at import ssl)."""
    backup = lib.results(host)["repaired"]["backup_file"]
    out = host.run(PY2_PARSE, backup)
    assert out.rc != 0
    assert "MissingSectionHeaderError" in out.stderr


def test_refused_with_clear_message(host):
    refused = lib.results(host)["refused"]
    assert refused, "the run without repair did not fail"
    assert refused["failed"] is True
    msg = refused["msg"]
    assert lib.CFG in msg
    # the message quotes the first offending line only; "errors" lists every one by number
    assert "line 1: text before any [section] header" in msg and "'verify=disable'" in msg
    assert "(and 1 more malformed line)" in msg
    assert "repair" in msg
    # a fail_json, not a crash (2.21 adds "exception: (traceback unavailable)" to every fail_json)
    assert "Traceback (most recent call last)" not in repr(refused)
    assert [(e["line"], e["kind"]) for e in refused["errors"]] == [(1, "missing_section_header"), (5, "parsing_error")]


def test_file_untouched_by_refusal(host):
    seeded = lib.results(host, tag="prepare")["seeded"]
    after = lib.results(host)["after_refusal"]
    assert seeded["checksum"] == hashlib.sha256(SEED).hexdigest()
    assert after["checksum"] == seeded["checksum"]
    assert after["mtime"] == seeded["mtime"]
    assert after["inode"] == seeded["inode"]


def test_repaired_content(host):
    assert host.file(lib.CFG).content == REPAIRED
    repaired = lib.results(host)["repaired"]
    assert repaired["changed"] is True
    assert repaired["previous"] == "malformed"
    assert repaired["repaired_lines"] == [1, 5]
    assert repaired["verify"] == "enable"


def test_repaired_file_reads_enable_with_python2(host):
    assert host.check_output(PY2_PARSE, lib.CFG) == "enable"
    assert host.run("python2.7 -c 'import ssl, urllib2'").rc == 0


def test_backup_is_the_original(host):
    backup = lib.results(host)["repaired"]["backup_file"]
    assert os.path.dirname(backup) == "/etc/python"
    assert host.file(backup).content == SEED


def test_attributes_and_no_stray_files(host):
    f = host.file(lib.CFG)
    assert f.mode == 0o644 and f.user == "root" and f.group == "root"
    assert host.file("/etc/python").mode == 0o755
    repaired = lib.results(host)["repaired"]
    backup = os.path.basename(repaired["backup_file"])
    # backup: true also records the file before its first change (cert_verification's state=restored)
    assert repaired["record_file"] == lib.CFG + ".pep493-original"
    assert host.file(repaired["record_file"]).content.endswith(b"\n" + SEED)
    assert sorted(host.check_output("ls -A /etc/python").split()) == sorted(
        ["cert-verification.cfg", backup, "cert-verification.cfg.pep493-backups", "cert-verification.cfg.pep493-original"])


def test_second_run_changes_nothing(host):
    last = lib.results(host, which="last")
    assert last["refused"] is None  # the file is valid now: accepted without repair
    assert last["plain"]["changed"] is False
    assert last["repaired"]["changed"] is False
    assert "backup_file" not in last["repaired"]
