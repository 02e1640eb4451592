# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pep493.https.report playbook, run through ansible-playbook on localhost: a bad source stops
it before anything is written, naming the source file and the field, and the report's two files
are written together or not at all."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.pep493.https.tests.unit.plugins.policy_data import slice_report
from ansible_collections.pep493.https.tests.unit.roles.playbook import fact_cache, local_fleet, run, run_playbook, tree_files

COLLECTION = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
OLD = {'report.json': b'{"the": "report of yesterday"}\n', 'report.html': b'<p>the report of yesterday</p>\n'}


def old_report(tmp_path):
    folder = tmp_path / 'fleet'
    folder.mkdir()
    for name, content in OLD.items():
        (folder / name).write_bytes(content)
    return folder


def sources(tmp_path, *reports):
    names = []
    for number, report in enumerate(reports, 1):
        (tmp_path / ('slice%d' % number)).mkdir()
        (tmp_path / ('slice%d' % number) / 'report.json').write_text(json.dumps(report))
        names.append('slice%d/report.json' % number)
    return ','.join(names)


def test_a_bad_source_stops_the_merge_before_anything_is_written(tmp_path):
    folder = old_report(tmp_path)
    good = slice_report('2026-06-10T08:00:00Z', **{'web-1': 'compliant', 'web-2': 'compliant'})
    bad = slice_report('2026-06-11T08:00:00Z', **{'web-5': 'compliant', 'web-6': 'compliant', 'web-7': 'compliant'})
    bad['hosts'][2]['reasons'] = 5
    done = run_playbook(tmp_path, 'pep493.https.report', '-e', 'pep493_https_report_dir=%s' % folder,
                        '-e', 'pep493_https_report_sources=%s' % sources(tmp_path, good, bad))
    assert done.returncode != 0, done.stdout
    assert ('%s/slice2/report.json: hosts[2] (web-7).reasons is a number, not a list of text. Nothing was merged, no '
            'report was written.' % tmp_path) in done.stdout, done.stdout
    assert 'unhashable' not in done.stdout and 'Traceback' not in done.stdout
    assert tree_files(folder) == OLD


def test_good_sources_give_both_files(tmp_path):
    folder = old_report(tmp_path)
    good = slice_report('2026-06-10T08:00:00Z', **{'web-1': 'compliant', 'web-2': 'non_compliant'})
    done = run_playbook(tmp_path, 'pep493.https.report', '-e', 'pep493_https_report_dir=%s' % folder,
                        '-e', 'pep493_https_report_sources=%s' % sources(tmp_path, good))
    assert done.returncode == 0, done.stdout
    merged = json.loads((folder / 'report.json').read_text())
    assert sorted(h['host'] for h in merged['hosts']) == ['web-1', 'web-2']
    assert 'web-2' in (folder / 'report.html').read_text()


def test_a_report_the_page_cannot_show_leaves_both_files_as_they_were(tmp_path):
    """The page is rendered before either file is written: a render that fails writes neither."""
    folder = old_report(tmp_path)
    play = dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(__pep493_https_dir=str(folder), pep493_https_fleet_report=dict(schema_version=3, hosts=[])),
                tasks=[{'name': 'Write the report',
                        'ansible.builtin.import_tasks': os.path.join(COLLECTION, 'playbooks', 'tasks', 'write_report.yml')}])
    done = run(tmp_path, play)
    assert done.returncode != 0, done.stdout
    assert tree_files(folder) == OLD


FLEET = {'web-1': '[https]\nverify=enable\n', 'web-2': '[https]\nverify=disable\n', 'db-1': None}


def summary(report):
    """What a report says of each host, in its order: host, state, reasons, rank of risk."""
    return [(h['host'], h['state'], h['reasons'], h['risk']) for h in report['hosts']]


def test_without_sources_the_report_is_built_from_the_fact_cache_of_the_inventory(tmp_path):
    inventory = local_fleet(tmp_path, FLEET)
    done = run_playbook(tmp_path, 'pep493.https.audit', '-e', 'pep493_https_report_dir=%s' % (tmp_path / 'audit'),
                        inventory=inventory, **fact_cache(tmp_path))
    assert done.returncode == 0, done.stdout
    audited = json.loads((tmp_path / 'audit' / 'report.json').read_text())
    # a later job on the same inventory and fact cache (AWX: the report job), on the controller only
    done = run_playbook(tmp_path, 'pep493.https.report', '-e', 'pep493_https_report_dir=%s' % (tmp_path / 'fleet'),
                        inventory=inventory, **fact_cache(tmp_path))
    assert done.returncode == 0, done.stdout
    assert '3 host(s) from the fact cache' in done.stdout, done.stdout
    report = json.loads((tmp_path / 'fleet' / 'report.json').read_text())
    assert summary(report) == summary(audited)
    assert [h['audited'] for h in report['hosts']] == [h['audited'] for h in audited['hosts']]
    assert 'sources' not in report and (tmp_path / 'fleet' / 'report.html').exists()


def test_without_sources_nor_results_in_a_fact_cache_nothing_is_written(tmp_path):
    inventory = local_fleet(tmp_path, FLEET)
    done = run_playbook(tmp_path, 'pep493.https.report', '-e', 'pep493_https_report_dir=%s' % (tmp_path / 'fleet'),
                        inventory=inventory, **fact_cache(tmp_path))
    assert done.returncode != 0
    assert ('No host of all has an audit result in the fact cache: enable fact caching for the audit and for this '
            'playbook') in ' '.join(done.stdout.split()), done.stdout
    assert not (tmp_path / 'fleet').exists()
