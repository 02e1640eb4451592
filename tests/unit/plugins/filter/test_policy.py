# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy role's filters: exception planning, compliance, the fleet report, backups."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.filter import policy

TODAY = '2026-06-15'


def exc(name, reason='vendor agent pins an old CA', expires='2026-12-31', verify=False):
    return dict(name=name, verify=verify, reason=reason, expires=expires)


# --- exception_plan -------------------------------------------------------------------------

def test_plan_canonical_names_and_split_by_expiry():
    plan = policy.exception_plan([exc('legacy-app'), exc('old.service', expires='2026-06-14'),
                                  exc('today', expires=TODAY)], TODAY)
    assert plan['problems'] == []
    assert [e['name'] for e in plan['active']] == ['legacy-app.service', 'today.service']
    assert [e['name'] for e in plan['expired']] == ['old.service']
    assert plan['allowed'] == plan['active']
    assert plan['services'] == plan['active'] + [dict(name='old.service', state='absent')]
    assert plan['active'][0] == dict(name='legacy-app.service', verify=False,
                                     reason='vendor agent pins an old CA', expires='2026-12-31')


def test_plan_keep_passes_expired_entries_on():
    plan = policy.exception_plan([exc('a'), exc('b', expires='2020-01-01')], TODAY, expired='keep')
    assert [e['name'] for e in plan['services']] == ['a.service', 'b.service']
    assert plan['allowed'] == plan['services']
    assert all('state' not in e for e in plan['services'])
    assert plan['problems'] == []


def test_plan_fail_names_the_expired_entry():
    plan = policy.exception_plan([exc('b', expires='2020-01-01')], TODAY, expired='fail')
    assert len(plan['problems']) == 1
    assert 'b.service' in plan['problems'][0] and '2020-01-01' in plan['problems'][0]


@pytest.mark.parametrize('entry, missing', [
    (dict(name='x'), 'no reason and no expires'),
    (dict(name='x', reason='why'), 'no expires'),
    (dict(name='x', expires='2027-01-01'), 'no reason'),
    (dict(name='x', reason='   ', expires='2027-01-01'), 'no reason'),
])
def test_plan_requires_reason_and_expiry_naming_the_entry(entry, missing):
    plan = policy.exception_plan([exc('fine'), entry], TODAY)
    assert len(plan['problems']) == 1
    assert 'pep493_https_exceptions[1] (x.service)' in plan['problems'][0]
    assert missing in plan['problems'][0]


def test_plan_without_justification_requirement_accepts_bare_entries():
    plan = policy.exception_plan([dict(name='x')], TODAY, require_justification=False)
    assert plan['problems'] == []
    assert plan['services'] == [dict(name='x.service', verify=False, reason=None, expires=None)]


def test_plan_refuses_bad_dates_duplicates_and_missing_names():
    plan = policy.exception_plan([exc('a', expires='2026-02-30'), exc('b', expires='next week'),
                                  exc('c'), exc('c.service'), dict(verify=False)], TODAY)
    text = ' | '.join(plan['problems'])
    assert len(plan['problems']) == 4, text
    assert 'a.service' in text and 'not a real date' in text
    assert 'b.service' in text and 'YYYY-MM-DD' in text
    assert 'listed twice' in text
    assert 'pep493_https_exceptions[4] has no name' in text


def test_plan_accepts_yaml_dates():
    plan = policy.exception_plan([exc('a', expires=datetime.date(2027, 1, 2))], datetime.date(2026, 1, 1))
    assert plan['active'][0]['expires'] == '2027-01-02'


def test_plan_rejects_unknown_expired_policy():
    with pytest.raises(AnsibleFilterError):
        policy.exception_plan([], TODAY, expired='ignore')


# --- compliance -----------------------------------------------------------------------------

def info(verify='enable', services=(), valid=True, host_default=True, global_=None):
    return dict(config=dict(path='/etc/python/cert-verification.cfg', verify=verify, valid=valid),
                services=list(services), summary=dict(host_default=host_default, findings=[]),
                **{'global': global_ or {}})


def svc(unit, value='0', managed=True, **kw):
    data = dict(unit=unit, value=value, managed=managed, expired=False, pending_restart=False, effective=True)
    data.update(kw)
    return data


def test_compliant_host():
    result = policy.compliance(info(), 'enable', [])
    assert result == dict(state='compliant', compliant=True, reasons=[], warnings=[])


def test_allowed_exception_makes_compliant_with_exceptions():
    allowed = [dict(name='legacy.service', verify=False)]
    result = policy.compliance(info(services=[svc('legacy.service')]), 'enable', allowed)
    assert result['state'] == 'compliant_with_exceptions'
    assert result['compliant'] is True


def test_wrong_cfg_value_is_non_compliant():
    result = policy.compliance(info(verify='platform_default'), 'enable', [])
    assert result['state'] == 'non_compliant'
    assert 'verify=platform_default' in result['reasons'][0]


def test_malformed_cfg_is_non_compliant():
    result = policy.compliance(info(verify='platform_default', valid=False), 'enable', [])
    assert result['compliant'] is False
    assert 'malformed' in result['reasons'][0]


def test_unlisted_opt_out_is_non_compliant_and_names_its_source():
    result = policy.compliance(info(services=[svc('rogue.service', managed=False, source='/etc/x.conf')]),
                               'enable', [])
    assert result['state'] == 'non_compliant'
    assert 'rogue.service' in result['reasons'][0] and '/etc/x.conf' in result['reasons'][0]


def test_managed_leftover_tolerated_only_when_not_exclusive():
    host = info(services=[svc('left.service')])
    assert policy.compliance(host, 'enable', [], exclusive=True)['state'] == 'non_compliant'
    loose = policy.compliance(host, 'enable', [], exclusive=False)
    assert loose['compliant'] is True
    assert 'left.service' in loose['warnings'][0]


def test_expired_exception_in_effect():
    host = info(services=[svc('old.service', expired=True, expires='2020-01-01')])
    assert policy.compliance(host, 'enable', [], expired='remove')['state'] == 'non_compliant'
    kept = policy.compliance(host, 'enable', [dict(name='old.service', verify=False)], expired='keep')
    assert kept['compliant'] is True


def test_exception_with_wrong_value_is_non_compliant():
    host = info(services=[svc('forced.service', value='0')])
    result = policy.compliance(host, 'enable', [dict(name='forced', verify=True)])
    assert result['state'] == 'non_compliant'
    assert 'the policy says 1' in result['reasons'][0]


def test_pending_restart_and_ineffective_are_reported():
    host = info(services=[svc('a.service', pending_restart=True), svc('py3.service', effective=False)])
    allowed = [dict(name='a', verify=False), dict(name='py3', verify=False)]
    result = policy.compliance(host, 'enable', allowed)
    assert result['state'] == 'pending_restart'
    assert result['compliant'] is True
    assert result['reasons'] == []


def test_missing_exception_is_a_warning():
    result = policy.compliance(info(), 'enable', [dict(name='later', verify=False)])
    assert result['state'] == 'compliant'
    assert 'later.service' in result['warnings'][0] and 'not in place' in result['warnings'][0]


def test_missing_cfg_file_is_named_as_missing():
    host = info(verify='missing')
    host['config']['exists'] = False
    result = policy.compliance(host, 'enable', [])
    assert result['reasons'] == ['/etc/python/cert-verification.cfg does not exist, the policy says verify=enable']


def test_global_opt_out_as_verification_info_reports_it():
    host = info(global_=[{'source': 'etc_environment', 'path': '/etc/environment', 'line': 3, 'action': 'set',
                          'value': '0', 'disables': True},
                         {'source': 'manager_environment', 'path': None, 'action': 'set', 'value': '1',
                          'disables': False},
                         {'source': 'profile_d', 'path': '/etc/profile.d/x.sh', 'action': 'mention', 'value': None,
                          'disables': False}])
    result = policy.compliance(host, 'enable', [])
    assert result['reasons'] == ['PYTHONHTTPSVERIFY=0 is set host-wide in /etc/environment: it turns verification '
                                 'off for every Python 2 program that inherits it']


def test_global_opt_out_anywhere_is_non_compliant():
    host = info(global_={'environment': [{'path': '/etc/environment', 'value': '0'}],
                         'manager': {'value': '1'}})
    result = policy.compliance(host, 'enable', [])
    assert result['state'] == 'non_compliant'
    assert '/etc/environment' in result['reasons'][0]
    assert len(result['reasons']) == 1


def test_python2_not_verifying_is_non_compliant_under_enable_only():
    host = info(verify='platform_default', host_default=False)
    assert policy.compliance(info(host_default=False), 'enable', [])['state'] == 'non_compliant'
    assert policy.compliance(host, 'platform_default', [])['state'] == 'compliant'


def test_unreachable_host_is_not_judged_on_an_empty_result():
    result = policy.compliance({'unreachable': True, 'msg': 'Container not found', 'changed': False}, 'enable', [])
    assert result == dict(state='unreachable', compliant=False, reasons=['no audit result: Container not found'],
                          warnings=[])
    report = policy.fleet_report(['x'], {'x': dict(info={'unreachable': True}, compliance=result)})
    assert report['hosts'][0]['state'] == 'unreachable'
    assert 'Container not found' in report['hosts'][0]['reasons'][0]


def test_compliance_rejects_garbage():
    with pytest.raises(AnsibleFilterError):
        policy.compliance('not a result')


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
    report = policy.fleet_report(['a', 'b', 'c', 'd', 'e'], audits, '2026-06-15T00:00:00Z')
    assert report['host_count'] == 5
    assert report['totals'] == dict(compliant=1, compliant_with_exceptions=0, pending_restart=1,
                                    non_compliant=1, unreachable=2)
    assert report['compliant'] is False
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert [h['host'] for h in report['hosts']] == ['a', 'b', 'c', 'd', 'e']
    assert hosts['b']['verify'] == 'disable' and hosts['b']['expected_verify'] == 'enable'
    assert hosts['c']['counts'] == dict(exceptions=2, expired=1, pending_restart=1, ineffective=1)
    assert hosts['c']['pending_restart'] == ['y.service']
    assert 'boom' in hosts['d']['reasons'][0]
    assert hosts['e']['state'] == 'unreachable'


def test_fleet_report_reads_hostvars_like_mappings():
    hostvars = {'a': {'inventory_hostname': 'a', 'pep493_https_status': status(info(), 'compliant')},
                'b': {'inventory_hostname': 'b'}}
    report = policy.fleet_report(['a', 'b'], hostvars)
    assert [h['state'] for h in report['hosts']] == ['compliant', 'unreachable']


def test_fleet_report_all_compliant():
    report = policy.fleet_report(['a'], {'a': status(info(), 'compliant')})
    assert report['compliant'] is True


# --- newest_backup --------------------------------------------------------------------------

def test_newest_backup_by_name_stamp_not_mtime():
    files = [dict(path='/etc/python/cert-verification.cfg.99.2026-01-02@10:00:00~', mtime=5),
             dict(path='/etc/python/cert-verification.cfg.12.2026-03-01@09:00:00~', mtime=1),
             dict(path='/etc/python/cert-verification.cfg.rpmnew', mtime=9)]
    assert policy.newest_backup(files) == '/etc/python/cert-verification.cfg.12.2026-03-01@09:00:00~'


def test_newest_backup_none():
    assert policy.newest_backup([]) is None
    assert policy.newest_backup(['/etc/python/other']) is None


def test_filters_are_registered():
    names = set(policy.FilterModule().filters())
    assert names == set(['exception_plan', 'compliance', 'fleet_report', 'batch_summary', 'newest_backup'])


# --- batch_summary --------------------------------------------------------------------------

def test_batch_summary_lines():
    hostvars = {
        'a': {'pep493_https_status': {'compliance': {'state': 'compliant'}},
              '__pep493_https_cfg': {'changed': True, 'previous': 'platform_default', 'verify': 'enable'},
              '__pep493_https_services': {'services': [{'name': 'x.service', 'action': 'created'},
                                                       {'name': 'y.service', 'action': 'unchanged'}],
                                          'removed': [{'name': 'z.service', 'action': 'removed'}]},
              '__pep493_https_restart_verb': 'try-restart', '__pep493_https_restart_units': ['x.service'],
              '__pep493_https_plan': {'expired': [{'name': 'old.service', 'expires': '2020-01-01'}]}},
        'b': {'__pep493_https_enforce_error': 'Refuse a host-wide disable: no'},
    }
    lines = policy.batch_summary(['a', 'b'], hostvars)
    assert lines == ['batch of 2 hosts: a, b',
                     'a: compliant; cfg platform_default -> enable; drop-ins changed: x.service, z.service; '
                     'expired exceptions removed: old.service; try-restart: x.service',
                     'b: FAILED - Refuse a host-wide disable: no']
