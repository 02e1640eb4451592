# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report (controller only): one entry per host from its audit, hosts worst first,
days left per exception; and one report merged from several (job slices, controllers, days).
Raises ReportError, naming the input, for what it cannot read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
from collections.abc import Mapping

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as rules
from ansible_collections.pep493.https.plugins.plugin_utils.policy_plan import PolicyError, as_date

STATES = rules.STATES


class ReportError(ValueError):
    """A report, a source or an option the fleet report cannot be made from."""


REPORT_SCHEMA_VERSION = 2


# The report's host order: the hosts that need a person first.
WORST_FIRST = ('non_compliant', 'unreachable', 'pending_restart', 'compliant_with_exceptions', 'compliant')


EXPIRY_WARNING_DAYS = 30


_GENERATED = re.compile(r'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$')


def _service_name(service):
    return unit_names.canonical(service.get('unit') or service.get('name') or '?')


def _host_entry(host, audit, day, warning_days):
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
        return dict(host=host, state='unreachable', compliant=False, reasons=reasons,
                    warnings=[], verify=None, expected_verify=None, host_default=None, interpreters=[],
                    exceptions=[], expired=[], ineffective=[], pending_restart=[], findings=[],
                    counts=dict(exceptions=0, expired=0, expiring=0, pending_restart=0, ineffective=0))
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
    )
    entry['counts'] = dict(exceptions=len(entry['exceptions']), expired=len(entry['expired']),
                           expiring=len([r for r in entry['exceptions'] if _expiring(r, warning_days)]),
                           pending_restart=len(entry['pending_restart']), ineffective=len(entry['ineffective']))
    return entry


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


def _worst_first(entry):
    soonest = min([r['days_left'] for r in entry['exceptions'] if r['days_left'] is not None] or [float('inf')])
    return (WORST_FIRST.index(entry['state']) if entry['state'] in WORST_FIRST else -1, soonest,
            _natural(entry['host']))


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


def fleet_report(hosts, audits, generated=None, warning_days=EXPIRY_WARNING_DAYS):
    """The fleet report: ``hosts`` (inventory names) and ``audits`` (host -> ``pep493_https_status``
    fact, or ``hostvars``), hosts worst first; days left per exception as of ``generated``."""
    day = _report_day(generated)
    warning_days = _warning_days(warning_days)
    entries = []
    for host in hosts:
        try:
            host_vars = audits[host]
        except (KeyError, TypeError):
            host_vars = None
        audit = host_vars
        if hasattr(host_vars, 'get') and ('inventory_hostname' in host_vars or 'pep493_https_status' in host_vars):
            audit = host_vars.get('pep493_https_status')
        entries.append(_host_entry(str(host), audit, day, warning_days))
    return _report(entries, generated, warning_days)


def _report(entries, generated, warning_days, sources=None):
    entries.sort(key=_worst_first)
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
    """A host entry of an earlier report, with days left counted again from ``day``."""
    entry = dict(entry, source=source, audited=audited)
    for key in ('exceptions', 'expired', 'ineffective'):
        entry[key] = [dict(row, days_left=_days_left(row.get('expires'), day)) for row in entry.get(key) or []]
    entry['counts'] = dict(entry.get('counts') or {}, exceptions=len(entry['exceptions']),
                           expired=len(entry['expired']), ineffective=len(entry['ineffective']),
                           pending_restart=len(entry.get('pending_restart') or []),
                           expiring=len([r for r in entry['exceptions'] if _expiring(r, warning_days)]))
    return entry


def _checked_report(report, source):
    where = 'report %s' % source
    if isinstance(report, (bytes, str)):
        try:
            report = json.loads(report)
        except ValueError as exc:
            raise ReportError('%s is not JSON: %s' % (where, exc))
    if not isinstance(report, Mapping):
        raise ReportError('%s is not a fleet report (a JSON object with hosts), it is a %s'
                          % (where, type(report).__name__))
    if report.get('schema_version') not in (1, REPORT_SCHEMA_VERSION):
        raise ReportError('%s has schema_version %r; this collection reads 1 and %d'
                          % (where, report.get('schema_version'), REPORT_SCHEMA_VERSION))
    generated = report.get('generated')
    if not isinstance(generated, str) or not _GENERATED.match(generated):
        raise ReportError('%s has no time it was made as YYYY-MM-DDTHH:MM:SSZ (generated: %r)'
                          % (where, generated))
    hosts = report.get('hosts')
    if not isinstance(hosts, list) or not all(isinstance(h, Mapping) and h.get('host') and h.get('state') in STATES
                                              for h in hosts):
        raise ReportError('%s: hosts is not a list of host entries (host, state, ...)' % where)
    return generated, hosts


def fleet_report_merge(reports, sources=None, generated=None, warning_days=EXPIRY_WARNING_DAYS):
    """One report from several ``report.json`` (job slices, controllers, days): for each host the
    entry of the newest report that has an audit result for it (one without a result only when no
    report has one), with days left counted again as of ``generated``; the sources listed."""
    day = _report_day(generated)
    warning_days = _warning_days(warning_days)
    if not isinstance(reports, list) or not reports:
        raise ReportError('no report to merge: give the report.json files to merge')
    sources = list(sources) if sources is not None else ['report %d' % (n + 1) for n in range(len(reports))]
    if len(sources) != len(reports):
        raise ReportError('%d reports but %d source names' % (len(reports), len(sources)))
    chosen, listed = {}, []
    for order, (report, source) in enumerate(zip(reports, sources)):
        made, hosts = _checked_report(report, source)
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
