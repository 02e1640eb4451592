"""forecast: the verdicts of verification_forecast against what the services then do.

Three Python 2 pollers log one line per second (time, "ok" or "fail ..."). converge.yml marks
each phase with the container's clock; the logs between the marks show what really happened.
"""

import pep493_testlib as lib

FIXTURE, TRUSTED, MISMATCH = "pep493-poll-fixture", "pep493-poll-trusted", "pep493-poll-mismatch"
PREDICTED = {FIXTURE: ("would_break", "untrusted"), TRUSTED: ("ok", "ok"),
             MISMATCH: ("would_break", "hostname_mismatch")}
LAST = 2.5          # seconds at the end of a phase whose log lines are looked at


def verdicts(forecast):
    found = {}
    for entry in forecast["services"]:
        declared = [e for e in entry["endpoints"] if e["source"] == "declared"]
        found[entry["service"][:-len(".service")]] = (entry["verdict"], declared[0]["result"] if declared else None)
    return found


def log(host, unit, start, end):
    """The results a poller logged between start and end (container clock)."""
    lines = host.file("/var/log/%s.log" % unit).content_string.splitlines()
    found = []
    for line in lines:
        stamp, _sep, result = line.partition(" ")
        if start <= float(stamp) <= end:
            found.append(result.split(" ", 1)[0])
    return found


def test_the_forecast_names_each_service_endpoint_and_failure(host):
    forecast = lib.results(host)["forecast"]
    found = verdicts(forecast)
    assert {u: found.get(u) for u in PREDICTED} == PREDICTED
    fixture = [e for e in forecast["services"] if e["service"] == FIXTURE + ".service"][0]
    assert fixture["interpreter"] == "/usr/bin/python2.7" and fixture["python_version"].startswith("2.7")
    assert fixture["verifies_today"] is False
    assert fixture["endpoints"][0]["peer"]["issuer"] == "commonName=pep493 test fixture CA"


def test_before_enforcing_every_poller_works(host):
    phases = lib.results(host)["phases"]
    for unit in PREDICTED:
        before = log(host, unit, 0, phases["warn"]["start"])
        assert before and set(before) == {"ok"}, (unit, before)


def test_fail_changes_nothing_and_names_service_and_endpoint(host):
    kept = lib.results(host)
    assert kept["fail"]["failed"] is True
    assert kept["before_fail"] == kept["after_fail"]
    assert kept["fail"]["msg"].startswith("Predicted breaks, nothing was changed:")
    assert "pep493-poll-fixture.service would break on localhost:4443 (untrusted" in kept["fail"]["msg"]
    assert "pep493-poll-mismatch.service would break on localhost:4445 (hostname_mismatch" in kept["fail"]["msg"]
    assert TRUSTED not in kept["fail"]["msg"]


def test_with_warn_the_logs_fail_exactly_where_predicted(host):
    warn = lib.results(host)["phases"]["warn"]
    for unit, (verdict, _result) in PREDICTED.items():
        tail = log(host, unit, warn["end"] - LAST, warn["end"])
        assert tail, unit
        expected = {"fail"} if verdict == "would_break" else {"ok"}
        assert set(tail) == expected, (unit, tail)
    assert set(log(host, TRUSTED, warn["start"], warn["end"])) == {"ok"}


def test_with_except_the_services_keep_working_with_the_predicted_reason(host):
    kept = lib.results(host)["phases"]["except"]
    for unit in PREDICTED:
        tail = log(host, unit, kept["end"] - LAST, kept["end"])
        assert tail and set(tail) == {"ok"}, (unit, tail)
    granted = {g["name"]: g for g in kept["forecast"]["granted"]}
    assert sorted(granted) == [FIXTURE + ".service", MISMATCH + ".service"]
    assert granted[MISMATCH + ".service"]["reason"].startswith(
        "forecast: would break on localhost:4445 (hostname_mismatch")


def test_once_the_ca_is_trusted_the_automatic_exception_goes_and_the_service_verifies(host):
    kept = lib.results(host)
    assert verdicts(kept["forecast_trusted"])[FIXTURE] == ("ok", "ok")
    trusted = kept["phases"]["trusted"]
    assert trusted["forecast"]["removed"] == [{"name": FIXTURE + ".service", "state": "absent"}]
    lib.assert_no_dropin(host, FIXTURE)
    tail = log(host, FIXTURE, trusted["end"] - LAST, trusted["end"])
    assert tail and set(tail) == {"ok"}, tail
    # the mismatch keeps its automatic exception, with the date it was first given
    first = kept["phases"]["except"]["forecast"]["granted"]
    mismatch = [g for g in first if g["name"] == MISMATCH + ".service"][0]
    lib.assert_dropin(host, MISMATCH, "0", reason="forecast: would break on localhost:4445",
                      expires=mismatch["expires"])
