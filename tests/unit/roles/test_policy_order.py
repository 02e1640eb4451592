# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy role checks before it writes: in the order its tasks run, every module call that
can change the host comes after the whole policy was refused or accepted, and the summary
facts are kept even when a module fails."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

ROLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'roles', 'policy')
WRITERS = ('pep493.https.cert_verification', 'pep493.https.service_verification')


def load(name):
    with open(os.path.join(ROLE, 'tasks', name)) as handle:
        return yaml.safe_load(handle)


def tasks_file(task):
    """The file a task imports or includes, or None."""
    for key in ('ansible.builtin.import_tasks', 'ansible.builtin.include_tasks'):
        if key in task:
            return task[key]['file'] if isinstance(task[key], dict) else task[key]
    return None


def run_order(name, inside_always=False):
    """(task name, module or None, in an always: section) in the order the tasks run, imports and
    includes expanded."""
    order = []
    for task in load(name):
        if tasks_file(task):
            order.extend(run_order(tasks_file(task), inside_always))
        elif 'block' in task:
            for section in ('block', 'rescue', 'always'):
                for inner in task.get(section) or []:
                    if tasks_file(inner):
                        order.extend(run_order(tasks_file(inner), section == 'always'))
                    else:
                        order.append((inner['name'], module_of(inner), section == 'always'))
        else:
            order.append((task['name'], module_of(task), inside_always))
    return order


def module_of(task):
    for key in task:
        if key.startswith('pep493.https.') or key.startswith('ansible.builtin.'):
            return key
    return None


def test_main_refuses_the_policy_before_its_first_write():
    order = run_order('main.yml')
    names = [name for name, module, dummy in order]
    first_write = min(index for index, (name, module, dummy) in enumerate(order) if module in WRITERS)
    assert names.index('Plan the host\'s policy') < names.index('Refuse a policy that is not safe or not complete')
    assert names.index('Refuse a policy that is not safe or not complete') < first_write


def test_main_keeps_the_module_results_even_after_a_failure():
    kept = [entry for entry in run_order('main.yml') if entry[0] == 'Keep what the modules did']
    assert kept and kept[0][2] is True


def test_rollback_checks_its_value_first_and_keeps_the_results_after_a_failure():
    order = run_order('rollback.yml')
    first_write = min(index for index, (name, module, dummy) in enumerate(order) if module in WRITERS)
    assert order[0][0] == 'Refuse a rollback value that was not acknowledged' and first_write > 0
    assert [entry for entry in order if entry[0] == 'Keep what the modules did'][0][2] is True


def test_no_handler_and_no_command_restarts_in_the_role():
    assert not os.path.exists(os.path.join(ROLE, 'handlers'))
    for name in os.listdir(os.path.join(ROLE, 'tasks')):
        for task in run_order(name):
            assert task[1] not in ('ansible.builtin.command', 'ansible.builtin.shell', 'ansible.builtin.stat'), task
