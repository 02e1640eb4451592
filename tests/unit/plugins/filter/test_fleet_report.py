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
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import TODAY, info, slice_report, status, svc, with_exceptions


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
