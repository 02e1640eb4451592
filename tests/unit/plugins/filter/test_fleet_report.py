# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report and its merge (filters fleet_report and fleet_report_merge over
plugins/plugin_utils/fleet_report.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.pep493.https.plugins.filter import compliance as compliance_filters
from ansible_collections.pep493.https.plugins.filter import fleet_report as report_filters
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report as report_rules
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import (
    TODAY, exc, info, slice_report, status, svc, with_exceptions)


def test_unreachable_host_in_the_report():
    result = compliance_filters.compliance({'unreachable': True, 'msg': 'Container not found', 'changed': False}, 'enable', [])
    report = report_filters.fleet_report(['x'], {'x': dict(info={'unreachable': True}, compliance=result)})
    assert report['hosts'][0]['state'] == 'unreachable'
    assert 'Container not found' in report['hosts'][0]['reasons'][0]


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


def test_fleet_report_sorts_hosts_without_risk_by_state_then_name():
    audits = {
        'web-10': status(info(), 'compliant'),
        'web-2': status(info(), 'compliant'),
        'db-1': with_exceptions('2027-01-01'),
        'db-2': with_exceptions('2026-06-20'),
        'app-1': status(info(), 'pending_restart'),
        'app-9': status(info(verify='disable'), 'non_compliant'),
    }
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z')
    # db-2's exception ends within the warning window: it ranks first; the others by state, then name
    assert [h['host'] for h in report['hosts']] == ['db-2', 'app-9', 'gone', 'app-1', 'db-1', 'web-2', 'web-10']
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z', 4)
    assert [h['host'] for h in report['hosts']] == ['app-9', 'gone', 'app-1', 'db-1', 'db-2', 'web-2', 'web-10']
    audits['db-1'] = with_exceptions('2026-06-18')
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z')
    # expiring soon: the exception that ends soonest first
    assert [h['host'] for h in report['hosts']][:2] == ['db-1', 'db-2']
    audits['db-1'] = with_exceptions('2026-06-25')
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z')
    assert [h['host'] for h in report['hosts']][:2] == ['db-2', 'db-1']


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
    ('{"hosts": ', 'bad.json: not JSON: '),
    ('[1, 2]', r'bad.json is a list, not a fleet report \(a JSON object with hosts\)'),
    (dict(schema_version=9, generated='2026-06-10T08:00:00Z', hosts=[]), 'bad.json: schema_version is 9; this collection'),
    (dict(schema_version=True, generated='2026-06-10T08:00:00Z', hosts=[]), 'bad.json: schema_version is True'),
    (dict(schema_version=2, generated='yesterday', hosts=[]), "bad.json: generated is 'yesterday', not a time"),
    (dict(schema_version=2, generated='2026-06-10T08:00:00Z', hosts=[dict(host='a')]),
     r'bad.json: hosts\[0\] \(a\) has no state. Nothing was merged, no report was written.'),
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


def running(unit, value='0', pid=4242, **kw):
    """A service record whose main process runs with ``value``."""
    return svc(unit, main_pid=pid, running_value=value, **kw)


def python(version, verifies):
    return dict(path='/usr/bin/python%s' % version[:3], version=version, verifies_by_default=verifies,
                reads_config=None, honours_env=version.startswith('2'))


def audited(state, services=(), interpreters=None, host_default=True, verify='enable', global_=None, allowed=None,
            config=None):
    """An audit; ``interpreters`` None: not probed (under root)."""
    audit = status(info(verify=verify, services=services, host_default=host_default, global_=global_), state)
    audit['info']['interpreters'] = list(interpreters or [])
    audit['info']['summary']['python2_interpreters'] = (
        None if interpreters is None else len([i for i in interpreters if i['version'][0] == '2']))
    if config:
        audit['info']['config'].update(config)
    if state == 'non_compliant':
        audit['compliance'].update(compliant=False, reasons=['the audit says why'])
    if allowed is not None:
        audit['policy']['exceptions'] = allowed
    return audit


BREAK = dict(service='legacy.service', endpoint='10.0.4.7:636', result='untrusted', issuer='commonName=Corp CA',
             error='x', advice='trust its CA or this certificate')


def test_hosts_rank_by_risk_then_by_state_and_name():
    """First the hosts where a running Python 2 does not verify; then those where the forecast
    predicts a break; then those with an exception ending within the warning window; then the
    rest, by state, then name. A host without Python 2 whose cfg file is missing is not at risk."""
    legacy = exc('legacy.service', expires='2026-06-20')
    audits = {
        'py2-off': audited('non_compliant', interpreters=[python('2.7.5', False)], host_default=False),
        'host-wide': audited('non_compliant', host_default=None, global_=[dict(
            source='etc_environment', path='/etc/environment', line=3, action='set', value='0', disables=True)]),
        'svc-off': audited('non_compliant', services=[running('rogue.service', managed=False, source='/x.conf')],
                           interpreters=[python('2.7.18', True)]),
        'svc-expired': audited('non_compliant', interpreters=[python('2.7.18', True)], allowed=[],
                               services=[running('old.service', expires='2026-06-01', expired=True)]),
        'svc-exempt': audited('compliant_with_exceptions', interpreters=[python('2.7.18', True)], allowed=[legacy],
                              services=[running('legacy.service', expires='2026-06-20')]),
        'svc-py3': audited('compliant', interpreters=[python('3.9.2', True)],
                           services=[running('tool.service', managed=False, effective=False)]),
        'no-py2-no-cfg': audited('non_compliant', interpreters=[python('3.11.2', True)], host_default=None,
                                 config=dict(exists=False, verify='missing')),
        'breaks': audited('compliant', interpreters=[python('2.7.18', True)]),
        'fine': audited('compliant', interpreters=[python('2.7.18', True)]),
    }
    forecasts = {'breaks': dict(breaks=[BREAK], granted=[]), 'fine': dict(breaks=[], granted=[])}
    report = report_filters.fleet_report(sorted(audits) + ['gone'], audits, TODAY + 'T00:00:00Z', 30, forecasts)
    order = [(h['host'], h['risk']['rank']) for h in report['hosts']]
    assert order == [('host-wide', 1), ('py2-off', 1), ('svc-expired', 1), ('svc-off', 1), ('breaks', 2),
                     ('svc-exempt', 3), ('no-py2-no-cfg', 4), ('gone', 4), ('fine', 4), ('svc-py3', 4)]
    why = dict((h['host'], h['risk']['why']) for h in report['hosts'])
    assert why['py2-off'] == '/usr/bin/python2.7 (Python 2.7.5) does not verify HTTPS certificates by default'
    assert why['host-wide'] == 'PYTHONHTTPSVERIFY=0 is set host-wide in /etc/environment'
    assert why['svc-off'] == 'rogue.service runs Python 2 with PYTHONHTTPSVERIFY=0 (process 4242) and no exception'
    assert why['svc-expired'] == ('old.service runs Python 2 with PYTHONHTTPSVERIFY=0 (process 4242) and its exception '
                                  'expired on 2026-06-01')
    assert why['breaks'] == ('1 service would break once it verifies: legacy.service on 10.0.4.7:636 (untrusted, '
                             'issuer commonName=Corp CA)')
    assert why['svc-exempt'] == "legacy.service's exception ends in 5 days (2026-06-20)"
    assert why['no-py2-no-cfg'] == 'Not compliant: the audit says why'
    assert why['fine'] == 'Compliant'
    assert why['gone'] == 'No audit result (the host was unreachable or the audit did not run on it)'
    assert all('\n' not in text for text in why.values())
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert hosts['breaks']['would_break'] == [dict(service='legacy.service', endpoint='10.0.4.7:636', result='untrusted',
                                                   issuer='commonName=Corp CA', advice=BREAK['advice'], until=None, unfixed=None)]
    assert hosts['fine']['would_break'] == [] and hosts['svc-off']['would_break'] is None


def test_the_forecast_comes_from_hostvars_too():
    hostvars = {'a': {'inventory_hostname': 'a', 'pep493_https_status': status(info(), 'compliant'),
                      'pep493_https_forecast_result': dict(breaks=[BREAK], granted=[dict(
                          name='legacy.service', verify=False, reason='forecast: ...', expires='2026-07-01')])}}
    entry = report_filters.fleet_report(['a'], hostvars, TODAY + 'T00:00:00Z')['hosts'][0]
    assert entry['risk']['rank'] == 2 and entry['would_break'][0]['until'] == '2026-07-01'


def test_what_the_policy_s_cas_fix_and_what_they_leave_broken_are_in_the_report_and_its_merge():
    unfixed = '; trusting acme (it names the issuer, issuer name only) does not fix it: untrusted'
    forecast = dict(breaks=[dict(BREAK, unfixed=unfixed)], granted=[],
                    fixed=[dict(service='agent.service', fixed_by=['acme'], endpoints=['10.0.0.8:8440']),
                           dict(service='other.service', fixed_by=[], endpoints=[])])
    hostvars = {'a': {'inventory_hostname': 'a', 'pep493_https_status': status(info(), 'compliant'),
                      'pep493_https_forecast_result': forecast},
                'b': {'inventory_hostname': 'b', 'pep493_https_status': status(info(), 'compliant')}}
    report = report_filters.fleet_report(['a', 'b'], hostvars, TODAY + 'T00:00:00Z')
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert hosts['a']['fixed_by_ca'] == [dict(service='agent.service', fixed_by=['acme'], endpoints=['10.0.0.8:8440'])]
    assert hosts['a']['would_break'][0]['unfixed'] == ('trusting acme (it names the issuer, issuer name only) does '
                                                       'not fix it: untrusted')
    assert hosts['b']['fixed_by_ca'] is None       # not forecast
    merged = report_filters.fleet_report_merge([json.loads(json.dumps(report))], ['r.json'], TODAY + 'T01:00:00Z')
    kept = dict((h['host'], h) for h in merged['hosts'])
    assert kept['a']['fixed_by_ca'] == hosts['a']['fixed_by_ca'] and kept['a']['would_break'] == hosts['a']['would_break']
    spoiled_report = json.loads(json.dumps(report))
    spoiled_report['hosts'][0]['fixed_by_ca'] = [dict(service=None, fixed_by='acme', endpoints=[])]
    with pytest.raises(AnsibleFilterError, match=r'r.json: hosts\[0\] \(a\).fixed_by_ca\[0\].fixed_by is text'):
        report_filters.fleet_report_merge([spoiled_report], ['r.json'], TODAY + 'T01:00:00Z')


def test_a_merge_ranks_again_from_the_day_of_the_merge():
    audits = {'a': with_exceptions('2026-08-01'), 'b': status(info(), 'compliant')}
    early = report_filters.fleet_report(['a', 'b'], audits, TODAY + 'T00:00:00Z')
    assert dict((h['host'], h['risk']['rank']) for h in early['hosts']) == dict(a=4, b=4)
    merged = report_filters.fleet_report_merge([early], ['r.json'], '2026-07-10T00:00:00Z')
    assert [(h['host'], h['risk']['rank']) for h in merged['hosts']] == [('a', 3), ('b', 4)]


def three_hosts(generated='2026-06-10T08:00:00Z'):
    return slice_report(generated, **{'web-5': 'compliant', 'web-6': 'non_compliant', 'web-7': 'compliant'})


def spoiled(change):
    """A good report with ``change(report, hosts by name)`` applied."""
    report = three_hosts()
    change(report, dict((h['host'], h) for h in report['hosts']))
    return report


@pytest.mark.parametrize('change, field', [
    (lambda r, h: h['web-7'].update(reasons=5), 'hosts[2] (web-7).reasons is a number, not a list of text'),
    (lambda r, h: h['web-7'].update(reasons=['ok', ['x']]), 'hosts[2] (web-7).reasons[1] is a list, not text'),
    (lambda r, h: h['web-6'].update(findings={}), 'hosts[0] (web-6).findings is a mapping, not a list of text'),
    (lambda r, h: h['web-5'].pop('verify'), 'hosts[1] (web-5) has no verify'),
    (lambda r, h: h['web-5'].update(verify='maybe'), "hosts[1] (web-5).verify is 'maybe', not one of enable, disable"),
    (lambda r, h: h['web-5'].update(host=['web-5']), 'hosts[1].host is a list, not text'),
    (lambda r, h: h['web-5'].update(state='fine'), "hosts[1] (web-5).state is 'fine', not one of compliant"),
    (lambda r, h: h['web-5'].update(compliant='yes'), "hosts[1] (web-5).compliant is text, not true or false"),
    (lambda r, h: h['web-5'].update(exceptions=[dict(unit='a.service')]), 'hosts[1] (web-5).exceptions[0] has no value'),
    (lambda r, h: h['web-5'].update(exceptions=[svc('a.service', source=None, reason=None, expires='2026-02-30',
                                                    days_left=1)]),
     "hosts[1] (web-5).exceptions[0].expires is '2026-02-30', not a date as YYYY-MM-DD"),
    (lambda r, h: h['web-5'].update(interpreters=[dict(path=3)]), 'hosts[1] (web-5).interpreters[0].path is a number'),
    (lambda r, h: h['web-5'].update(pending_restart='a.service'), 'hosts[1] (web-5).pending_restart is text, not a list'),
    (lambda r, h: h['web-5'].update(would_break=[dict(BREAK, until=None, endpoint=None)]),
     'hosts[1] (web-5).would_break[0].endpoint is null, not text'),
    (lambda r, h: h['web-5'].update(unverified='yes'), 'hosts[1] (web-5).unverified is text, not a list of text'),
    (lambda r, h: r['hosts'].append(dict(r['hosts'][0])), 'hosts[3] (web-6) is listed twice (also hosts[0])'),
    (lambda r, h: r['hosts'].append('web-9'), 'hosts[3] is text, not a host entry (a mapping)'),
    (lambda r, h: r.update(hosts={}), 'hosts is a mapping, not a list of host entries'),
    (lambda r, h: r.update(generated='2026-13-45T99:99:99Z'), "generated is '2026-13-45T99:99:99Z', not a time"),
    (lambda r, h: r.update(generated='2026-06-20T00:00:01Z'), 'generated is 2026-06-20T00:00:01Z, later than this merge'),
])
def test_merge_refuses_a_source_naming_the_file_and_the_field(change, field):
    good = three_hosts()
    with pytest.raises(AnsibleFilterError) as info:
        report_filters.fleet_report_merge([good, spoiled(change)], ['slice1/report.json', 'slice2/report.json'],
                                          '2026-06-20T00:00:00Z')
    message = str(info.value)
    assert message.startswith('slice2/report.json: ' + field), message
    for internal in ('unhashable', 'object has no attribute', 'not subscriptable', 'NoneType', 'Traceback'):
        assert internal not in message


def test_merge_refuses_a_merge_time_that_is_not_a_time():
    with pytest.raises(AnsibleFilterError, match="generated: '2026-06-99T00:00:00Z' is not a time"):
        report_filters.fleet_report_merge([three_hosts()], ['a.json'], '2026-06-99T00:00:00Z')


def test_merge_keeps_only_the_fields_of_a_host_entry():
    report = three_hosts()
    report['hosts'][0]['note'] = 'added by hand'
    merged = report_filters.fleet_report_merge([report], ['a.json'], '2026-06-20T00:00:00Z')
    assert all('note' not in h for h in merged['hosts'])


def test_the_report_reads_the_facts_a_fact_cache_gives_and_says_when_each_host_was_audited():
    hostvars = {'a': {'inventory_hostname': 'a', 'ansible_facts': {
        'pep493_https_status': dict(status(info(), 'compliant'), audited='2026-06-14T10:00:00Z'),
        'pep493_https_forecast_result': dict(breaks=[BREAK], granted=[], forecasted='2026-06-14T09:59:00Z')}},
        'b': {'inventory_hostname': 'b'}}
    report = report_filters.fleet_report(['a', 'b'], hostvars, TODAY + 'T00:00:00Z')
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert hosts['a']['state'] == 'compliant' and hosts['a']['audited'] == '2026-06-14T10:00:00Z'
    assert hosts['a']['risk']['rank'] == 2
    assert hosts['b']['state'] == 'unreachable' and 'audited' not in hosts['b']


def test_results_older_than_the_run_are_not_taken_as_its_own():
    """The audit playbook's report is of its run: a result a fact cache kept from an earlier run (a
    host unreachable now) is no result of this run, and its forecast is left out too."""
    hostvars = {
        'now': {'inventory_hostname': 'now', 'pep493_https_status': dict(status(info(), 'compliant'),
                                                                         audited='2026-06-15T08:00:05Z'),
                'pep493_https_forecast_result': dict(breaks=[], forecasted='2026-06-15T08:00:01Z')},
        'old': {'inventory_hostname': 'old', 'pep493_https_status': dict(status(info(), 'compliant'),
                                                                         audited='2026-06-10T08:00:00Z'),
                'pep493_https_forecast_result': dict(breaks=[BREAK], forecasted='2026-06-10T07:00:00Z')},
        'timeless': {'inventory_hostname': 'timeless', 'pep493_https_status': status(info(), 'compliant')}}
    report = report_filters.fleet_report(sorted(hostvars), hostvars, TODAY + 'T08:01:00Z', 30, None,
                                         '2026-06-15T08:00:00Z')
    hosts = dict((h['host'], h) for h in report['hosts'])
    assert hosts['now']['state'] == 'compliant' and hosts['now']['would_break'] == []
    assert hosts['old']['state'] == 'unreachable' and hosts['old']['would_break'] is None
    assert hosts['old']['reasons'] == ['no audit result in this run (the last one is from 2026-06-10T08:00:00Z)']
    assert hosts['timeless']['reasons'] == ['no audit result in this run (an earlier one has no time)']
    with pytest.raises(AnsibleFilterError, match="since: 'today' is not a time"):
        report_filters.fleet_report(['now'], hostvars, TODAY + 'T08:01:00Z', 30, None, 'today')


@pytest.mark.parametrize('hosts', [['web-1', 'web_1', 'web.1', 'web_2d_1'], ['db-1.example.com', 'db-1_example.com'],
                                   ['hôte-1', 'h_c3_b4_te-1']])
def test_every_host_has_an_artifact_key_of_its_own_that_set_stats_takes(hosts):
    keys = [report_rules.artifact_key('pep493_https_audit_', host) for host in hosts]
    assert len(set(keys)) == len(keys), keys
    assert all(key.isidentifier() and key.isascii() for key in keys), keys


def test_the_artifacts_of_a_report_give_each_host_its_state_risk_and_breaks():
    audits = {'a': status(info(), 'compliant'), 'b': status(info(verify='disable'), 'non_compliant')}
    audits['b']['compliance']['reasons'] = ['cfg says disable\nsecond line']
    report = report_filters.fleet_report(['a', 'b'], audits, TODAY + 'T00:00:00Z', 30, {'a': dict(breaks=[BREAK])})
    found = report_filters.fleet_artifacts(report)
    assert sorted(found) == ['pep493_https_audit_a', 'pep493_https_audit_b', 'pep493_https_forecast_a']
    assert found['pep493_https_audit_b']['reason'] == 'cfg says disable'
    assert found['pep493_https_audit_a']['risk']['rank'] == 2
    assert found['pep493_https_forecast_a'] == dict(host='a', would_break=[dict(
        service='legacy.service', endpoint='10.0.4.7:636', result='untrusted')])
    with pytest.raises(AnsibleFilterError, match='fleet_artifacts expects a fleet report'):
        report_filters.fleet_artifacts(dict(hosts=[dict(host='a')]))
