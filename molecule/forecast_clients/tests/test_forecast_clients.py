"""forecast_clients: the forecast's verdict for each client against what the client really got.

Each client's outcome before and after enforcing comes from its own log (clients_judge.py says
how); the rule there says which verdicts are right. The harness checks come first: the knob was
really off before and on after in every client process, every client has one outcome per
phase, and each endpoint is what its name says (as the standard library sees it, verifying).
"""

import pytest

import clients_judge as judge
import pep493_testlib as lib

DATA = judge.scenario()
CLIENTS = [judge.unit_of(c) for c in DATA["fc_clients"]]
# What a Python 2.7 standard-library client gets from each endpoint once it verifies. By IP
# address it fails the name check: Python 2.7's ssl.match_hostname reads only the DNS names of
# subjectAltName (IP addresses are matched from Python 3.5 on), so the certificate's IP:127.0.0.1
# does not help it.
ENDPOINT_KIND = {"trusted": "ok", "ip": "fail hostname_mismatch", "private": "fail verify_failed",
                 "self_signed": "fail verify_failed", "expired": "fail verify_failed",
                 "mismatch": "fail hostname_mismatch", "plain": "fail not_tls", "reset": "fail connection_reset",
                 "black_hole": "fail timeout"}


_LEGS = {}


def leg(host):
    """(what converge.yml kept, {unit: Row}) of this host's leg, read once."""
    name = lib.instance(host)
    if name not in _LEGS:
        kept = lib.results(host)
        _LEGS[name] = kept, {r.unit: r for r in judge.rows(kept, DATA)}
    return _LEGS[name]


def row(host, unit):
    return leg(host)[1][unit]


def processes(host, unit, which):
    kept = leg(host)[0]
    return judge.phase(judge.parse_logs(kept["logs"]).get(unit), kept["marks"], which)[2]


def test_the_knob_was_off_before_and_on_after_in_every_client_process(host):
    knob = leg(host)[0]["knob"]
    wrong = []
    for unit in CLIENTS:
        for which, default, variable in (("before", "no_verify", "0" if knob == "exception" else "unset"),
                                         ("after", "verify", "unset")):
            seen = [(p.get("stdlib_default"), p.get("PYTHONHTTPSVERIFY")) for p in processes(host, unit, which)]
            if not seen or set(seen) != {(default, variable)}:
                wrong.append((unit, which, seen))
    assert not wrong, wrong


def test_every_client_has_one_outcome_before_and_after(host):
    unclear = [(r.unit, r.before, r.after) for r in leg(host)[1].values() if r.judgement == judge.CANNOT_JUDGE]
    assert not unclear, unclear


def test_each_endpoint_is_what_its_name_says(host):
    rows = leg(host)[1].values()
    wrong = []
    for r in rows:
        if DATA["fc_libraries"][r.library]["governed"]:
            tls = DATA["fc_servers"][DATA["fc_endpoints"][r.endpoint]["server"]]["kind"] == "tls"
            if r.after != ENDPOINT_KIND[r.endpoint] or r.before != ("ok" if tls else ENDPOINT_KIND[r.endpoint]):
                wrong.append((r.unit, r.before, r.after))
    assert not wrong, wrong


@pytest.mark.parametrize("unit", CLIENTS)
def test_a_client_that_breaks_is_never_forecast_ok(host, unit):
    r = row(host, unit)
    assert r.judgement != judge.FAILS_OPEN, "%s: %s before, %s after enforcing, forecast %s (%s); endpoints: %s" % (
        r.client, r.before, r.after, r.verdict, r.why, r.saw)


@pytest.mark.parametrize("unit", CLIENTS)
def test_the_verdict_is_right(host, unit):
    r = row(host, unit)
    assert r.judgement in (judge.EXACT, judge.ALLOWED), "%s: %s before, %s after enforcing; forecast %s (%s), right: %s; endpoints: %s" % (
        r.client, r.before, r.after, r.verdict, r.why, "/".join(r.expected) or "-", r.saw)


@pytest.mark.parametrize("governed, before, after, verdict, why, judgement", [
    (True, "ok", "fail verify_failed", "would_break", "x", judge.EXACT),
    (True, "ok", "fail verify_failed", "unknown", "not seen", judge.ALLOWED),
    (True, "ok", "fail verify_failed", "unknown", "", judge.WRONG),
    (True, "ok", "fail hostname_mismatch", "ok", "every endpoint passes", judge.FAILS_OPEN),
    (False, "ok", "fail verify_failed", "unaffected", "requests", judge.FAILS_OPEN),
    (True, "ok", "fail verify_failed", None, None, judge.FAILS_OPEN),
    (True, "ok", "fail verify_failed", "already_failing", "x", judge.WRONG),
    (False, "fail verify_failed", "fail verify_failed", "already_failing", "x", judge.EXACT),
    (False, "fail verify_failed", "fail verify_failed", "ok", "x", judge.WRONG),
    (False, "fail verify_failed", "fail verify_failed", "unaffected", "x", judge.ALLOWED),
    (True, "fail verify_failed", "fail verify_failed", "unaffected", "x", judge.WRONG),
    (False, "fail verify_failed", "fail verify_failed", "would_break", "x", judge.WRONG),
    (True, "fail not_tls", "fail not_tls", "unknown", "no TLS", judge.ALLOWED),
    (True, "ok", "ok", "ok", "x", judge.EXACT),
    (True, "ok", "ok", "unaffected", "x", judge.WRONG),
    (False, "ok", "ok", "unaffected", "x", judge.EXACT),
    (False, "ok", "ok", "ok", "x", judge.EXACT),
    (False, "ok", "ok", "would_break", "x", judge.WRONG),
    (True, "fail timeout", "fail verify_failed", "already_failing", "x", judge.ALLOWED),
    (True, "fail timeout", "fail verify_failed", "ok", "x", judge.WRONG),
    (True, "fail timeout", "ok", "ok", "x", judge.WRONG),
    (True, None, "ok", "ok", "x", judge.CANNOT_JUDGE),
])
def test_the_rule(governed, before, after, verdict, why, judgement):
    """The rule itself, on made-up outcomes (no host involved)."""
    assert judge.judge(governed, before, after, verdict, why)[1] == judgement
