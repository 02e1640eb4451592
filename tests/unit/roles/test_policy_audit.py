# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's audit entry point, run through ``ansible-playbook`` against a throw-away root: a
policy that is not safe or not complete is refused with every problem named, a host that does not
comply fails with its reasons (not in check mode, not when told not to), one that complies passes,
and the host is never changed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.pep493.https.tests.unit.roles.playbook import run, tree_files

CFG = 'etc/python/cert-verification.cfg'
SOCKET = {'name': 'sshd.socket', 'reason': 'socket activation', 'expires': '2099-01-01'}


def audit(tmp_path, cfg_text, policy, *options):
    """Run the audit entry point on a root whose cfg file says ``cfg_text``: (the role's
    pep493_https_status or None, the message of the task that failed or None)."""
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text(cfg_text)
    before = tree_files(root)
    out = tmp_path / 'out.json'
    play = dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(policy, pep493_https_root=str(root)),
                tasks=[{'block': [{'name': 'Audit', 'ansible.builtin.import_role': {'name': 'pep493.https.policy',
                                                                                    'tasks_from': 'audit'}}],
                        # a failed task sets no fact: its result carries the status
                        'rescue': [{'name': 'Keep the failure', 'ansible.builtin.set_fact': {
                            'failure': '{{ ansible_failed_result.msg }}',
                            'pep493_https_status': '{{ ansible_failed_result.pep493_https_status }}'}}],
                        'always': [{'name': 'Write what the role left', 'check_mode': False, 'ansible.builtin.copy': {
                            'dest': str(out), 'content': "{{ {'status': pep493_https_status | default(none), "
                                                         "'failure': failure | default(none)} | to_json }}"}}]}])
    done = run(tmp_path, play, *options)
    assert done.returncode == 0, done.stdout
    assert tree_files(root) == before, 'the audit changed the host'
    with open(str(out)) as handle:
        left = json.load(handle)
    return left['status'], left['failure']


def test_a_compliant_host_passes(tmp_path):
    status, failure = audit(tmp_path, '[https]\nverify=enable\n', {'pep493_https_verify': 'enable'})
    assert failure is None
    assert status['compliance']['state'] == 'compliant'
    assert status['problems'] == []
    assert status['policy'] == {'verify': 'enable', 'exclusive': True, 'exceptions': [], 'expired': []}


def test_a_host_that_does_not_comply_fails_with_its_reasons(tmp_path):
    status, failure = audit(tmp_path, '[https]\nverify=disable\n', {'pep493_https_verify': 'enable'})
    assert failure == 'Not compliant: /%s says verify=disable, the policy says verify=enable' % CFG, failure
    assert status['compliance']['state'] == 'non_compliant'


@pytest.mark.parametrize('option', [['--check'], ['-e', 'pep493_https_fail_when_noncompliant=false']])
def test_a_host_that_does_not_comply_is_reported_without_failing_when_told_or_in_check_mode(tmp_path, option):
    status, failure = audit(tmp_path, '[https]\nverify=disable\n', {'pep493_https_verify': 'enable'}, *option)
    assert failure is None
    assert status['compliance']['state'] == 'non_compliant'


@pytest.mark.parametrize('option', [[], ['--check'], ['-e', 'pep493_https_fail_when_noncompliant=false']])
def test_a_policy_that_is_not_safe_or_not_complete_is_refused_naming_every_problem(tmp_path, option):
    policy = {'pep493_https_verify': 'disable', 'pep493_https_exceptions': [SOCKET, {'name': 'legacy-app'}]}
    status, failure = audit(tmp_path, '[https]\nverify=enable\n', policy, *option)
    assert failure.startswith('Policy refused, nothing was changed: pep493_https_verify is "disable"'), failure
    assert "pep493_https_exceptions[0]: unit name 'sshd.socket' is a .socket unit" in failure
    assert 'pep493_https_exceptions[1] (legacy-app.service)' in failure
    assert status['compliance'] is None
    assert len(status['problems']) == 3, status['problems']
