# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report (controller only): one entry per host from its audit (and its forecast),
hosts ranked by risk, days left per exception; and one report merged from several (job slices,
controllers, days). Raises ReportError, naming the input, for what it cannot read.

The ranking (``risk``): first the hosts where a running Python 2 does not verify (``unverified``:
a Python 2 that does not verify by default, a host-wide ``PYTHONHTTPSVERIFY=0``, a service whose
running Python 2 process has it without a valid exception), then those where the forecast says a
service would break once it verifies (``would_break``, each break saying what a CA of the policy that
names the issuer did not fix; ``fixed_by_ca`` lists what such a CA is proven to fix), then those with an exception in effect
that ends within the warning window, then the rest; within a rank by state (WORST_FIRST), then
(expiring hosts) by the exception that ends soonest, then by name."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re
from collections.abc import Mapping

from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as rules
from ansible_collections.pep493.https.plugins.plugin_utils import report_source
from ansible_collections.pep493.https.plugins.plugin_utils.policy_plan import PolicyError, as_date

STATES = rules.STATES


class ReportError(ValueError):
    """A report, a source or an option the fleet report cannot be made from."""


REPORT_SCHEMA_VERSION = 3


# Within a rank of risk, the hosts that need a person first.
WORST_FIRST = ('non_compliant', 'unreachable', 'pending_restart', 'compliant_with_exceptions', 'compliant')

# The ranks of risk, the highest first.
UNVERIFIED, WOULD_BREAK, EXPIRING, OTHER = 1, 2, 3, 4
STATE_LABELS = dict(compliant='Compliant', compliant_with_exceptions='Compliant, with exceptions',
                    pending_restart='Restart pending', non_compliant='Not compliant', unreachable='No audit result')
WHY_LIMIT = 200


EXPIRY_WARNING_DAYS = 30


def _service_name(service):
    return unit_names.canonical(service.get('unit') or service.get('name') or '?')


def _host_entry(host, audit, forecast, day, warning_days):
    unreachable = isinstance(audit, dict) and (audit.get('compliance') or {}).get('state') == 'unreachable'
    # a policy the audit entry point refused (audit_status) has no verdict: the audit failed, as with rescue
    refused = isinstance(audit, dict) and audit.get('problems')
    if not isinstance(audit, dict) or not isinstance(audit.get('info'), dict) or unreachable or refused:
        error = audit.get('error') if isinstance(audit, dict) else None
        if refused:
            error = 'Policy refused, nothing was changed: %s' % '; '.join(audit['problems'])
        if unreachable:
            reasons = list(audit['compliance'].get('reasons') or []) or ['no audit result']
        elif error:
            reasons = ['the audit failed: %s' % error]
        else:
            reasons = ['no audit result (the host was unreachable or the audit did not run on it)']
        entry = dict(host=host, state='unreachable', compliant=False, reasons=reasons,
                     warnings=[], verify=None, expected_verify=None, host_default=None, interpreters=[],
                     exceptions=[], expired=[], ineffective=[], pending_restart=[], findings=[],
                     counts=dict(exceptions=0, expired=0, expiring=0, pending_restart=0, ineffective=0),
                     unverified=[], would_break=_would_break(forecast), fixed_by_ca=_fixed_by_ca(forecast))
        entry.update(_audited(audit))
        entry['risk'] = risk(entry, warning_days)
        return entry
    info, verdict = audit['info'], audit.get('compliance') or {}
    services = info.get('services') or []
    summary = info.get('summary') or {}

    def row(service):
        return dict(unit=_service_name(service), value=service.get('value'),
                    source=service.get('source') or service.get('file') or service.get('path'),
                    managed=bool(service.get('managed')), reason=service.get('reason'),
                    expires=service.get('expires'), expired=bool(service.get('expired')),
                    effective=service.get('effective'), pending_restart=bool(service.get('pending_restart')),
                    days_left=_days_left(service.get('expires'), day), foreign=_foreign(service))
    rows = [row(s) for s in services]
    interpreters = [dict(path=i.get('path'), version=i.get('version'),
                         verifies_by_default=i.get('verifies_by_default'), reads_config=i.get('reads_config'),
                         honours_env=i.get('honours_env'))
                    for i in info.get('interpreters') or [] if isinstance(i, dict)]
    entry = dict(
        host=host,
        state=verdict.get('state', 'non_compliant'),
        compliant=bool(verdict.get('compliant')),
        reasons=list(verdict.get('reasons') or []),
        warnings=list(verdict.get('warnings') or []),
        verify=(info.get('config') or {}).get('verify'),
        expected_verify=(audit.get('policy') or {}).get('verify'),
        host_default=summary.get('host_default'),
        interpreters=interpreters,
        exceptions=[r for r in rows if r['value'] is not None and str(r['value']) == '0'],
        expired=[r for r in rows if r['expired']] + _never_deployed(audit, rows, day),
        ineffective=[r for r in rows if r['effective'] is False and r['value'] is not None],
        pending_restart=[r['unit'] for r in rows if r['pending_restart']],
        findings=[str(f) for f in summary.get('findings') or []],
        unverified=_unverified(info, audit.get('policy') or {}),
        would_break=_would_break(forecast),
        fixed_by_ca=_fixed_by_ca(forecast),
    )
    entry['counts'] = dict(exceptions=len(entry['exceptions']), expired=len(entry['expired']),
                           expiring=len([r for r in entry['exceptions'] if _expiring(r, warning_days)]),
                           pending_restart=len(entry['pending_restart']), ineffective=len(entry['ineffective']))
    entry.update(_audited(audit))
    entry['risk'] = risk(entry, warning_days)
    return entry


def _audited(audit):
    """``audited``: when the host's result was made, when the result says (a real UTC time)."""
    when = audit.get('audited') if isinstance(audit, Mapping) else None
    try:
        return dict(audited=report_source.utc_time(when, 'audited').strftime(report_source.TIME_FORMAT))
    except report_source.SourceError:
        return {}


def _unverified(info, policy):
    """Where a running Python 2 on the host does not verify, one line each: a Python 2 that does not
    verify by default, a host-wide PYTHONHTTPSVERIFY=0 (unless the host is known to have no Python
    2), a service whose running Python 2 process has it without a valid exception."""
    summary = info.get('summary') or {}
    no_python2 = summary.get('python2_interpreters') == 0
    found = ['%s (Python %s) does not verify HTTPS certificates by default' % (i.get('path'), i.get('version'))
             for i in info.get('interpreters') or []
             if isinstance(i, Mapping) and str(i.get('version') or '').startswith('2.') and i.get('verifies_by_default') is False]
    if not no_python2:
        found.extend('PYTHONHTTPSVERIFY=0 is set host-wide in %s' % where for where in rules.global_optouts(info.get('global') or {}))
    if summary.get('host_default') is False and not found:
        found.append('a Python 2 program on this host does not verify HTTPS certificates by default')
    allowed = policy.get('exceptions') if isinstance(policy.get('exceptions'), list) else None
    for service in info.get('services') or []:
        value = service.get('running_value')
        if value is None or not hostwide.disables(str(value)) or service.get('effective') is False:
            continue
        if service.get('effective') is None and no_python2:
            continue
        why = _not_exempt(service, allowed)
        if why:
            found.append('%s %s Python 2 with PYTHONHTTPSVERIFY=0 (process %s) and %s'
                         % (_service_name(service), 'runs' if service.get('effective') else 'may run',
                            service.get('main_pid'), why))
    return found


def _not_exempt(service, allowed):
    """Why the service has no valid exception to run unverified, or None when it has one: the policy
    (``allowed``: its exceptions; None when the audit does not give them, then the collection's own
    drop-in stands for it) keeps it unverified and the exception is not past its date."""
    if service.get('expired'):
        return 'its exception expired on %s' % service.get('expires')
    if allowed is None:
        return None if service.get('managed') else 'no exception'
    name = _service_name(service)
    for item in allowed:
        if isinstance(item, Mapping) and item.get('name') and unit_names.canonical(str(item['name'])) == name:
            return None if item.get('verify') is False else 'an exception of the policy that says verify'
    return 'an exception the policy does not give' if service.get('managed') else 'no exception'


def _would_break(forecast):
    """The predicted breaks of a host's forecast (``pep493_https_forecast_result``), each with the
    last day of its automatic exception (``until``), if it got one; None when it was not forecast."""
    if not isinstance(forecast, Mapping):
        return None
    until = dict((unit_names.canonical(str(item['name'])), item.get('expires'))
                 for item in forecast.get('granted') or [] if isinstance(item, Mapping) and item.get('name'))
    return [dict(service=b.get('service'), endpoint=b.get('endpoint'), result=b.get('result'), issuer=b.get('issuer'),
                 advice=b.get('advice'), until=until.get(unit_names.canonical(str(b['service']))) if b.get('service') else None,
                 unfixed=_one_line(b['unfixed'].lstrip('; ')) if b.get('unfixed') else None)
            for b in forecast.get('breaks') or [] if isinstance(b, Mapping)]


def _fixed_by_ca(forecast):
    """What the CAs of the policy are proven to fix on a host (``fixed`` of its forecast): each
    service (None: the host-wide scripts), the CAs' names and the endpoints; None when it was not
    forecast."""
    if not isinstance(forecast, Mapping):
        return None
    return [dict(service=item.get('service'), fixed_by=[str(name) for name in item.get('fixed_by') or []],
                 endpoints=[str(e) for e in item.get('endpoints') or []])
            for item in forecast.get('fixed') or [] if isinstance(item, Mapping) and item.get('fixed_by')]


def _one_line(text):
    line = (str(text).splitlines() or [''])[0]
    return line if len(line) <= WHY_LIMIT else line[:WHY_LIMIT - 3] + '...'


def risk(entry, warning_days):
    """The host's rank of risk (UNVERIFIED, WOULD_BREAK, EXPIRING, OTHER) and why, in one line."""
    if entry['unverified']:
        more = len(entry['unverified']) - 1
        return dict(rank=UNVERIFIED, why=_one_line(entry['unverified'][0] + (' (and %d more)' % more if more else '')))
    if entry['would_break']:
        services = set(b['service'] for b in entry['would_break'])
        first = entry['would_break'][0]
        return dict(rank=WOULD_BREAK, why=_one_line('%d service%s would break once %s: %s on %s (%s%s)' % (
            len(services), '' if len(services) == 1 else 's', 'it verifies' if len(services) == 1 else 'they verify',
            first['service'] or 'a host-wide script', first['endpoint'], first['result'],
            ', issuer %s' % first['issuer'] if first['issuer'] else '')))
    ending = sorted((r for r in entry['exceptions'] if _expiring(r, warning_days)), key=lambda r: r['days_left'])
    if ending:
        first, more = ending[0], len(ending) - 1
        when = 'today' if first['days_left'] == 0 else 'in %d day%s' % (first['days_left'], '' if first['days_left'] == 1 else 's')
        return dict(rank=EXPIRING, why=_one_line("%s's exception ends %s (%s)%s" % (
            first['unit'], when, first['expires'], ' and %d more within %d days' % (more, warning_days) if more else '')))
    reasons = entry['reasons']
    if entry['state'] == 'unreachable' and reasons:
        text = str(reasons[0])
        return dict(rank=OTHER, why=_one_line(text[:1].upper() + text[1:]))
    label = STATE_LABELS.get(entry['state'], entry['state'])
    return dict(rank=OTHER, why=_one_line('%s: %s' % (label, reasons[0]) if reasons else label))


def _foreign(service):
    """The files other than the collection's drop-in that set PYTHONHTTPSVERIFY for a service that
    has one (a hand-made override still in place beside the policy exception); [] otherwise."""
    ours = service.get('dropin')
    if not service.get('managed') or not ours:
        return []
    found = list(service.get('mentioned_in') or [])
    if service.get('source') and service.get('source') not in found:
        found.append(service['source'])
    return sorted(set(str(path) for path in found if path and path != ours))


def _never_deployed(audit, rows, day):
    """The expired exceptions of the host's inventory (the role's plan) that have no drop-in of the
    collection on the host: they expired before they were deployed (or their drop-in is gone)."""
    on_host = set(r['unit'] for r in rows if r['managed'])
    found = []
    for item in (audit.get('policy') or {}).get('expired') or []:
        if not isinstance(item, Mapping) or not item.get('name'):
            continue
        unit = unit_names.canonical(item['name'])
        if unit in on_host:
            continue
        on_host.add(unit)
        expires = str(item['expires']) if item.get('expires') else None
        found.append(dict(unit=unit, value=None, source=None, managed=False, reason=item.get('reason'),
                          expires=expires, expired=True, effective=None, pending_restart=False,
                          days_left=_days_left(expires, day), foreign=[], deployed=False))
    return found


def _days_left(expires, day):
    """Days from ``day`` to an exception's last valid day (0: it ends today; negative: expired)."""
    try:
        return (as_date(expires) - day).days if expires else None
    except PolicyError:
        return None


def _expiring(row, warning_days):
    """An exception in effect that ends within ``warning_days`` days."""
    return not row['expired'] and row['days_left'] is not None and 0 <= row['days_left'] <= warning_days


def _natural(name):
    """web-2 before web-10."""
    return [(0, int(part), '') if part.isdigit() else (1, 0, part) for part in re.split(r'(\d+)', name.lower())]


def _by_risk(entry, warning_days):
    rank = entry['risk']['rank']
    soonest = min(r['days_left'] for r in entry['exceptions'] if _expiring(r, warning_days)) if rank == EXPIRING else 0
    return (rank, WORST_FIRST.index(entry['state']) if entry['state'] in WORST_FIRST else -1, soonest,
            _natural(entry['host']))


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def _report_day(generated):
    """The UTC date the report is made on: the date of ``generated``, or today."""
    if generated:
        try:
            return as_date(str(generated)[:10])
        except PolicyError:
            raise ReportError('generated: %r is not a time as YYYY-MM-DDTHH:MM:SSZ' % (generated,))
    return dates.today()


def _warning_days(value):
    try:
        days = int(value)
        if days < 0 or isinstance(value, bool) or str(value).strip() != str(days):
            raise ValueError(value)
    except (TypeError, ValueError):
        raise ReportError('pep493_https_expiry_warning_days: %r is not a whole number of days (0 or more)'
                          % (value,))
    return days


def fleet_report(hosts, audits, generated=None, warning_days=EXPIRY_WARNING_DAYS, forecasts=None, since=None):
    """The fleet report: ``hosts`` (inventory names), ``audits`` (host -> ``pep493_https_status``
    fact, or ``hostvars``) and ``forecasts`` (host -> ``pep493_https_forecast_result``; from
    ``hostvars`` when not given), hosts ranked by risk; days left per exception as of ``generated``.
    With ``since`` (UTC text), a result made before it - one a fact cache kept from an earlier
    run - is no result of this run."""
    day = _report_day(generated)
    warning_days = _warning_days(warning_days)
    try:
        since = report_source.utc_time(since, 'since') if since is not None else None
    except report_source.SourceError as exc:
        raise ReportError(str(exc))
    entries = []
    for host in hosts:
        try:
            host_vars = audits[host]
        except (KeyError, TypeError):
            host_vars = None
        audit, forecast = host_vars, None
        if hasattr(host_vars, 'get') and any(name in host_vars for name in HOSTVARS_KEYS):
            audit, forecast = _fact(host_vars, 'pep493_https_status'), _fact(host_vars, 'pep493_https_forecast_result')
        if forecasts is not None:
            forecast = forecasts.get(host) if hasattr(forecasts, 'get') else None
        if since is not None:
            audit, forecast = _of_this_run(audit, 'audited', since), _of_this_run(forecast, 'forecasted', since)
        entries.append(_host_entry(str(host), audit, forecast, day, warning_days))
    return _report(entries, generated, warning_days)


# what tells a host's variables (hostvars) from a pep493_https_status fact
HOSTVARS_KEYS = ('inventory_hostname', 'ansible_facts', 'pep493_https_status')


def _fact(host_vars, name):
    """A fact of the host: the variable this play set, else as its facts hold it (what a fact cache
    gives for a host this play did not run on)."""
    if name in host_vars:
        return host_vars.get(name)
    facts = host_vars.get('ansible_facts')
    return facts.get(name) if hasattr(facts, 'get') else None


def _of_this_run(result, made, since):
    """``result`` (an audit or a forecast) when it was made (its time ``made``) at ``since`` or
    later; an older audit becomes no result of this run, an older forecast None."""
    if not isinstance(result, Mapping):
        return result
    when = result.get(made)
    try:
        recent = isinstance(when, str) and report_source.utc_time(when, made) >= since
    except report_source.SourceError:
        recent = False
    if recent:
        return result
    if made == 'forecasted':
        return None
    why = 'the last one is from %s' % when if isinstance(when, str) else 'an earlier one has no time'
    return dict(compliance=dict(state='unreachable', reasons=['no audit result in this run (%s)' % why]))


def _report(entries, generated, warning_days, sources=None):
    entries.sort(key=lambda entry: _by_risk(entry, warning_days))
    totals = dict((state, 0) for state in STATES)
    for entry in entries:
        totals[entry['state']] = totals.get(entry['state'], 0) + 1
    report = dict(
        schema_version=REPORT_SCHEMA_VERSION,
        generated=generated,
        expiry_warning_days=warning_days,
        states=list(STATES),
        totals=totals,
        host_count=len(entries),
        compliant=all(e['compliant'] for e in entries),
        hosts=entries,
    )
    if sources is not None:
        report['sources'] = sources
    return report


def _merged_entry(entry, source, audited, day, warning_days):
    """A host entry of an earlier report (its fields checked by report_source), with days left,
    counts and risk counted again from ``day``."""
    entry = dict(entry, source=source, audited=audited)
    for key in ('exceptions', 'expired', 'ineffective'):
        entry[key] = [dict(row, days_left=_days_left(row.get('expires'), day)) for row in entry[key]]
    entry['counts'] = dict(exceptions=len(entry['exceptions']), expired=len(entry['expired']),
                           ineffective=len(entry['ineffective']), pending_restart=len(entry['pending_restart']),
                           expiring=len([r for r in entry['exceptions'] if _expiring(r, warning_days)]))
    if 'unverified' not in entry:
        # a report before schema 3 kept no running values: only the host default tells
        entry['unverified'] = (['a Python 2 program on this host does not verify HTTPS certificates by default']
                               if entry['host_default'] is False else [])
    entry.setdefault('would_break', None)
    entry['risk'] = risk(entry, warning_days)
    return entry


def fleet_report_merge(reports, sources=None, generated=None, warning_days=EXPIRY_WARNING_DAYS):
    """One report from several ``report.json`` (job slices, controllers, days): for each host the
    entry of the newest report that has an audit result for it (one without a result only when no
    report has one), with days left counted again as of ``generated``; the sources listed."""
    try:
        merged_at = report_source.utc_time(generated) if generated is not None else _utc_now()
    except report_source.SourceError as exc:
        raise ReportError(str(exc))
    day = merged_at.date()
    warning_days = _warning_days(warning_days)
    if not isinstance(reports, list) or not reports:
        raise ReportError('no report to merge: give the report.json files to merge')
    sources = list(sources) if sources is not None else ['report %d' % (n + 1) for n in range(len(reports))]
    if len(sources) != len(reports):
        raise ReportError('%d reports but %d source names' % (len(reports), len(sources)))
    checked = []
    for report, source in zip(reports, sources):
        try:
            checked.append(report_source.checked(report, str(source), merged_at))
        except report_source.SourceError as exc:
            raise ReportError('%s. Nothing was merged, no report was written.' % exc)
    chosen, listed = {}, []
    for order, ((made, hosts), source) in enumerate(zip(checked, sources)):
        listed.append(dict(source=str(source), generated=made, host_count=len(hosts), hosts_used=0))
        for entry in hosts:
            # newest first; an audit result before "no result"; the later source on a tie
            rank = (entry['state'] != 'unreachable', str(made), order)
            if entry['host'] not in chosen or rank > chosen[entry['host']][0]:
                chosen[entry['host']] = (rank, entry, order)
    entries = []
    for rank, entry, order in chosen.values():
        listed[order]['hosts_used'] += 1
        entries.append(_merged_entry(entry, listed[order]['source'], listed[order]['generated'], day, warning_days))
    return _report(entries, generated, warning_days, listed)


# The keys of a job's artifacts (set_stats): one per host, so that job slices never overwrite each other's.
AUDIT_ARTIFACT, FORECAST_ARTIFACT = 'pep493_https_audit_', 'pep493_https_forecast_'


def artifact_key(prefix, host):
    """``prefix`` and the host's name as a variable name, the only key set_stats takes: a letter or
    digit stays, any other character becomes ``_XX_`` (its UTF-8 bytes in hex; ``_`` too), so two
    hosts never share a key (``web-1.example.com``: ``web_2d_1_2e_example_2e_com``)."""
    return prefix + ''.join(char if char.isascii() and char.isalnum() else
                            ''.join('_%02x_' % byte for byte in char.encode('utf-8')) for char in host)


def artifacts(report):
    """The results of a fleet report as a job's artifacts: for each host, under its own key, its
    state, first reason, risk and audit time, and - when it was forecast - its predicted breaks."""
    found = {}
    for entry in report['hosts']:
        host = entry['host']
        found[artifact_key(AUDIT_ARTIFACT, host)] = dict(
            host=host, state=entry['state'], compliant=entry['compliant'],
            reason=_one_line(entry['reasons'][0]) if entry['reasons'] else None, risk=entry['risk'],
            audited=entry.get('audited'))
        if entry['would_break'] is not None:
            found[artifact_key(FORECAST_ARTIFACT, host)] = dict(
                host=host, would_break=[dict(service=b['service'], endpoint=b['endpoint'], result=b['result'])
                                        for b in entry['would_break']])
    return found
