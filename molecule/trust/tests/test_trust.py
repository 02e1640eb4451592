"""trust: real Python 2 clients against the fixture server, whose CA nothing trusts - rejected
with verification on, accepted once the CA is trusted (host-wide on el7-standin, for the two
client units only on bullseye), rejected again once it is removed; the policy role's path from
verification off to the CA trusted; and a root CA, trusted alone, fixing a server whose certificate
an intermediate issued, in the forecast and for a real client."""

import re

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


# --- the policy role's own path (tasks/rollout.yml) ------------------------------------------------

CLIENT, REQUESTS, AGENT = "pep493-client-py2.service", "pep493-trust-requests.service", "pep493-agent.service"
# the image's worker template: no instance runs, it talks to nothing, so it cannot be forecast
WORKER = "pep493-worker-py2@.service"
FIXTURE_CA = "pep493 test fixture CA"


def rollout(host):
    found = lib.results(host)
    return found["host_wide"], found["rollout"]


def by_unit(forecast):
    return {entry["service"]: entry for entry in forecast["services"]}


def ca_name(host_wide, kept):
    """The name the forecast reports the CA by: the host-wide CA's own name; a service's own CA by its subject."""
    names = set(kept["cas"])
    assert len(names) == 1, names
    name = names.pop()
    if host_wide:
        assert name == "pep493-fixture-ca"
    else:
        assert FIXTURE_CA in name
    return name


def test_before_the_rollout_the_knobs_turn_verification_off_for_the_standard_library_only(host):
    host_wide, dummy = rollout(host)
    unverified = lib.results(host)["phases"]["unverified"]
    # requests reads neither knob: it fails already; the cfg file reaches every Python 2 program
    assert unverified == {"stdlib": OK, "requests": REJECTED, "outside": OK if host_wide else REJECTED}


def test_without_the_ca_the_forecast_says_the_clients_would_break(host):
    host_wide, kept = rollout(host)
    bare = kept["bare"]
    services = by_unit(bare)
    governed = [CLIENT, AGENT] if host_wide else [CLIENT]
    assert sorted(services) == sorted(governed + [REQUESTS, WORKER])
    assert services[WORKER]["verdict"] == "unknown" and services[WORKER]["endpoints"] == []
    for unit in governed:
        assert services[unit]["verdict"] == "would_break", services[unit]
        assert services[unit]["verifies_today"] is False
        assert services[unit]["endpoints"][0]["result"] == "untrusted"
        assert FIXTURE_CA in services[unit]["endpoints"][0]["peer"]["issuer"]
        assert services[unit]["fixed_by"] == [] and services[unit]["endpoints"][0].get("trust") is None
    # requests verifies whatever the knobs say, and fails with its bundle today
    assert services[REQUESTS]["verdict"] == "already_failing", services[REQUESTS]
    assert services[REQUESTS]["endpoints"][0]["requests"]["result"] == "untrusted"
    # the host's own scripts: off with the cfg file on el7-standin, verifying (and failing) on bullseye
    assert bare["host_wide"]["verdict"] == ("would_break" if host_wide else "already_failing")
    assert bare["summary"]["fixed"] == 0
    assert bare["summary"]["would_break"] == len(governed) + (1 if host_wide else 0)


def test_with_the_policys_ca_the_forecast_says_it_fixes_them_proven_by_a_second_probe(host):
    host_wide, kept = rollout(host)
    name = ca_name(host_wide, kept)
    forecast = kept["forecast"]
    services = by_unit(forecast)
    governed = [CLIENT, AGENT] if host_wide else [CLIENT]
    for unit in governed:
        entry = services[unit]
        assert entry["verdict"] == "ok", entry
        assert entry["fixed_by"] == [name]
        assert entry["why"].startswith("fixed by trusting %s: " % name), entry["why"]
        endpoint = entry["endpoints"][0]
        # today's result stays what the host gives; the second probe, with the CA, passes
        assert (endpoint["result"], endpoint["fixed_by"]) == ("untrusted", name)
        assert endpoint["trust"]["result"] == "ok" and endpoint["trust"]["scope"] == ("host" if host_wide else "service")
    # requests: its own bundle fails today, the CA added as the policy adds it passes; the knobs
    # govern nothing it uses, and the CA fixes it
    endpoint = services[REQUESTS]["endpoints"][0]
    assert services[REQUESTS]["fixed_by"] == [name]
    assert endpoint["requests"]["result"] == "untrusted" and endpoint["trust"]["requests"]["result"] == "ok"
    assert (services[REQUESTS]["verdict"], services[REQUESTS]["fixed"]) == ("unaffected", True), services[REQUESTS]
    assert services[REQUESTS]["why"].startswith("fixed by trusting %s: " % name), services[REQUESTS]["why"]
    # a service's own CA is not the host's: the host's own scripts stay as they are on bullseye
    assert forecast["host_wide"]["verdict"] == ("ok" if host_wide else "already_failing")
    assert forecast["host_wide"]["fixed_by"] == ([name] if host_wide else [])
    assert forecast["summary"]["would_break"] == 0
    assert forecast["summary"]["fixed"] == len(governed) + 1 + (1 if host_wide else 0)


def only_the_worker_cannot_be_forecast(forecast):
    """The role's warnings about what it cannot forecast (on_unknown: enforce) name the worker template alone."""
    assert forecast["warnings"], "the worker template was not forecast at all"
    assert all(text.startswith(WORKER + " cannot be forecast (") for text in forecast["warnings"]), forecast["warnings"]


def test_the_dry_run_of_the_role_sees_no_break_and_changes_nothing(host):
    host_wide, kept = rollout(host)
    name = ca_name(host_wide, kept)
    check = kept["check"]
    assert check["check_mode"] is True and kept["check_unchanged"] is True
    assert (check["forecast"]["breaks"], check["forecast"]["granted"], check["forecast"]["problems"]) == ([], [], [])
    only_the_worker_cannot_be_forecast(check["forecast"])
    fixed = {item["service"]: item["fixed_by"] for item in check["forecast"]["fixed"]}
    # requests is fixed too (unaffected by the knobs, it fails with its bundle without the CA)
    wanted = {CLIENT: [name], REQUESTS: [name]}
    if host_wide:
        wanted.update({AGENT: [name], None: [name]})
    assert fixed == wanted
    assert check["compliance"]["compliant"] is True, check["compliance"]


def test_enforcing_through_the_role_turns_nothing_off_and_the_clients_connect_with_verification_on(host):
    host_wide, kept = rollout(host)
    enforce = kept["enforce"]
    assert (enforce["forecast"]["breaks"], enforce["forecast"]["granted"], enforce["forecast"]["problems"]) == ([], [], [])
    only_the_worker_cannot_be_forecast(enforce["forecast"])
    assert enforce["compliance"]["compliant"] is True, enforce["compliance"]
    assert "0" not in enforce["audit"].values(), enforce["audit"]
    lines = kept["environment"]
    # what systemd gives the two clients, every PYTHONHTTPSVERIFY in the unit folder, the cfg file's value
    client_env, requests_env, settings, cfg_value = lines[0].split(), lines[1].split(), lines[2:-1], lines[-1]
    assert cfg_value == "enable"
    assert not any(re.search(r"PYTHONHTTPSVERIFY=0(\s|$)", line) for line in settings), settings
    if host_wide:
        assert settings == [] and client_env == ["pep493-client-py2"] and requests_env == ["pep493-trust-requests"]
        trusted = enforce["trusted_cas"]
        assert trusted["update_status"] == "ran" and trusted["cas"][0]["in_bundle"] is True
        assert trusted["cas"][0]["action"] == "created"
    else:
        assert enforce["audit"][CLIENT] == "1" and enforce["audit"][REQUESTS] == "1"
        assert "PYTHONHTTPSVERIFY=1" in client_env and "PYTHONHTTPSVERIFY=1" in requests_env
        assert any(item.startswith("REQUESTS_CA_BUNDLE=") for item in requests_env)
        sent = {item["name"]: item for item in enforce["services"]["services"]}
        assert sorted(sent) == [CLIENT, REQUESTS]
        assert all(item["ca"]["bundle_action"] == "created" for item in sent.values())
        assert all(item["verify"] is True for item in sent.values()), sent
    enforced = lib.results(host)["phases"]["enforced"]
    assert enforced == {"stdlib": OK, "requests": OK, "outside": OK if host_wide else REJECTED}


def test_taking_the_ca_out_through_the_role_makes_them_fail_again(host):
    host_wide, kept = rollout(host)
    assert lib.results(host)["phases"]["withdrawn"] == {"stdlib": REJECTED, "requests": REJECTED, "outside": REJECTED}
    withdraw = kept["withdraw"]
    if host_wide:
        assert withdraw["trusted_cas"]["cas"][0]["action"] == "removed"
        assert withdraw["trusted_cas"]["cas"][0]["in_bundle"] is False
    else:
        assert sorted(item["name"] for item in withdraw["services"]["removed"]) == [CLIENT, REQUESTS]


def test_a_root_whose_intermediate_issued_the_certificate_is_proven_to_fix_it_and_does(host):
    # tasks/chain.yml: the server sends its certificate and the intermediate; only the root is given
    chain = lib.results(host)["chain"]
    [endpoint] = [e for e in chain["forecast"]["host_wide"]["endpoints"] if e["endpoint"] == "localhost:4444"]
    assert "pep493 issuing CA" in endpoint["peer"]["issuer"], endpoint["peer"]
    assert (endpoint["result"], endpoint["fixed_by"]) == ("untrusted", "pep493-chain-root"), endpoint
    trust = endpoint["trust"]
    assert (trust["matched_by"], trust["result"], trust["scope"]) == ("as the root of the chain the server sent", "ok", "host")
    # a real client, verification on: rejected, then connects with the root alone, rejected again
    phases = chain["phases"]
    assert [phases[name]["client"] for name in ("before", "trusted", "removed")] == [REJECTED, OK, REJECTED], phases
    assert [phases[name]["trust_changed"] for name in ("before", "trusted", "removed")] == [False, True, True]
