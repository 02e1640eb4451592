# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters behind the policy role and the fleet report (controller side).

* ``exception_plan``: validate the role's exception list and split it by expiry date, so that the
  role makes one ``service_verification`` call with the whole list;
* ``compliance``: compare one host's ``verification_info`` result with the policy;
* ``fleet_report``: one report entry per host, with counts per compliance state;
* ``batch_summary``: one line per host of an enforce batch;
* ``newest_backup``: the most recent ``backup_local`` copy among found files.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re

from ansible.errors import AnsibleFilterError

# Compliance states, best first: the report shows them in this order.
STATES = ('compliant', 'compliant_with_exceptions', 'pending_restart', 'non_compliant', 'unreachable')
REPORT_SCHEMA_VERSION = 1
EXPIRED_POLICIES = ('remove', 'keep', 'fail')
_DATE = re.compile(r'^(\d{4})-(\d{2})-(\d{2})$')
# ansible's backup_local names a copy <file>.<pid>.<YYYY-mm-dd@HH:MM:SS>~
_BACKUP_STAMP = re.compile(r'\.(\d+)\.(\d{4}-\d{2}-\d{2}@\d{2}:\d{2}:\d{2})~$')


def _as_date(value, what):
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    match = _DATE.match(str(value).strip())
    if not match:
        raise ValueError('%s %r is not a date of the form YYYY-MM-DD' % (what, value))
    try:
        return datetime.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError as exc:
        raise ValueError('%s %r is not a real date: %s' % (what, value, exc))


def unit_name(name):
    """``legacy-app`` -> ``legacy-app.service``; names with the suffix stay as they are."""
    name = str(name).strip()
    return name if name.endswith('.service') else name + '.service'


def _text(value):
    if value is None:
        return ''
    return str(value).strip()


def exception_plan(exceptions, today, require_justification=True, expired='remove'):
    """Validate the exception list and split it.

    Returns ``problems`` (one message per bad entry, naming it), ``active`` and ``expired`` (the
    entries, names canonical, ``expires`` as text), ``allowed`` (the exceptions the host may have:
    the active ones, plus the expired ones when ``expired`` is ``keep``) and ``services``: the list
    to hand to ``service_verification`` (``allowed``, plus a ``state: absent`` item per expired
    exception when ``expired`` is ``remove``).
    """
    if expired not in EXPIRED_POLICIES:
        raise AnsibleFilterError('expired=%r: use one of %s' % (expired, ', '.join(EXPIRED_POLICIES)))
    try:
        today = _as_date(today, 'today')
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))
    problems, active, past, seen = [], [], [], {}
    for index, entry in enumerate(exceptions or []):
        where = 'pep493_https_exceptions[%d]' % index
        if not isinstance(entry, dict) or not _text(entry.get('name')):
            problems.append('%s has no name; every exception names a service (name: legacy-app)' % where)
            continue
        name = unit_name(entry['name'])
        where = '%s (%s)' % (where, name)
        if name in seen:
            problems.append('%s is listed twice (also pep493_https_exceptions[%d]); keep one entry per service'
                            % (where, seen[name]))
            continue
        seen[name] = index
        reason, expires = _text(entry.get('reason')), entry.get('expires')
        if require_justification:
            missing = [field for field, value in (('reason', reason), ('expires', _text(expires))) if not value]
            if missing:
                problems.append('%s has no %s; every exception needs a reason and an expiry date (YYYY-MM-DD), '
                                'or set pep493_https_require_justification: false'
                                % (where, ' and no '.join(missing)))
                continue
        item = dict(name=name, verify=bool(entry.get('verify', False)), reason=reason or None, expires=None)
        if _text(expires):
            try:
                item['expires'] = _as_date(expires, 'expires').isoformat()
            except ValueError as exc:
                problems.append('%s: %s' % (where, exc))
                continue
        if item['expires'] and today > _as_date(item['expires'], 'expires'):
            past.append(item)
        else:
            active.append(item)
    if expired == 'fail':
        for item in past:
            problems.append('exception for %s expired on %s (pep493_https_expired: fail); renew its expiry date '
                            'or remove it' % (item['name'], item['expires']))
    allowed = active + past if expired == 'keep' else list(active)
    services = list(allowed)
    if expired == 'remove':
        services.extend(dict(name=item['name'], state='absent') for item in past)
    return dict(problems=problems, active=active, expired=past, allowed=allowed, services=services)


def _service_name(service):
    return unit_name(service.get('unit') or service.get('name') or '?')


def _global_optouts(node, path=''):
    """(where, value) for every host-wide PYTHONHTTPSVERIFY=0 in verification_info's ``global``."""
    found = []
    if isinstance(node, dict):
        value = node.get('value')
        if node.get('disables') is True or ('disables' not in node and value is not None
                                            and not isinstance(value, (dict, list)) and str(value) == '0'):
            found.append(str(node.get('path') or node.get('file') or node.get('source') or path or 'global'))
        for key, child in sorted(node.items()):
            if isinstance(child, (dict, list)):
                found.extend(_global_optouts(child, key if not path else '%s.%s' % (path, key)))
    elif isinstance(node, list):
        for child in node:
            found.extend(_global_optouts(child, path))
    return found


def compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove'):
    """How one host stands against the policy.

    ``info`` is a ``verification_info`` result; ``exceptions`` the exceptions the policy allows
    (``exception_plan(...).allowed``). Returns ``state`` (one of STATES), ``compliant`` and the
    ``reasons`` (non-compliance) and ``warnings`` in plain words.
    """
    if not isinstance(info, dict):
        raise AnsibleFilterError('compliance expects a verification_info result, got %r' % type(info).__name__)
    if info.get('unreachable') or info.get('failed') or not isinstance(info.get('config'), dict):
        why = info.get('msg') or 'verification_info returned no result'
        return dict(state='unreachable', compliant=False, reasons=['no audit result: %s' % why], warnings=[])
    reasons, warnings = [], []
    allowed = dict((unit_name(e['name']), e) for e in (exceptions or []))
    config = info.get('config') or {}
    if config.get('valid') is False:
        reasons.append('%s is malformed and breaks "import ssl" for Python 2 on RHEL 7'
                       % config.get('path', 'the cfg file'))
    elif config.get('verify') == 'missing' or config.get('exists') is False:
        reasons.append('%s does not exist, the policy says verify=%s' % (config.get('path', 'the cfg file'), verify))
    elif config.get('verify') != verify:
        reasons.append('%s says verify=%s, the policy says verify=%s'
                       % (config.get('path', 'the cfg file'), config.get('verify'), verify))
    for where in _global_optouts(info.get('global') or {}):
        reasons.append('PYTHONHTTPSVERIFY=0 is set host-wide in %s: it turns verification off for every '
                       'Python 2 program that inherits it' % where)
    summary = info.get('summary') or {}
    if verify == 'enable' and summary.get('host_default') is False:
        reasons.append('a Python 2 program on this host does not verify certificates by default')

    services = info.get('services') or []
    seen, pending = set(), []
    for service in services:
        name = _service_name(service)
        seen.add(name)
        value = service.get('value')
        if service.get('pending_restart'):
            pending.append(name)
        if name in allowed:
            wanted = '1' if allowed[name]['verify'] else '0'
            if value is not None and str(value) != wanted:
                reasons.append('%s runs with PYTHONHTTPSVERIFY=%s, the policy says %s' % (name, value, wanted))
            continue
        if value is None or str(value) != '0':
            continue
        if service.get('managed') and service.get('expired'):
            message = '%s keeps an exception that expired on %s' % (name, service.get('expires'))
            (warnings if expired == 'keep' else reasons).append(message)
        elif service.get('managed') and not exclusive:
            warnings.append('%s has an exception that is not in the policy (kept: pep493_https_exclusive is false)'
                            % name)
        else:
            source = service.get('source') or service.get('file') or service.get('path')
            reasons.append('%s has PYTHONHTTPSVERIFY=0%s and no exception in the policy'
                           % (name, ' from %s' % source if source else ''))
    for name in sorted(set(allowed) - seen):
        warnings.append('the exception the policy gives %s is not in place (not applied yet, or the unit is not '
                        'installed)' % name)
    # Ineffective exceptions and pending restarts are in verification_info's own findings.
    if reasons:
        state = 'non_compliant'
    elif pending:
        state = 'pending_restart'
    elif any(str(s.get('value')) == '0' for s in services if _service_name(s) in allowed):
        state = 'compliant_with_exceptions'
    else:
        state = 'compliant'
    return dict(state=state, compliant=state != 'non_compliant', reasons=reasons, warnings=warnings)


def _host_entry(host, audit):
    unreachable = isinstance(audit, dict) and (audit.get('compliance') or {}).get('state') == 'unreachable'
    if not isinstance(audit, dict) or not isinstance(audit.get('info'), dict) or unreachable:
        error = audit.get('error') if isinstance(audit, dict) else None
        if unreachable:
            reasons = list(audit['compliance'].get('reasons') or []) or ['no audit result']
        elif error:
            reasons = ['the audit failed: %s' % error]
        else:
            reasons = ['no audit result (the host was unreachable or the audit did not run on it)']
        return dict(host=host, state='unreachable', compliant=False, reasons=reasons,
                    warnings=[], verify=None, expected_verify=None, host_default=None, interpreters=[],
                    exceptions=[], expired=[], ineffective=[], pending_restart=[], findings=[],
                    counts=dict(exceptions=0, expired=0, pending_restart=0, ineffective=0))
    info, verdict = audit['info'], audit.get('compliance') or {}
    services = info.get('services') or []
    summary = info.get('summary') or {}

    def row(service):
        return dict(unit=_service_name(service), value=service.get('value'),
                    source=service.get('source') or service.get('file') or service.get('path'),
                    managed=bool(service.get('managed')), reason=service.get('reason'),
                    expires=service.get('expires'), expired=bool(service.get('expired')),
                    effective=service.get('effective'), pending_restart=bool(service.get('pending_restart')))
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
        expired=[r for r in rows if r['expired']],
        ineffective=[r for r in rows if r['effective'] is False and r['value'] is not None],
        pending_restart=[r['unit'] for r in rows if r['pending_restart']],
        findings=[str(f) for f in summary.get('findings') or []],
    )
    entry['counts'] = dict(exceptions=len(entry['exceptions']), expired=len(entry['expired']),
                           pending_restart=len(entry['pending_restart']), ineffective=len(entry['ineffective']))
    return entry


def fleet_report(hosts, audits, generated=None):
    """The fleet report: ``hosts`` (inventory names) and ``audits`` (host -> ``pep493_https_status``
    fact, or ``hostvars``)."""
    entries = []
    for host in hosts:
        try:
            host_vars = audits[host]
        except (KeyError, TypeError):
            host_vars = None
        audit = host_vars
        if hasattr(host_vars, 'get') and ('inventory_hostname' in host_vars or 'pep493_https_status' in host_vars):
            audit = host_vars.get('pep493_https_status')
        entries.append(_host_entry(str(host), audit))
    totals = dict((state, 0) for state in STATES)
    for entry in entries:
        totals[entry['state']] = totals.get(entry['state'], 0) + 1
    return dict(
        schema_version=REPORT_SCHEMA_VERSION,
        generated=generated,
        states=list(STATES),
        totals=totals,
        host_count=len(entries),
        compliant=all(e['compliant'] for e in entries),
        hosts=entries,
    )


def batch_summary(batch, hostvars):
    """One line per host of an enforce batch: its compliance state and what the policy changed."""
    lines = ['batch of %d host%s: %s' % (len(batch), '' if len(batch) == 1 else 's', ', '.join(batch))]
    for host in batch:
        try:
            hv = hostvars[host]
        except (KeyError, TypeError):
            hv = {}
        error = hv.get('__pep493_https_enforce_error')
        if error:
            lines.append('%s: FAILED - %s' % (host, error))
            continue
        status = hv.get('pep493_https_status') or {}
        state = (status.get('compliance') or {}).get('state', 'not audited')
        if status.get('check_mode'):
            state += ' (check mode: audited as the host was)'
        cfg = hv.get('__pep493_https_cfg') or {}
        services = hv.get('__pep493_https_services') or {}
        changed = [u.get('name') for u in (services.get('services') or []) + (services.get('removed') or [])
                   if u.get('action') not in (None, 'unchanged')]
        parts = [state]
        if cfg.get('verify'):
            parts.append('cfg %s -> %s' % (cfg.get('previous'), cfg['verify']) if cfg.get('changed')
                         else 'cfg %s' % cfg['verify'])
        parts.append('drop-ins changed: %s' % (', '.join(changed) if changed else 'none'))
        expired = (hv.get('__pep493_https_plan') or {}).get('expired') or []
        if expired:
            kept = hv.get('pep493_https_expired') == 'keep'
            parts.append('expired exceptions %s: %s' % ('kept' if kept else 'removed',
                                                        ', '.join(e['name'] for e in expired)))
        restarted = hv.get('__pep493_https_restart_units') or []
        if restarted:
            parts.append('%s: %s' % (hv.get('__pep493_https_restart_verb', 'restart'), ', '.join(restarted)))
        lines.append('%s: %s' % (host, '; '.join(parts)))
    return lines


def newest_backup(paths):
    """The newest ``backup_local`` copy (by the time stamp in its name; mtimes are copied from
    the original), or None."""
    stamped = []
    for path in paths or []:
        path = path.get('path') if isinstance(path, dict) else path
        match = _BACKUP_STAMP.search(str(path))
        if match:
            stamped.append((match.group(2), int(match.group(1)), str(path)))
    return max(stamped)[2] if stamped else None


class FilterModule(object):
    def filters(self):
        return dict(
            exception_plan=exception_plan,
            compliance=compliance,
            fleet_report=fleet_report,
            batch_summary=batch_summary,
            newest_backup=newest_backup,
        )
