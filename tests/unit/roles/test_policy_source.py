# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the policy comes from: a policy given in a play's vars (or the role's) applies, but the
audit gate and the other playbooks of the collection read the inventory only, so the role warns."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import yaml

from ansible_collections.pep493.https.tests.unit.roles.playbook import run, run_playbook

EXCEPTION = dict(name='legacy', verify=False, reason='CHG-1: vendor CA', expires='2099-12-31')
WARNING = re.compile(r'localhost: the policy \(([a-z0-9_, ]+)\) comes from the play, not from the inventory')


def _root(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / 'etc' / 'python' / 'cert-verification.cfg').write_text(u'[https]\nverify=enable\n')
    return root


def _play(root, play_vars=None, role_vars=None):
    role = {'name': 'pep493.https.policy'}
    task = {'name': 'Enforce', 'ansible.builtin.include_role': role}
    if role_vars:
        task['vars'] = role_vars
    return dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(play_vars or {}, pep493_https_root=str(root)), tasks=[task])


def _warned(stdout):
    flat = ' '.join(stdout.split())
    return [match.group(1) for match in WARNING.finditer(flat)], flat


def test_a_policy_in_the_play_vars_is_applied_with_a_warning_that_names_the_variables(tmp_path):
    done = run(tmp_path, _play(_root(tmp_path), play_vars=dict(pep493_https_exceptions=[EXCEPTION],
                                                               pep493_https_verify='platform_default')))
    assert done.returncode == 0, done.stdout
    named, flat = _warned(done.stdout)
    assert named == ['pep493_https_verify, pep493_https_exceptions'], flat
    assert ('pep493.https.audit, its gate and the other playbooks of the collection will not see it. Put the policy '
            'in inventory (group_vars/all.yml, or host_vars) for every playbook to see it.') in flat


def test_a_policy_in_the_role_vars_warns_too(tmp_path):
    done = run(tmp_path, _play(_root(tmp_path), role_vars=dict(pep493_https_exceptions=[EXCEPTION])))
    assert done.returncode == 0, done.stdout
    assert _warned(done.stdout)[0] == ['pep493_https_exceptions']


def test_a_policy_in_inventory_or_the_defaults_gives_no_warning(tmp_path):
    root = _root(tmp_path)
    inventory = tmp_path / 'inventory'
    (inventory / 'group_vars').mkdir(parents=True)
    (inventory / 'hosts.yml').write_text(u'all:\n  hosts:\n    localhost:\n')
    (inventory / 'group_vars' / 'all.yml').write_text(yaml.safe_dump(dict(
        pep493_https_exceptions=[EXCEPTION], pep493_https_verify='platform_default')))
    playbook = tmp_path / 'play.yml'
    playbook.write_text(yaml.safe_dump([_play(root)], sort_keys=False))
    done = run_playbook(tmp_path, str(playbook), inventory=str(inventory))
    assert done.returncode == 0, done.stdout
    assert 'legacy.service' in ' '.join(str(p) for p in root.rglob('*.conf'))
    assert _warned(done.stdout)[0] == []
    # nothing given at all: the role's defaults are the policy, which every playbook sees too
    done = run(tmp_path, _play(root))
    assert done.returncode == 0, done.stdout
    assert _warned(done.stdout)[0] == []
