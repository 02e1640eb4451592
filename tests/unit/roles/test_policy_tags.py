# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A writing task left out by ``--tags`` registers nothing: what an entry point reports in
``pep493_https_applied`` must never be the result of an earlier run of the role in the same play."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.pep493.https.tests.unit.roles.playbook import run

CFG = 'etc/python/cert-verification.cfg'
UNIT = 'etc/systemd/system/legacy.service'


def host(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / 'etc' / 'systemd' / 'system').mkdir(parents=True)
    (root / UNIT).write_text('[Service]\nExecStart=/usr/bin/python2.7 /opt/legacy/agent.py\n')
    return root


def two_runs(tmp_path, root, second, tags):
    """The main entry point with one exception (tagged ``first``), then ``second``; returns what the
    second run left in ``pep493_https_applied``."""
    out = tmp_path / 'applied.json'
    role = {'name': 'pep493.https.policy'}
    play = dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(pep493_https_root=str(root), pep493_https_verify='enable', pep493_https_audit=False,
                          pep493_https_exceptions=[dict(name='legacy.service', verify=False,
                                                        reason='CHG-1: vendor CA', expires='2099-12-31')]),
                tasks=[{'name': 'First run', 'ansible.builtin.include_role': dict(role, apply={'tags': ['first']}),
                        'tags': ['first']},
                       {'name': 'Second run', 'ansible.builtin.include_role': dict(role, tasks_from=second),
                        'tags': ['always']},
                       {'name': 'Write what the second run left', 'tags': ['always'], 'ansible.builtin.copy': {
                           'dest': str(out), 'content': '{{ pep493_https_applied | to_json }}'}}])
    done = run(tmp_path, play, '--tags', tags)
    assert done.returncode == 0, done.stdout
    with open(str(out)) as handle:
        return json.load(handle)


@pytest.mark.parametrize('second', ['main', 'rollback'])
def test_a_writer_left_out_by_tags_does_not_report_the_earlier_run(tmp_path, second):
    root = host(tmp_path)
    applied = two_runs(tmp_path, root, second, 'first,pep493_https_file')
    assert (root / 'etc' / 'systemd' / 'system' / 'legacy.service.d').is_dir()  # the first run wrote it
    assert applied['entry_point'] == second
    assert applied['services'] == {}, applied['services']


def test_the_file_writer_left_out_by_tags_does_not_report_the_earlier_run(tmp_path):
    root = host(tmp_path)
    applied = two_runs(tmp_path, root, 'main', 'first,pep493_https_services')
    assert 'verify=enable' in (root / CFG).read_text()  # the first run wrote it
    assert applied['cfg'] == {}, applied['cfg']
