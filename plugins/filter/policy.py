# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters behind the policy role and the fleet report (controller side).

The rules themselves (validation, the clock, the compliance verdict) are in
``module_utils/policy.py``, shared with the modules; these filters wrap them.

* ``policy_plan``: validate a host's whole policy before anything is written and split its
  exceptions by expiry date, so that the role makes one ``service_verification`` call;
* ``compliance``: compare one host's ``verification_info`` result with the policy;
* ``predicted_compliance``: the same, for the host as a plan will leave it (before any write);
* ``audit_status``: the audit entry point's whole verdict in one step: the plan, then the compliance;
* ``fleet_report``: one report entry per host, with counts per compliance state;
* ``fleet_report_merge``: one report from several (job slices, controllers, days);
* ``batch_summary``: one line per host of an enforce or rollback batch;
* ``applied_services``: what of a ``service_verification`` result the batch summary needs;
* ``prediction_as_audit``: the prediction taken as the audit after a run that changed nothing;
* ``predicted_status``: the enforce entry point's status from the prediction in one step: the
  verdict and, when neither writing module has anything to change, the prediction as the audit.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.module_utils import policy as rules
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

STATES = rules.STATES
REPORT_SCHEMA_VERSION = 2
# The report's host order: the hosts that need a person first.
WORST_FIRST = ('non_compliant', 'unreachable', 'pending_restart', 'compliant_with_exceptions', 'compliant')
EXPIRY_WARNING_DAYS = 30
_GENERATED = re.compile(r'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$')


def policy_plan(exceptions, verify='enable', allow_insecure=False, require_justification=True, expired='remove',
                cfg_path='/etc/python/cert-verification.cfg', today=None):
    """A host's whole policy, validated before anything is written (``rules.plan_policy``).

    ``today`` (a date or ``YYYY-MM-DD``) replaces the collection's clock (``dates.today()``, the UTC
    date) for a plan made as of another day.
    """
    try:
        day = dates.today() if today is None else rules.as_date(today, 'today')
        return rules.plan_policy(verify, exceptions, day, require_justification, expired, allow_insecure, cfg_path)
    except rules.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove'):
    """How one host stands against the policy (``rules.compliance``)."""
    try:
        return rules.compliance(info, verify, exceptions, exclusive, expired)
    except rules.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def predicted_compliance(info, verify='enable', exceptions=None, exclusive=True, expired='remove', restart='never'):
    """How one host will stand once the plan is applied (``rules.predicted_compliance``)."""
    try:
        return rules.predicted_compliance(info, verify, exceptions, exclusive, expired, restart)
    except rules.PolicyError as exc:
        raise AnsibleFilterError(str(exc))


def audit_status(info, exceptions, verify='enable', exclusive=True, expired='remove', allow_insecure=False,
                 require_justification=True, cfg_path='/etc/python/cert-verification.cfg', check_mode=False, today=None):
    """The audit entry point's ``pep493_https_status`` in one step (one task per host, not three):
    the policy planned (``policy_plan``) and, when it has no problems, the host compared with it
    (``compliance``). ``problems`` are the plan's; with any, ``compliance`` is none."""
    plan = policy_plan(exceptions, verify=verify, allow_insecure=allow_insecure,
                       require_justification=require_justification, expired=expired, cfg_path=cfg_path, today=today)
    verdict = None if plan['problems'] else compliance(info, verify, plan['allowed'], exclusive, expired)
    return dict(policy=dict(verify=verify, exclusive=exclusive, exceptions=plan['allowed'], expired=plan['expired']),
                info=info, compliance=verdict, check_mode=check_mode, problems=plan['problems'])


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
        return (rules.as_date(expires) - day).days if expires else None
    except rules.PolicyError:
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
            return rules.as_date(str(generated)[:10])
        except rules.PolicyError:
            raise AnsibleFilterError('generated: %r is not a time as YYYY-MM-DDTHH:MM:SSZ' % (generated,))
    return dates.today()


def _warning_days(value):
    try:
        days = int(value)
        if days < 0 or isinstance(value, bool) or str(value).strip() != str(days):
            raise ValueError(value)
    except (TypeError, ValueError):
        raise AnsibleFilterError('pep493_https_expiry_warning_days: %r is not a whole number of days (0 or more)'
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
            raise AnsibleFilterError('%s is not JSON: %s' % (where, exc))
    if not isinstance(report, Mapping):
        raise AnsibleFilterError('%s is not a fleet report (a JSON object with hosts), it is a %s'
                                 % (where, type(report).__name__))
    if report.get('schema_version') not in (1, REPORT_SCHEMA_VERSION):
        raise AnsibleFilterError('%s has schema_version %r; this collection reads 1 and %d'
                                 % (where, report.get('schema_version'), REPORT_SCHEMA_VERSION))
    generated = report.get('generated')
    if not isinstance(generated, str) or not _GENERATED.match(generated):
        raise AnsibleFilterError('%s has no time it was made as YYYY-MM-DDTHH:MM:SSZ (generated: %r)'
                                 % (where, generated))
    hosts = report.get('hosts')
    if not isinstance(hosts, list) or not all(isinstance(h, Mapping) and h.get('host') and h.get('state') in STATES
                                              for h in hosts):
        raise AnsibleFilterError('%s: hosts is not a list of host entries (host, state, ...)' % where)
    return generated, hosts


def fleet_report_merge(reports, sources=None, generated=None, warning_days=EXPIRY_WARNING_DAYS):
    """One report from several ``report.json`` (job slices, controllers, days): for each host the
    entry of the newest report that has an audit result for it (one without a result only when no
    report has one), with days left counted again as of ``generated``; the sources listed."""
    day = _report_day(generated)
    warning_days = _warning_days(warning_days)
    if not isinstance(reports, list) or not reports:
        raise AnsibleFilterError('no report to merge: give the report.json files to merge')
    sources = list(sources) if sources is not None else ['report %d' % (n + 1) for n in range(len(reports))]
    if len(sources) != len(reports):
        raise AnsibleFilterError('%d reports but %d source names' % (len(reports), len(sources)))
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


def _names(items):
    return ', '.join(item['name'] for item in items)


def _cfg_part(cfg, check, entry_point):
    """What happened to the cfg file, or None when its task did not run."""
    if not isinstance(cfg, Mapping) or not cfg or cfg.get('skipped') or 'verify' not in cfg:
        return None
    if entry_point == 'rollback' and 'restored_from' in cfg:
        if not cfg['restored_from']:
            return 'cfg %s left as it is: no backup and no record of it' % cfg.get('verify')
        if not cfg.get('changed'):
            text = 'cfg already as in %s' % cfg['restored_from']
        elif cfg.get('verify') == 'missing':
            text = 'cfg %s: there was no file before its first change (%s)' % (
                'would be removed' if check else 'removed', cfg['restored_from'])
        else:
            text = 'cfg %srestored from %s (%s -> %s)' % (
                'would be ' if check else '', cfg['restored_from'], cfg.get('previous'), cfg.get('verify'))
        skipped = [entry['path'] for entry in cfg.get('skipped_backups') or []]
        if skipped:
            text += '; malformed backups skipped: %s' % ', '.join(skipped)
        return text
    if not cfg.get('changed'):
        return 'cfg %s (unchanged)' % cfg.get('verify')
    text = 'cfg %s%s -> %s' % ('would change ' if check else '', cfg.get('previous'), cfg.get('verify'))
    if cfg.get('probed') and not cfg.get('consumers'):
        text += ' (no Python on this host reads the file)'
    return text


def _services_parts(services, expired, expired_policy, restart, check, root=None):
    """Added, updated and removed drop-ins, separately; restarts; expired exceptions."""
    if not isinstance(services, Mapping) or not services or services.get('skipped') or 'services' not in services:
        return []
    dates = dict((item['name'], item.get('expires')) for item in expired or [])
    every = (services.get('services') or []) + (services.get('removed') or [])
    parts = []
    for action, label in (('created', 'added'), ('updated', 'updated'), ('removed', 'removed')):
        units = ['%s (expired %s)' % (item['name'], dates[item['name']]) if action == 'removed' and item['name'] in dates
                 else item['name'] for item in every if item.get('action') == action]
        if units:
            parts.append('drop-ins %s%s: %s' % ('that would be ' if check else '', label, ', '.join(units)))
    if not parts:
        parts.append('drop-ins unchanged')
    elif root:
        parts.append('under root %s: no reload or restart' % root)
    elif not services.get('systemd_running'):
        parts.append('systemd is not running here: no reload or restart')
    if services.get('restarted'):
        parts.append('%s%s: %s' % ('would ' if check else '', restart or 'restart', ', '.join(services['restarted'])))
    if services.get('pending_restart'):
        parts.append('pending a restart: %s' % ', '.join(services['pending_restart']))
    removed = set(item['name'] for item in every if item.get('action') == 'removed')
    left_out = [item for item in expired or [] if item['name'] not in removed]
    if left_out and expired_policy == 'keep':
        parts.append('expired but kept (pep493_https_expired: keep): %s' % _names(left_out))
    elif left_out:
        parts.append('expired in the inventory, not applied: %s' % ', '.join(
            '%s (%s)' % (item['name'], item.get('expires')) for item in left_out))
    return parts


def _state_part(status, check):
    verdict = (status or {}).get('compliance') or {}
    state = verdict.get('state')
    if not state:
        return 'not audited'
    text = state
    if verdict.get('predicted'):
        # the audit of the planned state: what check mode says, and all a run without the audit has
        text = 'would be %s' % state if check else '%s (predicted; not audited after the change)' % state
    reasons = verdict.get('reasons') or []
    if reasons and state != 'compliant':
        text += ' - %s%s' % (reasons[0], ' (+%d more)' % (len(reasons) - 1) if len(reasons) > 1 else '')
    return text


def host_summary(host, hv):
    """One line for one host of an enforce or rollback batch, from the facts the role and the
    playbook set: ``pep493_https_applied`` (the module results), ``pep493_https_status`` (the
    audit) and ``pep493_https_failure`` (why the role failed on the host)."""
    applied = hv.get('pep493_https_applied') or {}
    check = bool(applied.get('check_mode'))
    entry_point = applied.get('entry_point', 'main')
    parts = []
    cfg = _cfg_part(applied.get('cfg'), check, entry_point)
    if cfg:
        parts.append(cfg)
    parts.extend(_services_parts(applied.get('services'), applied.get('expired'), applied.get('expired_policy'),
                                 applied.get('restart'), check, applied.get('root')))
    failure = hv.get('pep493_https_failure')
    if failure:
        changed = [part for part in parts if not part.endswith('(unchanged)') and part != 'drop-ins unchanged']
        return '%s: FAILED - %s%s' % (host, failure, '; changed before the failure: %s' % '; '.join(changed)
                                      if changed else '')
    if entry_point == 'main':
        parts.insert(0, _state_part(hv.get('pep493_https_status'), check))
    return '%s: %s' % (host, '; '.join(parts) or 'nothing to do')


def batch_summary(batch, hostvars):
    """The summary of an enforce or rollback batch: a header line, then one line per host."""
    lines = ['batch of %d host%s: %s' % (len(batch), '' if len(batch) == 1 else 's', ', '.join(batch))]
    for host in batch:
        try:
            hv = hostvars[host]
        except (KeyError, TypeError):
            hv = {}
        lines.append(host_summary(host, hv))
    return lines


def unchanged_by_plan(info):
    """Which writing module the role may leave out: ``{'cfg': bool, 'services': bool}``, true where
    ``info``, the ``verification_info`` result of the planned state (its option ``planned``), shows
    that the module would change nothing: no planned change of its kind (``planned_changes[].kind``)
    and, for the cfg file, nothing ``cert_verification`` would refuse (the module then runs, to fail
    with its own message). Anything else (no prediction, a failed or skipped one, a report of the host
    as it is) gives false: the module runs."""
    unchanged = dict(cfg=False, services=False)
    if (not isinstance(info, Mapping) or info.get('failed') or info.get('skipped') or info.get('planned') is not True
            or not isinstance(info.get('planned_changes'), list)):
        return unchanged
    kinds = set(change.get('kind') if isinstance(change, Mapping) else None for change in info['planned_changes'])
    # a change of no known kind could be either
    unchanged['cfg'] = not kinds - set(['dropin']) and not info.get('planned_refusals')
    unchanged['services'] = not kinds - set(['cfg'])
    return unchanged


def _left_out(result, unchanged, kind):
    """Whether the role left the module of ``kind`` out (its task skipped) because the prediction
    showed that it would change nothing."""
    return (isinstance(result, Mapping) and bool(result.get('skipped')) and not result.get('failed')
            and isinstance(unchanged, Mapping) and unchanged.get(kind) is True)


def applied_cfg(result, unchanged=None, verify=None):
    """The ``cert_verification`` result of the role's cfg task (``pep493_https_applied``'s ``cfg``):
    the module's own, or, when the role left it out because the prediction showed the file already
    as the policy wants it (``unchanged`` from ``unchanged_by_plan``), what it would have said: no
    change, ``verify`` before and after, and ``unchanged_by_plan: true``."""
    if _left_out(result, unchanged, 'cfg'):
        return dict(changed=False, verify=verify, previous=verify, unchanged_by_plan=True,
                    msg='the prediction planned no change to the file: not run')
    return result


def applied_services(result, unchanged=None, planned=None):
    """What the batch summary needs of a ``service_verification`` result (``pep493_https_applied``'s
    ``services``): the drop-ins changed, by name and action, the reload and restarts, whatever the
    number of unchanged ones (counted in ``unchanged``). When the role left the module out because
    the prediction showed no drop-in to write or remove (``unchanged`` from ``unchanged_by_plan``),
    what it would have said: every one of the ``planned`` exceptions unchanged, no reload, no
    restart, and ``unchanged_by_plan: true``."""
    if _left_out(result, unchanged, 'services'):
        return dict(changed=False, unchanged_by_plan=True, services=[], removed=[],
                    unchanged=len(planned) if isinstance(planned, list) else 0, reloaded=False, restarted=[],
                    pending_restart=[], msg='the prediction planned no change to the drop-ins: not run')
    if not isinstance(result, Mapping):
        return {}
    kept = dict((key, result[key]) for key in ('changed', 'failed', 'skipped', 'msg', 'systemd_running', 'reloaded',
                                               'restarted', 'pending_restart') if key in result)
    if 'services' in result:
        every = list(result.get('services') or [])
        kept['services'] = [dict(name=item.get('name'), action=item.get('action')) for item in every
                            if isinstance(item, Mapping) and item.get('action') != 'unchanged']
        kept['unchanged'] = len(every) - len(kept['services'])
        kept['removed'] = [dict(name=item.get('name'), action=item.get('action'))
                           for item in result.get('removed') or [] if isinstance(item, Mapping)]
    return kept


def _ran_unchanged(result):
    """A module result of a task that ran and changed nothing."""
    return (isinstance(result, Mapping) and not result.get('failed') and not result.get('skipped')
            and result.get('changed') is False)


def prediction_as_audit(status, cfg=None, services=None, verify='enable'):
    """The role's prediction (``pep493_https_status`` of the planned state) as the audit after the
    change, when that audit would read the very state the prediction read: the cfg task and the
    drop-in task both ran and changed nothing (the drop-in task may have been skipped by its own
    condition: nothing to write), the prediction planned no change, and no interpreter that reads
    the cfg file was given a value instead of being run (``platform_default``). Then the verdict is
    the audit's own rule on the same result: ``predicted`` is dropped and ``prediction_reused`` is
    true. Otherwise (something changed, failed, did not run, or check mode) ``status`` is returned as
    it is and the role audits the host again."""
    if not isinstance(status, Mapping) or not status.get('predicted') or status.get('check_mode'):
        return status
    info = status.get('info')
    verdict = status.get('compliance')
    if not isinstance(info, Mapping) or not isinstance(verdict, Mapping) or info.get('planned_changes'):
        return status
    skipped = isinstance(services, Mapping) and services.get('skipped') and not services.get('failed')
    # a module the role left out is given here as applied_cfg / applied_services make it: unchanged
    if not _ran_unchanged(cfg) or 'verify' not in cfg or not (_ran_unchanged(services) or skipped):
        return status
    readers = [i for i in info.get('interpreters') or [] if isinstance(i, Mapping) and i.get('reads_config')]
    if readers and verify not in ('enable', 'disable'):
        return status
    audit = dict((key, value) for key, value in status.items() if key != 'predicted')
    audit['compliance'] = dict((key, value) for key, value in verdict.items() if key != 'predicted')
    audit['prediction_reused'] = True
    return audit


def predicted_status(info, verify='enable', exceptions=None, exclusive=True, expired_exceptions=None, expired='remove',
                     restart='never', check_mode=False):
    """The enforce entry point's ``pep493_https_status`` from its prediction (``info``, the
    ``verification_info`` result of the planned state), in one step: the policy, the prediction and
    its verdict (``predicted_compliance``). When the prediction shows that neither writing module
    has anything to change (``unchanged_by_plan``), the role leaves both out, and the prediction is
    already the audit after the change (``prediction_as_audit`` with both modules left out): it is
    returned as that audit, and the role makes no second audit and keeps no second copy.
    ``exceptions`` are the plan's allowed ones, ``expired_exceptions`` its expired ones."""
    status = dict(policy=dict(verify=verify, exclusive=exclusive, exceptions=exceptions or [],
                              expired=expired_exceptions or []),
                  info=info, compliance=predicted_compliance(info, verify, exceptions, exclusive, expired, restart),
                  check_mode=check_mode, predicted=True)
    unchanged = unchanged_by_plan(info)
    if not (unchanged['cfg'] and unchanged['services']):
        return status
    left_out = dict(skipped=True, changed=False)
    return prediction_as_audit(status, applied_cfg(left_out, unchanged, verify),
                               applied_services(left_out, unchanged), verify)


class FilterModule(object):
    def filters(self):
        return dict(
            policy_plan=policy_plan,
            compliance=compliance,
            predicted_compliance=predicted_compliance,
            audit_status=audit_status,
            fleet_report=fleet_report,
            fleet_report_merge=fleet_report_merge,
            batch_summary=batch_summary,
            unchanged_by_plan=unchanged_by_plan,
            applied_cfg=applied_cfg,
            applied_services=applied_services,
            prediction_as_audit=prediction_as_audit,
            predicted_status=predicted_status,
        )
