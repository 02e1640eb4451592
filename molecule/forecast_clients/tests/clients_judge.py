"""forecast_clients: what each client really got, and which verdicts that makes right.

Everything here works on what converge.yml kept (molecule/shared/tasks/keep-results.yml): the
container's clock at each step (``marks``), the forecast's whole result and the clients' own
logs (files/clients/pep493_client.py: a ``start`` line per process, one line per attempt). Nothing here
asks the forecast how it reached a verdict: the clients' logs are the truth it is judged by.

A client's outcome in a phase is what all its attempts in that phase got: ``ok``, or
``fail <kind>`` (the kind the client itself read from its error). Phases:

* before: the attempts made before the forecast started, by the processes running then (each
  started with the knob off);
* after: every attempt of the processes started by the restart after enforcing.

The rule (``judge``), from the (before, after) outcomes:

* ok -> fail: ``would_break``; ``unknown`` with a why is allowed; ``ok``, ``unaffected`` or no
  verdict at all *fails open*, which is never allowed.
* fail -> fail, the same kind: ``already_failing``; ``unknown`` with a why is allowed, and so is
  ``unaffected`` for a library the knobs do not govern (enforcing changes nothing for it, which is
  true whether or not the forecast saw it fail).
* ok -> ok: ``ok``; ``unaffected`` too for a library the knobs do not govern (requests, urllib3,
  raw ssl: vars/clients.yml ``governed: false``); ``unknown`` with a why is allowed.
* fail -> fail of another kind, or fail -> ok: enforcing changed something the rule has no exact
  verdict for; ``already_failing``, ``would_break`` (fail -> fail) or ``unknown`` with a why are
  accepted, and the row says so.
* an outcome that is not one result (no attempt, or attempts that disagree) cannot be judged: the
  row says so and the verifier fails on it as a harness problem, not as the forecast's.
"""

import collections
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.dirname(HERE)
OK = "ok"
EXACT, ALLOWED, WRONG, FAILS_OPEN, CANNOT_JUDGE = "exact", "right", "WRONG", "WRONG, FAILS OPEN", "cannot judge"

Row = collections.namedtuple("Row", "unit client library endpoint seen before after verdict why saw expected judgement note")


def scenario():
    """vars/clients.yml: servers, endpoints, libraries, clients."""
    with open(os.path.join(SCENARIO, "vars", "clients.yml")) as handle:
        return yaml.safe_load(handle)


def unit_of(client):
    return "pep493-cl-%s-%s" % (client["library"], client["endpoint"])


def parse_logs(text):
    """{unit: {pid: {"start": time, "stdlib_default": ..., "env": ..., "attempts": [(time, outcome, text)]}}}
    from the output of `grep -rH '' /var/log/pep493-clients`."""
    found = {}
    for raw in text.splitlines():
        path, _sep, line = raw.partition(":")
        unit = os.path.basename(path)
        if unit.endswith(".log"):
            unit = unit[:-len(".log")]
        fields = line.split(" ", 3)
        if len(fields) < 3:
            continue
        stamp, pid, event = float(fields[0]), int(fields[1]), fields[2]
        rest = fields[3] if len(fields) > 3 else ""
        process = found.setdefault(unit, {}).setdefault(pid, {"start": None, "attempts": []})
        if event == "start":
            process["start"] = stamp
            for pair in rest.split():
                name, _eq, value = pair.partition("=")
                process[name] = value
        elif event == OK:
            process["attempts"].append((stamp, OK, rest))
        else:
            kind, _sp, text = rest.partition(" ")
            process["attempts"].append((stamp, "fail " + kind, text))
    return found


def phase(processes, marks, which):
    """(outcome or None, attempts, processes) of one phase; outcome None when it cannot be judged."""
    chosen, attempts = [], []
    forecast, restart = float(marks["forecast"]), float(marks["restart"])
    for pid, process in sorted((processes or {}).items()):
        start = process["start"]
        if start is None:
            continue
        if which == "before" and start < forecast:
            chosen.append(dict(process, pid=pid))
            attempts += [a for a in process["attempts"] if a[0] < forecast]
        elif which == "after" and start > restart:
            chosen.append(dict(process, pid=pid))
            attempts += process["attempts"]
    outcomes = sorted(set(a[1] for a in attempts))
    return (outcomes[0] if len(outcomes) == 1 else None), attempts, chosen


def show_outcome(outcome, attempts):
    if outcome is not None:
        return outcome
    if not attempts:
        return "no attempt"
    return "mixed: " + ", ".join("%s x%d" % (o, sum(1 for a in attempts if a[1] == o)) for o in sorted(set(a[1] for a in attempts)))


def judge(governed, before, after, verdict, why):
    """(expected, judgement, note) for one client; before/after are outcomes, None when unclear."""
    has_why = bool((why or "").strip())
    unknown_ok = verdict == "unknown" and has_why
    if before is None or after is None:
        return (), CANNOT_JUDGE, "its outcome is not one result"
    if before == OK and after != OK:
        expected = ("would_break",)
        if verdict in (None, "ok", "unaffected"):
            return expected, FAILS_OPEN, ""
    elif before != OK and before == after:
        expected = ("already_failing",)
        if not governed and verdict == "unaffected":
            # true of a library the knobs do not govern: enforcing changes nothing for it; only
            # that it already fails went unseen (its connections were not caught while watched)
            return expected, ALLOWED, "unaffected: true, its failure unseen"
    elif before == OK and after == OK:
        expected = ("ok",) if governed else ("ok", "unaffected")
    else:
        accepted = ("already_failing", "would_break") if after != OK else ()
        note = "no exact verdict: enforcing %s" % ("changed how it fails" if after != OK else "made it work")
        if verdict in accepted or unknown_ok:
            return (), ALLOWED, note
        return (), WRONG, note
    if verdict in expected:
        return expected, EXACT, ""
    if unknown_ok:
        return expected, ALLOWED, "unknown with a why"
    if verdict == "unknown":
        return expected, WRONG, "unknown without a why"
    return expected, WRONG, ""


def endpoint_summary(entry):
    """What the forecast saw of a service's endpoints, e.g. "observed ok (name unchecked)"."""
    shown = []
    for endpoint in (entry or {}).get("endpoints") or []:
        text = "%s %s" % (endpoint.get("source"), endpoint.get("result") or "not probed")
        if endpoint.get("result") and not endpoint.get("hostname_checked"):
            text += " (name unchecked)"
        shown.append(text)
    return "; ".join(shown) or "none"


def rows(kept, data=None):
    """One Row per client of a leg, from what converge.yml kept for that leg."""
    data = data or scenario()
    logs = parse_logs(kept["logs"])
    services = dict((s["service"], s) for s in kept["forecast"]["services"])
    found = []
    for client in data["fc_clients"]:
        unit = unit_of(client)
        library = data["fc_libraries"][client["library"]]
        before, before_attempts, _p = phase(logs.get(unit), kept["marks"], "before")
        after, after_attempts, _p = phase(logs.get(unit), kept["marks"], "after")
        entry = services.get(unit + ".service")
        verdict = entry["verdict"] if entry else None
        why = entry.get("why") if entry else None
        expected, judgement, note = judge(library["governed"], before, after, verdict, why)
        found.append(Row(unit=unit, client="%s-%s" % (client["library"], client["endpoint"]),
                         library=client["library"], endpoint=client["endpoint"], seen=client["seen"],
                         before=show_outcome(before, before_attempts), after=show_outcome(after, after_attempts),
                         verdict=verdict or "(not forecast)", why=why or "", saw=endpoint_summary(entry),
                         expected=expected, judgement=judgement, note=note))
    return found


def counts(leg_rows):
    tally = collections.Counter(r.judgement for r in leg_rows)
    return dict(total=len(leg_rows), exact=tally[EXACT], right=tally[EXACT] + tally[ALLOWED],
                wrong=tally[WRONG] + tally[FAILS_OPEN], fails_open=tally[FAILS_OPEN], cannot_judge=tally[CANNOT_JUDGE])


def show_judgement(r):
    exact = "/".join(r.expected)
    if r.judgement == EXACT:
        return EXACT
    if r.judgement == ALLOWED:
        return "right: %s%s" % (r.note, " (exact: %s)" % exact if exact else "")
    if r.judgement == CANNOT_JUDGE:
        return "%s: %s" % (CANNOT_JUDGE, r.note)
    return "%s (right: %s%s)" % (r.judgement, exact or "unknown with a why", "; " + r.note if r.note else "")


def table(leg, kept, leg_rows):
    """The leg's table, in Markdown."""
    c = counts(leg_rows)
    knob = {"exception": "each client had a PYTHONHTTPSVERIFY=0 exception drop-in",
            "cfg": "the cfg file said verify=disable"}.get(kept.get("knob"), kept.get("knob"))
    lines = ["## %s (before enforcing: %s)" % (leg, knob), "",
             "exact %(exact)d/%(total)d, right %(right)d/%(total)d, wrong %(wrong)d (failing open: %(fails_open)d), "
             "cannot judge %(cannot_judge)d" % c, "",
             "| client | library | endpoint | seen | before | after | verdict | forecast saw | right? |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in leg_rows:
        cells = (r.client, r.library, r.endpoint, r.seen, r.before, r.after, r.verdict, r.saw, show_judgement(r))
        lines.append("| %s |" % " | ".join(cells))
    lines.append("")
    return "\n".join(lines)
