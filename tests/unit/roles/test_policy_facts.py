# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the policy role keeps for later jobs: its verdict (pep493_https_status) and its forecast
(pep493_https_forecast_result) are cacheable facts, as AWX / Automation Platform's fact storage
keeps them for the report job; what a run applied (pep493_https_applied) is for its play only, so a
later run never reads an earlier run's changes as its own. Run through ansible-playbook with a
jsonfile fact cache, against a throw-away root."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.pep493.https.tests.unit.roles.playbook import cached_facts, fact_cache, run

CFG = 'etc/python/cert-verification.cfg'


def play(root, out, *tasks):
    return dict(hosts='localhost', connection='local', gather_facts=False, vars=dict(pep493_https_root=str(root)),
                tasks=list(tasks) + [{'name': 'Write what the play sees', 'ansible.builtin.copy': {
                    'dest': str(out), 'content': "{{ {'applied': pep493_https_applied.entry_point | default(none), "
                                                 "'state': (ansible_facts.pep493_https_status | default({})).compliance."
                                                 "state | default(none)} | to_json }}"}}])


def test_the_verdict_is_cached_and_what_was_applied_is_for_the_play_only(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text('[https]\nverify=disable\n')
    out = tmp_path / 'seen.json'
    done = run(tmp_path, play(root, out, {'ansible.builtin.import_role': {'name': 'pep493.https.policy'}}),
               **fact_cache(tmp_path))
    assert done.returncode == 0, done.stdout
    assert json.loads(out.read_text()) == dict(applied='main', state='compliant')
    cached = cached_facts(tmp_path, 'localhost')
    assert cached['pep493_https_status']['compliance']['state'] == 'compliant'
    assert 'pep493_https_applied' not in cached, sorted(cached)
    # a later job with the same cache: the verdict is there, what the earlier run applied is not
    done = run(tmp_path, play(root, out), **fact_cache(tmp_path))
    assert done.returncode == 0, done.stdout
    assert json.loads(out.read_text()) == dict(applied=None, state='compliant')


def test_a_refused_run_sets_no_fact_and_its_result_carries_them_for_a_rescue(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text('[https]\nverify=disable\n')
    out = tmp_path / 'seen.json'
    refused = {'block': [{'ansible.builtin.import_role': {'name': 'pep493.https.policy', 'tasks_from': 'audit'},
                          'vars': {'pep493_https_verify': 'disable'}}],
               'rescue': [{'name': 'Keep the step and the problems', 'ansible.builtin.copy': {
                   'dest': str(tmp_path / 'step'),
                   'content': "{{ [ansible_failed_result.failed_step, "
                              "ansible_failed_result.pep493_https_status.problems | length > 0] | to_json }}"}}]}
    done = run(tmp_path, play(root, out, refused), **fact_cache(tmp_path))
    assert done.returncode == 0, done.stdout
    assert json.loads((tmp_path / 'step').read_text()) == ['Refuse a policy that is not safe or not complete', True]
    cached = cached_facts(tmp_path, 'localhost')
    assert not any(name.startswith('pep493_https_') for name in cached), sorted(cached)
