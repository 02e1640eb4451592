"""Audit results of a generated fleet, for the fleet report at scale (no host is touched).

    python tests/report/fleet.py HOSTS TODAY OUT.json [--seed N] [--slice I/N] [--also FROM:TO]

writes OUT.json: {"hosts": [names], "audits": {name: pep493_https_status}, "forecasts": {name:
pep493_https_forecast_result}} for HOSTS hosts, the facts the policy role's audit entry point and the
forecast playbook set, as of TODAY (YYYY-MM-DD). The mix is fixed (a seeded generator): mostly
compliant hosts; hosts with 5 or 50 exceptions, some ending within 30 days and a few expired (whose
services still run unverified); pending restarts; a cfg that says disable (Python 2 does not verify)
or platform_default; hosts without Python 2 nor a cfg file; hosts without a result, some with a long
multi-line SSH error; a forecast of some hosts, a few with services that would break. The names depend on HOSTS only; --seed gives the same hosts
other results (a later audit). --slice I/N keeps every Nth host from the Ith (0-based), as a job
slice would; --also FROM:TO adds the hosts FROM to TO-1 of the whole fleet to the slice.
"""

import argparse
import datetime
import json
import random

CFG = "/etc/python/cert-verification.cfg"
SSH_ERROR = ("Failed to connect to the host via ssh: ssh: connect to host {0} port 22: Connection timed out\r\n"
             "kex_exchange_identification: read: Connection reset by peer\r\nConnection reset by 10.0.0.1 port 22 "
             "(the host may be down, a firewall may drop the packets, or sshd may refuse connections)")


def service(rng, name, today, days=None, **kw):
    expires = None if days is None else (today + datetime.timedelta(days=days)).isoformat()
    data = dict(unit=name + ".service", value="0", source="/etc/systemd/system/%s.service.d/pep493-https.conf" % name,
                managed=days is not None, reason="vendor agent pins an old CA" if days is not None else None,
                expires=expires, expired=days is not None and days < 0, effective=True, pending_restart=False,
                main_pid=rng.randint(300, 30000), running_value="0")
    data.update(kw)
    return data


def host_status(rng, name, today):
    roll = rng.random()
    verdict = dict(state="compliant", compliant=True, reasons=[], warnings=[])
    services, findings, verify, python2 = [], [], "enable", True
    if roll < 0.05:
        if rng.random() < 0.2:
            return dict(error=SSH_ERROR.format(name))
        return None
    if roll < 0.13:
        verify = "disable"
        verdict = dict(state="non_compliant", compliant=False, warnings=[],
                       reasons=["cfg says verify=disable; the policy says enable"])
        findings.append("%s says verify=disable: every Python 2 program that reads it skips certificate checks." % CFG)
    elif roll < 0.18:
        services.append(service(rng, "legacy-agent", today, 200, pending_restart=True, running_value=None))
        verdict = dict(state="pending_restart", compliant=True, reasons=[], warnings=[])
        findings.append("legacy-agent.service: the running process has PYTHONHTTPSVERIFY=unset; restart it.")
    elif roll < 0.20:
        verify, python2 = "missing", False
        verdict = dict(state="non_compliant", compliant=False, warnings=[],
                       reasons=["%s does not exist, the policy says verify=enable" % CFG])
    elif roll < 0.23:
        verify = "platform_default"
        verdict = dict(state="non_compliant", compliant=False, warnings=[],
                       reasons=["%s says verify=platform_default, the policy says verify=enable" % CFG])
    if roll >= 0.70 or (0.13 <= roll < 0.18):
        count = 50 if rng.random() < 0.04 else 5
        for n in range(count):
            days = rng.choice([0, 3, 17, 29, 30, 31, 45, 120, 200, 400, 400, 400, 400, 400])
            if rng.random() < 0.01:
                days = rng.choice([-12, -1])
            services.append(service(rng, "app%02d" % n, today, days))
        if any(s["expired"] for s in services):
            verdict = dict(state="non_compliant", compliant=False, warnings=[],
                           reasons=["%s: the exception expired" % s["unit"] for s in services if s["expired"]])
        elif verdict["state"] == "compliant":
            verdict = dict(state="compliant_with_exceptions", compliant=True, reasons=[], warnings=[])
    policy = dict(verify="enable")
    if 0.70 <= roll < 0.73:
        # an exception of the inventory that expired before it was ever deployed: in the plan only
        policy["expired"] = [dict(name="retired-agent.service", verify=False, reason="vendor agent until its upgrade",
                                  expires=(today - datetime.timedelta(days=40)).isoformat())]
    elif 0.73 <= roll < 0.76 and services and services[0]["managed"]:
        # a hand-made override later covered by a policy exception, still in place beside it
        first = services[0]
        first.update(dropin=first["source"], mentioned_in=sorted([first["source"], "/etc/systemd/system/%s.d/override.conf"
                                                                  % first["unit"]]))
    interpreters = [dict(path="/usr/bin/python3", version="3.11.2", verifies_by_default=True, reads_config=None,
                         honours_env=False)]
    if python2:
        interpreters.insert(0, dict(path="/usr/bin/python2.7", version="2.7.18", verifies_by_default=verify != "disable",
                                    reads_config=CFG, honours_env=True))
    info = dict(config=dict(path=CFG, verify=verify, valid=True, exists=verify != "missing"), services=services,
                interpreters=interpreters,
                summary=dict(host_default=verify != "disable" if python2 else None, findings=findings,
                             python2_interpreters=1 if python2 else 0))
    return dict(info=info, policy=policy, compliance=verdict)


ENDPOINTS = ["10.0.4.7:636", "ldap.corp.example:636", "repo.corp.example:443"]
RESULTS = {"untrusted": "trust its CA or this certificate", "expired": "renew the certificate",
           "hostname_mismatch": "fix the certificate or the name the service connects to"}


def forecast_result(rng, today):
    """A forecast of one host: mostly nothing would break, sometimes one or two services would."""
    breaks, granted = [], []
    if rng.random() < 0.4:
        for n in range(rng.choice([1, 1, 2])):
            result = rng.choice(sorted(RESULTS))
            unit = "legacy-agent%d.service" % n
            breaks.append(dict(service=unit, endpoint=rng.choice(ENDPOINTS), result=result,
                               issuer="commonName=Corp Private CA" if result == "untrusted" else None,
                               error="certificate verify failed", advice=RESULTS[result]))
            if rng.random() < 0.5:
                granted.append(dict(name=unit, verify=False, reason="forecast: would break",
                                    expires=(today + datetime.timedelta(days=30)).isoformat()))
    return dict(breaks=breaks, granted=granted, removed=[], problems=[], warnings=[])


def fleet(count, today, seed=493, part=None, also=None):
    rng = random.Random(493)
    names = ["%s-%d" % (rng.choice(["web", "db", "app", "ci", "agent"]), n) for n in range(1, count + 1)]
    if part:
        first, step = part
        chosen = set(names[first::step] + (names[also[0]:also[1]] if also else []))
        names = [name for name in names if name in chosen]
    rng, forecasting = random.Random(seed), random.Random(seed + 1)
    audits, forecasts = {}, {}
    for name in names:
        status = host_status(rng, name, today)
        if status is not None:
            audits[name] = status
            if forecasting.random() < 0.15:
                forecasts[name] = forecast_result(forecasting, today)
    return dict(hosts=names, audits=audits, forecasts=forecasts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hosts", type=int)
    parser.add_argument("today", type=datetime.date.fromisoformat)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=493)
    parser.add_argument("--slice", type=lambda text: tuple(int(n) for n in text.split("/")))
    parser.add_argument("--also", type=lambda text: tuple(int(n) for n in text.split(":")))
    args = parser.parse_args()
    with open(args.out, "w") as handle:
        json.dump(fleet(args.hosts, args.today, args.seed, args.slice, args.also), handle)


if __name__ == "__main__":
    main()
