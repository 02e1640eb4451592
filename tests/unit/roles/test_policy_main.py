# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role's main entry point, run through ``ansible-playbook`` against a throw-away root: a run
that changes the host is audited after the change; a re-run that changes nothing makes one module
call, the prediction, which is then the audit (``prediction_reused``), and keeps one copy of it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.pep493.https.tests.unit.roles.playbook import run, tree_files

CFG = 'etc/python/cert-verification.cfg'
PREDICT = 'Audit the host as the policy will leave it'
WRITE_CFG = 'Set the host-wide HTTPS verification default'
WRITE_DROPINS = 'Put the per-service exceptions in place'
AUDIT = 'Audit the host against the policy'


def steps_of(applied):
    """{step: 'changed', 'ok' or 'left out: <why>'} of the run's steps (pep493_https_applied.steps);
    a step left out is named by its module (cert_verification, service_verification) or its part."""
    found = {}
    for step in applied['steps']:
        if step['ran']:
            found[step['step']] = 'changed' if step['changed'] else 'ok'
        else:
            found[step['step']] = 'left out: %s' % step['why']
    return found


def enforce(tmp_path, root, *options):
    """Run the main entry point on ``root``: (pep493_https_status, pep493_https_applied, its steps)."""
    out = tmp_path / 'out.json'
    play = dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(pep493_https_root=str(root), pep493_https_verify='enable'),
                tasks=[{'name': 'Enforce', 'ansible.builtin.import_role': {'name': 'pep493.https.policy'}},
                       {'name': 'Write what the role left', 'check_mode': False, 'ansible.builtin.copy': {
                           'dest': str(out), 'content': "{{ {'status': pep493_https_status, "
                                                        "'applied': pep493_https_applied} | to_json }}"}}])
    done = run(tmp_path, play, *options)
    assert done.returncode == 0, done.stdout
    with open(str(out)) as handle:
        left = json.load(handle)
    return left['status'], left['applied'], steps_of(left['applied'])


def test_a_run_that_changes_the_host_is_audited_after_the_change(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text('[https]\nverify=disable\n')
    status, applied, tasks = enforce(tmp_path, root)
    assert (root / CFG).read_text() == '[https]\nverify=enable\n'
    assert tasks[PREDICT] == 'ok' and tasks[WRITE_CFG] == 'changed' and tasks[AUDIT] == 'ok', tasks
    assert status['info']['planned'] is False and 'predicted' not in status and 'prediction_reused' not in status
    assert status['compliance']['state'] == 'compliant'
    assert applied['cfg']['changed'] is True


def test_a_re_run_that_changes_nothing_takes_the_prediction_as_the_audit(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text('[https]\nverify=enable\n')
    before = tree_files(root)
    status, applied, tasks = enforce(tmp_path, root)
    assert tree_files(root) == before
    assert tasks[PREDICT] == 'ok', tasks
    assert tasks['cert_verification'] == 'left out: the prediction shows the file already as the policy wants it'
    assert tasks['service_verification'] == 'left out: the prediction shows no drop-in to write or remove'
    assert tasks['audit'] == 'left out: nothing changed: the prediction is the audit', tasks
    assert status['prediction_reused'] is True and 'predicted' not in status and 'predicted' not in status['compliance']
    assert status['info']['planned'] is True and status['compliance']['state'] == 'compliant'
    assert applied['cfg']['unchanged_by_plan'] is True and applied['services']['unchanged_by_plan'] is True


def test_a_dry_run_keeps_the_prediction(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / CFG).write_text('[https]\nverify=enable\n')
    status, dummy, tasks = enforce(tmp_path, root, '--check')
    assert status['predicted'] is True and status['check_mode'] is True and 'prediction_reused' not in status
    assert tasks['audit'] == 'left out: check mode: nothing was applied, the prediction is the verdict', tasks
