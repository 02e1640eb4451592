"""trust: real Python 2 clients against the fixture server, whose CA nothing trusts - rejected
with verification on, accepted once the CA is trusted (host-wide on el7-standin, for the two
client units only on bullseye), rejected again once it is removed."""

import pep493_testlib as lib

OK, REJECTED = lib.CLIENT_OK, lib.CLIENT_CERT_REJECTED
BUNDLES = "/etc/pki/pep493-https"


def test_the_clients_are_rejected_before_the_ca_is_trusted(host):
    before = lib.results(host)["phases"]["before"]
    assert before == {"stdlib": REJECTED, "requests": REJECTED, "outside": REJECTED}


def test_the_clients_connect_with_verification_on_once_the_ca_is_trusted(host):
    found = lib.results(host)
    trusted = found["phases"]["trusted"]
    assert trusted["stdlib"] == OK and trusted["requests"] == OK
    # host-wide: every Python 2 program trusts it; per service: only the two units
    assert trusted["outside"] == (OK if found["host_wide"] else REJECTED)


def test_removing_the_ca_makes_them_fail_again(host):
    assert lib.results(host)["phases"]["removed"] == {"stdlib": REJECTED, "requests": REJECTED, "outside": REJECTED}
    assert lib.start_client(host, "pep493-client-py2.service")[1] == REJECTED
    assert lib.start_client(host, "pep493-trust-requests.service")[1] == REJECTED


def test_host_wide_the_ca_was_proven_in_the_bundle_and_a_rerun_changed_nothing(host):
    found = lib.results(host)
    if not found["host_wide"]:
        return
    trust, again, remove = found["trust"], found["again"], found["remove"]
    assert (trust["changed"], trust["family"], trust["update_status"]) == (True, "debian", "ran")
    assert trust["cas"][0]["in_bundle"] is True and trust["bundle"]["read"] is True
    assert (again["changed"], again["update_status"], again["cas"][0]["action"]) == (False, "not_needed", "unchanged")
    assert remove["cas"][0]["action"] == "removed" and remove["cas"][0]["in_bundle"] is False
    assert not host.file("/usr/local/share/ca-certificates/pep493-fixture-ca.crt").exists
    assert host.file(lib.CFG).contains("^verify=enable")


def test_per_service_the_drop_in_names_the_bundle_and_the_audit_says_trusting(host):
    found = lib.results(host)
    if found["host_wide"]:
        return
    trust, again = found["trust"], found["again"]
    assert [s["ca"]["bundle_action"] for s in trust["services"]] == ["created", "created"]
    assert again["changed"] is False
    records = {r["unit"]: r for r in found["audit"]["services"]}
    for unit in ("pep493-client-py2.service", "pep493-trust-requests.service"):
        assert records[unit]["value"] == "1" and records[unit]["ca"]["bundle_state"] == "current"
    assert found["audit"]["summary"]["trusting"] == 2 and found["audit"]["summary"]["opt_outs"] == 0
    # the system trust store never saw the CA, and nothing of the exception is left
    assert not host.file("/usr/local/share/ca-certificates/pep493-fixture-ca.crt").exists
    assert host.run("ls %s", BUNDLES).stdout.strip() == ""
    assert "SSL_CERT_FILE" not in " ".join(lib.unit_environment(host, "pep493-client-py2.service"))
