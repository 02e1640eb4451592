# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy role's filters: thin wrappers of plugin_utils/policy_plan.py and compliance.py, the fleet report, the summaries.

The rules themselves are tested in tests/unit/plugins/plugin_utils/test_policy_plan.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.filter import batch_summary as batch_filters
from ansible_collections.pep493.https.plugins.filter import compliance as compliance_filters
from ansible_collections.pep493.https.plugins.filter import fleet_report as report_filters
from ansible_collections.pep493.https.plugins.filter import forecast as forecast_filters
from ansible_collections.pep493.https.plugins.filter import role_state as role_state_filters
from ansible_collections.pep493.https.plugins.plugin_utils import batch_summary as summary
from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report as report_rules
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.plugins.plugin_utils import role_state
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates

TODAY = '2026-06-15'


def exc(name, reason='vendor agent pins an old CA', expires='2026-12-31', verify=False):
    return dict(name=name, verify=verify, reason=reason, expires=expires)


def plan(exceptions, today=TODAY, require_justification=True, expired='remove', **policy_vars):
    return compliance_filters.policy_plan(exceptions, today=today, require_justification=require_justification, expired=expired,
                                          **policy_vars)


def info(verify='enable', services=(), valid=True, host_default=True, global_=None):
    return dict(config=dict(path='/etc/python/cert-verification.cfg', verify=verify, valid=valid),
                services=list(services), summary=dict(host_default=host_default, findings=[]),
                **{'global': global_ or {}})


def svc(unit, value='0', managed=True, **kw):
    data = dict(unit=unit, value=value, managed=managed, expired=False, pending_restart=False, effective=True)
    data.update(kw)
    return data


# --- policy_plan and compliance: the rules of plugin_utils --------------------------

def test_policy_plan_is_the_rule_of_module_utils():
    entries = [exc('legacy-app'), exc('old', expires='2026-06-14'), exc('legacy app')]
    assert plan(entries) == planning.plan_policy('enable', entries, datetime.date(2026, 6, 15))
    assert plan(entries, today=datetime.date(2026, 6, 15)) == plan(entries)


def test_policy_plan_uses_the_collection_clock_by_default(monkeypatch):
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2026, 6, 15))
    assert compliance_filters.policy_plan([exc('old', expires='2026-06-14')])['expired'][0]['name'] == 'old.service'
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2026, 6, 14))
    assert compliance_filters.policy_plan([exc('old', expires='2026-06-14')])['expired'] == []


@pytest.mark.parametrize('kwargs', [dict(expired='ignore'), dict(today='next week')])
def test_policy_plan_errors_are_filter_errors(kwargs):
    with pytest.raises(AnsibleFilterError):
        plan([], **kwargs)


def test_compliance_is_the_rule_of_module_utils():
    host = info(services=[svc('rogue.service', managed=False, source='/etc/x.conf')])
    assert compliance_filters.compliance(host, 'enable', []) == judge.compliance(host, 'enable', [])
    with pytest.raises(AnsibleFilterError):
        compliance_filters.compliance('not a result')


def test_audit_status_is_the_plan_then_the_compliance():
    entries = [exc('legacy-app'), exc('old', expires='2026-06-14')]
    host = info(services=[svc('legacy-app.service'), svc('old.service', expired=True, expires='2026-06-14')])
    status = compliance_filters.audit_status(host, entries, verify='enable', exclusive=False, expired='keep', check_mode=True,
                                             today=TODAY)
    planned = plan(entries, expired='keep')
    assert status == dict(policy=dict(verify='enable', exclusive=False, exceptions=planned['allowed'],
                                      expired=planned['expired']),
                          info=host, compliance=compliance_filters.compliance(host, 'enable', planned['allowed'], False, 'keep'),
                          check_mode=True, problems=[])


def test_audit_status_of_a_refused_policy_has_its_problems_and_no_verdict():
    entries = [exc('sshd.socket'), exc('legacy-app', reason='')]
    status = compliance_filters.audit_status(info(), entries, verify='disable', today=TODAY)
    assert status['problems'] == plan(entries, verify='disable')['problems']
    assert len(status['problems']) == 3 and status['compliance'] is None
    # the report shows it as an audit that failed, as when the audit playbook's rescue records it
    entry = report_filters.fleet_report(['x'], {'x': status}, TODAY + 'T00:00:00Z')['hosts'][0]
    assert entry['state'] == 'unreachable'
    assert entry['reasons'] == ['the audit failed: Policy refused, nothing was changed: '
                                + '; '.join(status['problems'])]


def test_audit_status_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError):
        compliance_filters.audit_status(info(), [], expired='ignore')
    with pytest.raises(AnsibleFilterError):
        compliance_filters.audit_status('not a result', [])


def test_unreachable_host_in_the_report():
    result = compliance_filters.compliance({'unreachable': True, 'msg': 'Container not found', 'changed': False}, 'enable', [])
    report = report_filters.fleet_report(['x'], {'x': dict(info={'unreachable': True}, compliance=result)})
    assert report['hosts'][0]['state'] == 'unreachable'
    assert 'Container not found' in report['hosts'][0]['reasons'][0]


# --- fleet_report ---------------------------------------------------------------------------

def status(host_info, state):
    return dict(info=host_info, policy=dict(verify='enable'),
                compliance=dict(state=state, compliant=state != 'non_compliant', reasons=[], warnings=[]))


def test_fleet_report_counts_and_rows():
    audits = {
        'a': status(info(), 'compliant'),
        'b': status(info(verify='disable'), 'non_compliant'),
        'c': status(info(services=[svc('x.service', expired=True, expires='2020-01-01'),
                                   svc('y.service', effective=False, pending_restart=True)]),
                    'pending_restart'),
        'd': dict(error='boom'),
    }
    report = report_filters.fleet_report(['a', 'b', 'c', 'd', 'e'], audits, '2026-06-15T00:00:00Z')
    assert report['host_count'] == 5
    assert report['totals'] == dict(compliant=1, compliant_with_exceptions=0, pending_restart=1,
                                    non_compliant=1, unreachable=2)
    assert report['compliant'] is False
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert [h['host'] for h in report['hosts']] == ['b', 'd', 'e', 'c', 'a']
    assert hosts['b']['verify'] == 'disable' and hosts['b']['expected_verify'] == 'enable'
    assert hosts['c']['counts'] == dict(exceptions=2, expired=1, expiring=0, pending_restart=1, ineffective=1)
    assert hosts['c']['pending_restart'] == ['y.service']
    assert 'boom' in hosts['d']['reasons'][0]
    assert hosts['e']['state'] == 'unreachable'


def test_fleet_report_reads_hostvars_like_mappings():
    hostvars = {'a': {'inventory_hostname': 'a', 'pep493_https_status': status(info(), 'compliant')},
                'b': {'inventory_hostname': 'b'}}
    report = report_filters.fleet_report(['a', 'b'], hostvars)
    assert dict((h['host'], h['state']) for h in report['hosts']) == dict(a='compliant', b='unreachable')


def test_fleet_report_all_compliant():
    report = report_filters.fleet_report(['a'], {'a': status(info(), 'compliant')})
    assert report['compliant'] is True


def with_exceptions(*expiries, **kw):
    services = [svc('s%d.service' % n, expires=date, expired=date is not None and date < TODAY, reason='why')
                for n, date in enumerate(expiries)]
    return status(info(services=services), kw.get('state', 'compliant_with_exceptions'))


def test_fleet_report_days_left_and_expiring_soon():
    audits = {'a': with_exceptions('2026-06-15', '2026-07-15', '2026-07-16', '2027-07-01', None, '2026-06-14')}
    report = report_filters.fleet_report(['a'], audits, TODAY + 'T23:59:59Z')
    rows = report['hosts'][0]['exceptions']
    assert [r['days_left'] for r in rows] == [0, 30, 31, 381, None, -1]
    # in effect and ending within 30 days: today's and the one 30 days out; not the expired one
    assert report['hosts'][0]['counts']['expiring'] == 2
    assert report['expiry_warning_days'] == 30
    report = report_filters.fleet_report(['a'], audits, TODAY + 'T00:00:00Z', 31)
    assert report['hosts'][0]['counts']['expiring'] == 3
    assert report_filters.fleet_report(['a'], audits, TODAY + 'T00:00:00Z', '0')['hosts'][0]['counts']['expiring'] == 1


# --- what the audit alone does not show: inventory-only expired exceptions, hand-made overrides ----

def test_fleet_report_lists_an_expired_exception_that_was_never_deployed():
    expired = [dict(name='old-agent.service', verify=False, reason='vendor CA until the upgrade', expires='2026-03-01'),
               dict(name='gone.service', verify=False, reason='retired box', expires='2026-06-14')]
    deployed = svc('gone.service', expired=True, expires='2026-06-14', reason='retired box', dropin='/d/zz.conf')
    audit = status(info(services=[deployed]), 'non_compliant')
    audit['policy'] = dict(verify='enable', exceptions=[], expired=expired)
    entry = report_filters.fleet_report(['a'], {'a': audit}, TODAY + 'T00:00:00Z')['hosts'][0]
    rows = dict((r['unit'], r) for r in entry['expired'])
    assert sorted(rows) == ['gone.service', 'old-agent.service']    # the deployed one once, not twice
    never = rows['old-agent.service']
    assert never['deployed'] is False and never['expired'] is True and never['managed'] is False
    assert (never['expires'], never['reason'], never['days_left']) == ('2026-03-01', 'vendor CA until the upgrade', -106)
    assert never['value'] is None and never['source'] is None
    assert rows['gone.service'].get('deployed', True) is True
    assert entry['counts']['expired'] == 2
    # never deployed: not an exception in effect, nothing to restart, not ineffective
    assert [r['unit'] for r in entry['exceptions']] == ['gone.service']
    assert entry['ineffective'] == [] and entry['pending_restart'] == []


def test_fleet_report_reads_an_expired_inventory_exception_by_its_canonical_name():
    audit = status(info(services=[svc('old.service', expired=True, expires='2026-01-01')]), 'non_compliant')
    audit['policy'] = dict(verify='enable', expired=[dict(name='old', expires='2026-01-01', reason='r')])
    entry = report_filters.fleet_report(['a'], {'a': audit}, TODAY + 'T00:00:00Z')['hosts'][0]
    assert [r['unit'] for r in entry['expired']] == ['old.service']


def test_fleet_report_keeps_a_hand_made_override_beside_the_policy_exception():
    covered = svc('legacy.service', reason='vendor agent', expires='2026-12-31', dropin='/etc/d/zz-pep493-https.conf',
                  source='/etc/d/zz-pep493-https.conf', source_kind='dropin',
                  mentioned_in=['/etc/d/override.conf', '/etc/d/zz-pep493-https.conf'])
    # an EnvironmentFile= of its own wins over the collection's drop-in: the record names it as the source
    beaten = svc('app.service', reason='pinned CA', expires='2026-12-31', dropin='/etc/a/zz-pep493-https.conf',
                 source='/etc/default/app', source_kind='environment_file', overridden=True,
                 mentioned_in=['/etc/a/zz-pep493-https.conf', '/etc/default/app'])
    clean = svc('ok.service', reason='r', expires='2026-12-31', dropin='/etc/o/zz.conf', source='/etc/o/zz.conf',
                mentioned_in=['/etc/o/zz.conf'])
    rogue = svc('rogue.service', managed=False, source='/etc/r/override.conf', mentioned_in=['/etc/r/override.conf'])
    audit = status(info(services=[covered, beaten, clean, rogue]), 'non_compliant')
    rows = dict((r['unit'], r) for r in report_filters.fleet_report(['a'], {'a': audit})['hosts'][0]['exceptions'])
    assert rows['legacy.service']['managed'] is True
    assert rows['legacy.service']['foreign'] == ['/etc/d/override.conf']
    assert rows['app.service']['managed'] is True and rows['app.service']['foreign'] == ['/etc/default/app']
    assert rows['ok.service']['foreign'] == []
    # not managed: the row's own source already names the file
    assert rows['rogue.service']['foreign'] == [] and rows['rogue.service']['source'] == '/etc/r/override.conf'


def test_fleet_report_days_left_count_from_the_report_day(monkeypatch):
    monkeypatch.setattr(dates, 'today', lambda now=None: datetime.date(2026, 7, 1))
    report = report_filters.fleet_report(['a'], {'a': with_exceptions('2026-07-15')})
    assert report['hosts'][0]['exceptions'][0]['days_left'] == 14


@pytest.mark.parametrize('days', [-1, 'soon', '3.5', 2.5, True, None, [30]])
def test_fleet_report_refuses_a_bad_warning_window(days):
    with pytest.raises(AnsibleFilterError, match='pep493_https_expiry_warning_days'):
        report_filters.fleet_report(['a'], {'a': with_exceptions('2026-07-15')}, TODAY + 'T00:00:00Z', days)


def test_fleet_report_refuses_a_bad_generated_time():
    with pytest.raises(AnsibleFilterError, match='generated'):
        report_filters.fleet_report(['a'], {}, 'yesterday')


def test_fleet_report_sorts_hosts_worst_first():
    audits = {
        'web-10': status(info(), 'compliant'),
        'web-2': status(info(), 'compliant'),
        'db-1': with_exceptions('2027-01-01'),
        'db-2': with_exceptions('2026-06-20'),
        'app-1': status(info(), 'pending_restart'),
        'app-9': status(info(verify='disable'), 'non_compliant'),
    }
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z')
    assert [h['host'] for h in report['hosts']] == ['app-9', 'gone', 'app-1', 'db-2', 'db-1', 'web-2', 'web-10']


def test_filters_are_registered():
    names = set()
    for module in (compliance_filters, report_filters, batch_filters, role_state_filters, forecast_filters):
        names.update(module.FilterModule().filters())
    assert names == set(['policy_plan', 'compliance', 'predicted_compliance', 'fleet_report', 'fleet_report_merge',
                         'batch_summary', 'unchanged_by_plan', 'applied_cfg', 'applied_services',
                         'prediction_as_audit', 'audit_status', 'predicted_status', 'forecast_plan'])


def test_predicted_compliance_is_the_rule_of_module_utils():
    planned = dict(info(services=[svc('legacy.service', managed=False, source='/etc/x/override.conf')]), planned=True)
    verdict = compliance_filters.predicted_compliance(planned, 'enable', [], True, 'remove', 'try-restart')
    assert verdict == judge.predicted_compliance(planned, 'enable', [], True, 'remove', 'try-restart')
    assert verdict['predicted'] is True and verdict['state'] == 'non_compliant'
    assert verdict['reasons'] == ['legacy.service has PYTHONHTTPSVERIFY=0 from /etc/x/override.conf and no exception '
                                  'in the policy']
    with pytest.raises(AnsibleFilterError, match='planned state'):
        compliance_filters.predicted_compliance(info())


# --- batch_summary: one line per host, from the module results -------------------------------

def applied(cfg=None, services=None, expired=(), check=False, entry_point='main', expired_policy='remove',
            restart='try-restart'):
    return dict(entry_point=entry_point, check_mode=check, cfg=cfg or {}, services=services or {},
                expired=list(expired), expired_policy=expired_policy, restart=restart)


def cfg_result(previous='platform_default', verify='enable', changed=True, consumers=(), probed=True, **kw):
    return dict(kw, previous=previous, verify=verify, changed=changed, consumers=list(consumers), probed=probed)


def svc_result(actions=(), removed=(), restarted=(), pending=(), running=True):
    return dict(services=[dict(name=n, action=a) for n, a in actions],
                removed=[dict(name=n, action='removed') for n in removed],
                restarted=list(restarted), pending_restart=list(pending), systemd_running=running)


def compliant(state='compliant', reasons=(), check=False, predicted=False):
    verdict = dict(state=state, reasons=list(reasons))
    if predicted:
        verdict['predicted'] = True
    return dict(compliance=verdict, check_mode=check)


def test_batch_summary_lists_added_updated_and_removed_separately():
    hv = {'pep493_https_applied': applied(
        cfg_result(), svc_result([('a.service', 'created'), ('b.service', 'updated'), ('c.service', 'unchanged'),
                                  ('old.service', 'removed')], removed=['left.service'], restarted=['a.service']),
        expired=[dict(name='old.service', expires='2020-01-01')]),
        'pep493_https_status': compliant()}
    lines = summary.batch_summary(['web1'], {'web1': hv})
    assert lines == ['batch of 1 host: web1',
                     'web1: compliant; cfg platform_default -> enable (no Python on this host reads the file); '
                     'drop-ins added: a.service; drop-ins updated: b.service; '
                     'drop-ins removed: old.service (expired 2020-01-01), left.service; try-restart: a.service']


def test_batch_summary_says_removed_only_what_was_removed():
    hv = {'pep493_https_applied': applied(cfg_result(verify='enable', previous='enable', changed=False),
                                          svc_result([('old.service', 'unchanged')]),
                                          expired=[dict(name='old.service', expires='2020-01-01')]),
          'pep493_https_status': compliant()}
    line = summary.host_summary('web1', hv)
    assert line == ('web1: compliant; cfg enable (unchanged); drop-ins unchanged; '
                    'expired in the inventory, not applied: old.service (2020-01-01)')
    assert 'removed' not in line and 'no Python' not in line
    hv['pep493_https_applied']['expired_policy'] = 'keep'
    assert summary.host_summary('web1', hv).endswith('expired but kept (pep493_https_expired: keep): old.service')


def test_batch_summary_in_check_mode_says_would():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result([('a.service', 'created')], restarted=['a.service']),
                                          check=True),
          'pep493_https_status': compliant(check=True)}
    line = summary.host_summary('web1', hv)
    assert 'cfg would change platform_default -> enable' in line
    assert 'drop-ins that would be added: a.service' in line
    assert 'would try-restart: a.service' in line


def test_batch_summary_in_check_mode_gives_the_predicted_state_and_its_first_reason():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result([('a.service', 'created')]), check=True),
          'pep493_https_status': compliant('non_compliant', ['legacy.service has PYTHONHTTPSVERIFY=0', 'two'],
                                           check=True, predicted=True)}
    line = summary.host_summary('web1', hv)
    assert line.startswith('web1: would be non_compliant - legacy.service has PYTHONHTTPSVERIFY=0 (+1 more); '
                           'cfg would change platform_default -> enable'), line
    hv['pep493_https_status'] = compliant('compliant_with_exceptions', check=True, predicted=True)
    assert summary.host_summary('web1', hv).startswith('web1: would be compliant_with_exceptions; cfg would change ')
    assert 'audited as the host was' not in summary.host_summary('web1', hv)


def test_batch_summary_says_when_a_real_run_was_not_audited_after_the_change():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result()),
          'pep493_https_status': compliant(predicted=True)}
    assert summary.host_summary('web1', hv).startswith(
        'web1: compliant (predicted; not audited after the change); cfg platform_default -> enable')


def test_batch_summary_names_the_first_reason_of_a_non_compliant_host():
    hv = {'pep493_https_applied': applied(cfg_result(changed=False), svc_result()),
          'pep493_https_status': compliant('non_compliant', ['first reason', 'second', 'third'])}
    assert summary.host_summary('web1', hv).startswith('web1: non_compliant - first reason (+2 more); ')


def test_batch_summary_failure_once_with_what_changed_before_it():
    hv = {'pep493_https_applied': applied(cfg_result(), {}),
          'pep493_https_failure': 'Put the per-service exceptions in place: systemctl daemon-reload failed'}
    assert summary.host_summary('web1', hv) == (
        'web1: FAILED - Put the per-service exceptions in place: systemctl daemon-reload failed; changed before the '
        'failure: cfg platform_default -> enable (no Python on this host reads the file)')
    refused = {'pep493_https_failure': 'Refuse a policy: no'}
    assert summary.host_summary('web2', refused) == 'web2: FAILED - Refuse a policy: no'


def test_batch_summary_without_systemd_and_with_pending_restarts():
    hv = {'pep493_https_applied': applied(cfg_result(consumers=[dict(path='/usr/bin/python')]),
                                          svc_result([('a.service', 'created')], running=False)),
          'pep493_https_status': compliant('pending_restart')}
    line = summary.host_summary('web1', hv)
    assert 'no Python' not in line
    assert line.endswith('drop-ins added: a.service; systemd is not running here: no reload or restart')
    hv['pep493_https_applied']['services'] = svc_result([('a.service', 'created')], pending=['a.service'])
    assert summary.host_summary('web1', hv).endswith('pending a restart: a.service')


def test_rollback_summary_per_host():
    restored = cfg_result(previous='enable', verify='platform_default', restored_from='/etc/python/c.cfg.1.x~',
                          skipped_backups=[dict(path='/etc/python/c.cfg.2.y~', reason='malformed')])
    hv = {'pep493_https_applied': applied(restored, svc_result(removed=['a.service']), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == (
        'web1: cfg restored from /etc/python/c.cfg.1.x~ (enable -> platform_default); malformed backups skipped: '
        '/etc/python/c.cfg.2.y~; drop-ins removed: a.service')
    hv['pep493_https_applied']['check_mode'] = True
    assert summary.host_summary('web1', hv).startswith('web1: cfg would be restored from /etc/python/c.cfg.1.x~')
    gone = cfg_result(previous='enable', verify='missing', restored_from='/etc/python/c.cfg.pep493-original')
    hv = {'pep493_https_applied': applied(gone, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == ('web1: cfg removed: there was no file before its first change '
                                                '(/etc/python/c.cfg.pep493-original); drop-ins unchanged')
    never = cfg_result(verify='enable', changed=False, restored_from=None)
    hv = {'pep493_https_applied': applied(never, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == ('web1: cfg enable left as it is: no backup and no record of it; '
                                                'drop-ins unchanged')
    same = cfg_result(verify='enable', changed=False, restored_from='/etc/python/c.cfg.1.x~')
    hv = {'pep493_https_applied': applied(same, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == 'web1: cfg already as in /etc/python/c.cfg.1.x~; drop-ins unchanged'


def test_batch_summary_under_a_root():
    tree = applied(cfg_result(previous='missing', probed=False), svc_result([('a.service', 'created')], running=False))
    tree['root'] = '/var/tmp/image-root'
    line = summary.host_summary('web1', {'pep493_https_applied': tree, 'pep493_https_status': compliant()})
    assert line == ('web1: compliant; cfg missing -> enable; drop-ins added: a.service; '
                    'under root /var/tmp/image-root: no reload or restart')


# --- fleet_report_merge -----------------------------------------------------------------------

def slice_report(generated, **states):
    audits = dict((host, status(info(), state) if state != 'unreachable' else None) for host, state in states.items())
    return report_filters.fleet_report(sorted(states), audits, generated)


def test_merge_newest_result_per_host_wins_and_sources_are_listed():
    first = slice_report('2026-06-10T08:00:00Z', a='compliant', b='non_compliant', c='compliant')
    second = slice_report('2026-06-12T08:00:00Z', b='compliant', d='pending_restart')
    third = slice_report('2026-06-11T08:00:00Z', a='non_compliant', c='unreachable', e='unreachable')
    merged = report_filters.fleet_report_merge([first, second, third], ['s1.json', 's2.json', 's3.json'],
                                               '2026-06-15T00:00:00Z')
    hosts = dict((h['host'], h) for h in merged['hosts'])
    assert dict((h, e['state']) for h, e in hosts.items()) == dict(
        a='non_compliant', b='compliant', c='compliant', d='pending_restart', e='unreachable')
    assert dict((h, e['source']) for h, e in hosts.items()) == dict(
        a='s3.json', b='s2.json', c='s1.json', d='s2.json', e='s3.json')
    assert hosts['b']['audited'] == '2026-06-12T08:00:00Z'
    assert merged['sources'] == [
        dict(source='s1.json', generated='2026-06-10T08:00:00Z', host_count=3, hosts_used=1),
        dict(source='s2.json', generated='2026-06-12T08:00:00Z', host_count=2, hosts_used=2),
        dict(source='s3.json', generated='2026-06-11T08:00:00Z', host_count=3, hosts_used=2)]
    assert merged['totals'] == dict(compliant=2, compliant_with_exceptions=0, pending_restart=1, non_compliant=1,
                                    unreachable=1)
    assert merged['host_count'] == 5 and merged['compliant'] is False
    assert [h['host'] for h in merged['hosts']] == ['a', 'e', 'd', 'b', 'c']


def test_merge_reads_text_and_counts_days_left_again():
    audits = {'a': with_exceptions('2026-07-15', '2026-06-20')}
    text = json.dumps(report_filters.fleet_report(['a'], audits, '2026-06-01T00:00:00Z'))
    assert json.loads(text)['hosts'][0]['counts']['expiring'] == 1
    merged = report_filters.fleet_report_merge([text], None, '2026-06-15T00:00:00Z')
    rows = merged['hosts'][0]['exceptions']
    assert [r['days_left'] for r in rows] == [30, 5]
    assert merged['hosts'][0]['counts']['expiring'] == 2
    assert merged['sources'][0]['source'] == 'report 1'


def test_merge_reads_schema_1_reports():
    report = slice_report('2026-06-10T08:00:00Z', a='compliant')
    report['schema_version'] = 1
    del report['expiry_warning_days']
    del report['hosts'][0]['counts']['expiring']
    merged = report_filters.fleet_report_merge([report], ['old.json'], '2026-06-15T00:00:00Z')
    assert merged['schema_version'] == report_rules.REPORT_SCHEMA_VERSION
    assert merged['hosts'][0]['counts']['expiring'] == 0


@pytest.mark.parametrize('bad,message', [
    ('{"hosts": ', 'report bad.json is not JSON'),
    ('[1, 2]', 'report bad.json is not a fleet report'),
    (dict(schema_version=9, generated='2026-06-10T08:00:00Z', hosts=[]), 'schema_version 9'),
    (dict(schema_version=2, generated='yesterday', hosts=[]), 'generated'),
    (dict(schema_version=2, generated='2026-06-10T08:00:00Z', hosts=[dict(host='a')]), 'hosts is not a list'),
])
def test_merge_refuses_what_is_not_a_report_and_names_it(bad, message):
    good = slice_report('2026-06-10T08:00:00Z', a='compliant')
    with pytest.raises(AnsibleFilterError, match=message):
        report_filters.fleet_report_merge([good, bad], ['good.json', 'bad.json'])


def test_merge_needs_reports_and_one_name_each():
    with pytest.raises(AnsibleFilterError, match='no report'):
        report_filters.fleet_report_merge([])
    with pytest.raises(AnsibleFilterError, match='source names'):
        report_filters.fleet_report_merge([slice_report('2026-06-10T08:00:00Z', a='compliant')], ['x', 'y'])


def test_fleet_report_shows_a_hand_made_drop_in_from_a_real_audit_record(tmp_path):
    """The audit's own record of a host model: a foreign override.conf, later covered by the
    collection's drop-in (which sorts last and wins), stays in the report beside the exception."""
    from ansible_collections.pep493.https.plugins.module_utils._report import services as records
    from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
    from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
    from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
    from ansible_collections.pep493.https.tests.unit.tree import write
    etc = '/etc/systemd/system'
    write(tmp_path, '/usr/lib/systemd/system/legacy.service', b'[Service]\nExecStart=/usr/bin/python2.7 /srv/app\n')
    write(tmp_path, etc + '/legacy.service.d/override.conf', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')
    write(tmp_path, etc + '/legacy.service.d/zz-pep493-https.conf',
          dropin.render_dropin(False, 'vendor CA', dates.validate_expires('2026-12-31')))
    services = records.scan_services(hostmodel.Host(hostfiles.HostFiles(str(tmp_path))), datetime.date(2026, 6, 15))
    report = report_filters.fleet_report(['a'], {'a': status(info(services=services), 'compliant_with_exceptions')})
    row = report['hosts'][0]['exceptions'][0]
    assert (row['unit'], row['managed'], row['foreign']) == ('legacy.service', True, [etc + '/legacy.service.d/override.conf'])


def full_svc_result(actions):
    return dict(changed=any(a != 'unchanged' for n, a in actions), systemd_running=False, reloaded=False,
                restarted=[], pending_restart=[], msg='m', warnings=['w'],
                services=[dict(name=n, action=a, path='/etc/systemd/system/%s.d/zz.conf' % n, state='present',
                               verify=False, expired=False, unit_known=True, effective=True, effect='python2')
                          for n, a in actions],
                removed=[dict(name='old.service', action='removed', reason='r', expires=TODAY)])


def test_applied_services_keeps_only_the_changes_and_the_summary_says_the_same():
    full = full_svc_result([('a.service', 'created'), ('b.service', 'unchanged'), ('c.service', 'updated')])
    kept = role_state.applied_services(full)
    assert kept == dict(changed=True, msg='m', systemd_running=False, reloaded=False, restarted=[], pending_restart=[],
                        services=[dict(name='a.service', action='created'), dict(name='c.service', action='updated')],
                        unchanged=1, removed=[dict(name='old.service', action='removed')])
    line = summary.host_summary('h', {'pep493_https_applied': applied(cfg_result(), kept),
                                      'pep493_https_status': compliant()})
    assert line == summary.host_summary('h', {'pep493_https_applied': applied(cfg_result(), full),
                                              'pep493_https_status': compliant()})
    assert role_state.applied_services({'skipped': True, 'changed': False}) == dict(skipped=True, changed=False)
    assert role_state.applied_services(None) == {}


def predicted_status(verify='enable', planned_changes=(), readers=False):
    interpreters = [dict(path='/usr/bin/python2', reads_config=readers, verifies_by_default=None)]
    return dict(policy=dict(verify=verify), check_mode=False, predicted=True,
                info=dict(info(), planned=True, planned_changes=list(planned_changes), interpreters=interpreters),
                compliance=dict(state='compliant', compliant=True, reasons=[], warnings=[], predicted=True))


UNCHANGED_CFG = cfg_result(previous='enable', changed=False)


def test_prediction_as_audit_when_nothing_changed():
    status = predicted_status()
    audit = role_state.prediction_as_audit(status, UNCHANGED_CFG, full_svc_result([('a.service', 'unchanged')]))
    assert audit['prediction_reused'] is True and 'predicted' not in audit and 'predicted' not in audit['compliance']
    assert audit['info'] == status['info'] and audit['compliance']['state'] == 'compliant'
    assert summary.host_summary('h', {'pep493_https_applied': applied(UNCHANGED_CFG, svc_result()),
                                      'pep493_https_status': audit}) == ('h: compliant; cfg enable (unchanged); '
                                                                         'drop-ins unchanged')
    # nothing to write: the drop-in task skipped by its own condition
    skipped = dict(skipped=True, changed=False)
    assert role_state.prediction_as_audit(status, UNCHANGED_CFG, skipped)['prediction_reused'] is True


@pytest.mark.parametrize('cfg, services, status, verify', [
    (cfg_result(), full_svc_result([('a.service', 'unchanged')]), predicted_status(), 'enable'),
    (UNCHANGED_CFG, full_svc_result([('a.service', 'created')]), predicted_status(), 'enable'),
    (None, full_svc_result([('a.service', 'unchanged')]), predicted_status(), 'enable'),   # not run (tags)
    (UNCHANGED_CFG, None, predicted_status(), 'enable'),
    (dict(UNCHANGED_CFG, failed=True), full_svc_result([]), predicted_status(), 'enable'),
    (UNCHANGED_CFG, dict(full_svc_result([]), failed=True), predicted_status(), 'enable'),
    (UNCHANGED_CFG, dict(skipped=True, changed=False, failed=True), predicted_status(), 'enable'),
    (UNCHANGED_CFG, full_svc_result([]), predicted_status(planned_changes=[dict(path='/x', action='created')]),
     'enable'),
    (UNCHANGED_CFG, full_svc_result([]), predicted_status(verify='platform_default', readers=True),
     'platform_default'),
    (UNCHANGED_CFG, full_svc_result([]), dict(predicted_status(), check_mode=True), 'enable'),
])
def test_prediction_is_not_the_audit_where_the_two_could_differ(cfg, services, status, verify):
    assert role_state.prediction_as_audit(status, cfg, services, verify) is status


def test_prediction_as_audit_leaves_an_audit_alone():
    audit = dict(predicted_status(), predicted=False)
    assert role_state.prediction_as_audit(audit, UNCHANGED_CFG, full_svc_result([])) is audit
    assert role_state.prediction_as_audit(None, UNCHANGED_CFG, full_svc_result([])) is None


# --- a writing module left out when the prediction shows it would change nothing -------------------

SKIPPED = dict(skipped=True, changed=False, false_condition='not __pep493_https_unchanged.cfg')
CFG_CHANGE = dict(path='/etc/python/cert-verification.cfg', action='updated', kind='cfg')
DROPIN_CHANGE = dict(path='/etc/systemd/system/a.service.d/zz-pep493-https.conf', action='created', kind='dropin')


@pytest.mark.parametrize('changes, refusals, expected', [
    ([], [], dict(cfg=True, services=True)),
    ([CFG_CHANGE], [], dict(cfg=False, services=True)),
    ([DROPIN_CHANGE], [], dict(cfg=True, services=False)),
    ([CFG_CHANGE, DROPIN_CHANGE], [], dict(cfg=False, services=False)),
    # cert_verification would refuse the file: it runs, to fail with its own message
    ([], ['planned: cert_verification would refuse /etc/python/cert-verification.cfg: malformed'],
     dict(cfg=False, services=True)),
    # a change of no known kind could be either
    ([dict(path='/x', action='created')], [], dict(cfg=False, services=False)),
    (['not a change'], [], dict(cfg=False, services=False)),
])
def test_unchanged_by_plan_leaves_out_only_a_module_with_nothing_to_change(changes, refusals, expected):
    prediction = dict(info(), planned=True, planned_changes=changes, planned_refusals=refusals, changed=False)
    assert role_state.unchanged_by_plan(prediction) == expected


@pytest.mark.parametrize('prediction', [
    None, {}, 'text', dict(info(), planned=False, planned_changes=[]),     # the host as it is, not a plan
    dict(info(), planned=True),                                             # no planned_changes
    dict(info(), planned=True, planned_changes=[], failed=True),
    dict(skipped=True, changed=False),
])
def test_unchanged_by_plan_runs_every_module_without_a_good_prediction(prediction):
    assert role_state.unchanged_by_plan(prediction) == dict(cfg=False, services=False)


def test_a_module_left_out_is_summarised_as_unchanged_and_the_prediction_is_the_audit():
    unchanged = dict(cfg=True, services=True)
    cfg = role_state.applied_cfg(SKIPPED, unchanged, 'enable')
    assert cfg == dict(changed=False, verify='enable', previous='enable', unchanged_by_plan=True,
                       msg='the prediction planned no change to the file: not run')
    services = role_state.applied_services(SKIPPED, unchanged, [exc('a.service'), exc('b.service')])
    assert services['changed'] is False and services['unchanged_by_plan'] is True and services['unchanged'] == 2
    assert services['services'] == services['removed'] == services['restarted'] == services['pending_restart'] == []
    status = predicted_status()
    audit = role_state.prediction_as_audit(status, cfg, services)
    assert audit['prediction_reused'] is True
    assert summary.host_summary('h', {'pep493_https_applied': applied(cfg, services), 'pep493_https_status': audit}) \
        == 'h: compliant; cfg enable (unchanged); drop-ins unchanged'


@pytest.mark.parametrize('result, unchanged', [
    (SKIPPED, dict(cfg=False, services=False)),          # skipped for another reason (tags, its own condition)
    (SKIPPED, None),
    (dict(SKIPPED, failed=True), dict(cfg=True, services=True)),
    (UNCHANGED_CFG, dict(cfg=True, services=True)),       # it ran: its own result
])
def test_only_a_module_left_out_by_the_prediction_is_given_as_unchanged(result, unchanged):
    assert role_state.applied_cfg(result, unchanged, 'enable') is result
    assert role_state.applied_services(result, unchanged, []) == role_state.applied_services(result)


# --- predicted_status: the enforce entry point's status from its prediction, in one step ----------

def planned_info(changes=(), refusals=(), readers=False, services=()):
    interpreters = [dict(path='/usr/bin/python2', reads_config=readers, verifies_by_default=None)]
    return dict(info(services=services), planned=True, planned_changes=list(changes), planned_refusals=list(refusals),
                interpreters=interpreters, changed=False)


def test_predicted_status_is_the_prediction_and_its_verdict():
    prediction = planned_info(changes=[CFG_CHANGE], services=[svc('legacy.service')])
    allowed, gone = [exc('legacy.service')], [exc('old.service', expires='2026-01-01')]
    status = role_state.predicted_status(prediction, 'enable', allowed, False, gone, 'keep', 'try-restart', True)
    assert status == dict(policy=dict(verify='enable', exclusive=False, exceptions=allowed, expired=gone),
                          info=prediction, check_mode=True, predicted=True,
                          compliance=compliance_filters.predicted_compliance(prediction, 'enable', allowed, False, 'keep',
                                                                             'try-restart'))


def test_a_prediction_that_plans_no_change_is_the_audit():
    prediction = planned_info()
    status = role_state.predicted_status(prediction)
    # the same as taking it as the audit after both writing modules were left out
    unchanged = role_state.unchanged_by_plan(prediction)
    expected = role_state.prediction_as_audit(
        dict(role_state.predicted_status(prediction, check_mode=True), check_mode=False),
        role_state.applied_cfg(SKIPPED, unchanged, 'enable'), role_state.applied_services(SKIPPED, unchanged), 'enable')
    assert status == expected
    assert status['prediction_reused'] is True and 'predicted' not in status and 'predicted' not in status['compliance']
    assert status['info'] is prediction and status['compliance']['state'] == 'compliant'


@pytest.mark.parametrize('prediction, verify, check_mode', [
    (planned_info(changes=[CFG_CHANGE]), 'enable', False),                 # the cfg module runs
    (planned_info(changes=[DROPIN_CHANGE]), 'enable', False),              # the drop-in module runs
    (planned_info(changes=[dict(path='/x', action='created')]), 'enable', False),
    (planned_info(refusals=['planned: cert_verification would refuse the file']), 'enable', False),
    (planned_info(readers=True), 'platform_default', False),               # the readers get no verdict
    (planned_info(), 'enable', True),                                       # check mode: nothing applied
])
def test_a_prediction_stays_a_prediction_where_the_audit_could_differ(prediction, verify, check_mode):
    status = role_state.predicted_status(prediction, verify, check_mode=check_mode)
    assert status['predicted'] is True and 'prediction_reused' not in status


def test_predicted_status_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError, match='planned state'):
        role_state_filters.FilterModule().filters()["predicted_status"](info())
