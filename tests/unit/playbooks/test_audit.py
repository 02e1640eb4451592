# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pep493.https.audit playbook on a local fleet (each host a throw-away root, reached with the
local connection): its results are published as artifacts of the job (set_stats), one key per
host, and with a fact cache its report is of its own run only."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report
from ansible_collections.pep493.https.tests.unit.roles.playbook import fact_cache, local_fleet, run_playbook

FLEET = {'web-1.example.com': '[https]\nverify=enable\n', 'web-2': '[https]\nverify=disable\n', 'db_1': None}


def audit(tmp_path, inventory, **environment):
    report_dir = tmp_path / 'report'
    done = run_playbook(tmp_path, 'pep493.https.audit', '-e', 'pep493_https_report_dir=%s' % report_dir,
                        inventory=inventory, ANSIBLE_SHOW_CUSTOM_STATS='1', **environment)
    assert done.returncode == 0, done.stdout
    return custom_stats(done.stdout), json.loads((report_dir / 'report.json').read_text())


def custom_stats(output):
    """The run's custom stats (set_stats, per_host false) as the default callback shows them."""
    for line in output.splitlines():
        if line.startswith('\tRUN: '):
            return json.loads(line[len('\tRUN: '):])
    raise AssertionError('no custom stats in the output:\n%s' % output)


def test_each_host_is_an_artifact_of_its_own(tmp_path):
    stats, report = audit(tmp_path, local_fleet(tmp_path, FLEET))
    entries = dict((h['host'], h) for h in report['hosts'])
    assert sorted(stats) == sorted(fleet_report.artifact_key('pep493_https_audit_', host) for host in FLEET)
    assert fleet_report.artifact_key('pep493_https_audit_', 'web-1.example.com') == \
        'pep493_https_audit_web_2d_1_2e_example_2e_com'
    assert fleet_report.artifact_key('pep493_https_audit_', 'db_1') == 'pep493_https_audit_db_5f_1'
    for host, entry in entries.items():
        published = stats[fleet_report.artifact_key('pep493_https_audit_', host)]
        assert published == dict(host=host, state=entry['state'], compliant=entry['compliant'],
                                 reason=(entry['reasons'] or [None])[0], risk=entry['risk'], audited=entry['audited'])
    assert entries['web-2']['state'] == 'non_compliant' and entries['web-1.example.com']['state'] == 'compliant'


def test_with_a_fact_cache_a_host_without_a_result_in_this_run_is_not_reported_with_an_older_one(tmp_path):
    inventory = local_fleet(tmp_path, FLEET)
    first, report = audit(tmp_path, inventory, **fact_cache(tmp_path))
    assert dict((h['host'], h['state']) for h in report['hosts'])['web-2'] == 'non_compliant'
    # web-2 cannot be reached now; its result of the first run is still in the fact cache
    text = (tmp_path / 'inventory.yml').read_text().replace('web-2:\n      ansible_connection: local',
                                                            'web-2:\n      ansible_connection: ssh\n'
                                                            '      ansible_host: 192.0.2.1\n      ansible_port: 1')
    (tmp_path / 'inventory.yml').write_text(text)
    second, report = audit(tmp_path, inventory, ANSIBLE_TIMEOUT='2', **fact_cache(tmp_path))
    entry = dict((h['host'], h) for h in report['hosts'])['web-2']
    assert entry['state'] == 'unreachable', entry
    assert entry['reasons'][0].startswith('no audit result in this run (the last one is from 20'), entry['reasons']
