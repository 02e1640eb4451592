# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy role's README, defaults, argument specs and task files say the same thing:
each entry point documents exactly the variables its own tasks read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning

COLLECTION = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
ROLE = os.path.join(COLLECTION, 'roles', 'policy')
ENTRY_POINTS = ('main', 'audit', 'rollback')
TAGS = set(['pep493_https_file', 'pep493_https_services', 'pep493_https_audit', 'pep493_https_trust'])
# Facts the role sets for the playbooks: outputs, not options.
OUTPUTS = set(['pep493_https_applied', 'pep493_https_status', 'pep493_https_forecast_result'])
NAME = re.compile(r'\bpep493_https_[a-z0-9_]+')
# The keys of an exception (type, default as the README shows it): those the plan accepts.
EXCEPTION_KEYS = dict(name=('str', 'required'), verify=('bool', '`false`'), reason=('str', '-'), expires=('str', '-'),
                      ca=('str', '-'))


def test_the_exception_keys_are_those_the_plan_accepts():
    assert sorted(EXCEPTION_KEYS) == sorted(planning.EXCEPTION_KEYS)


def load(*parts):
    with open(os.path.join(ROLE, *parts)) as handle:
        return yaml.safe_load(handle)


def specs():
    return load('meta', 'argument_specs.yml')['argument_specs']


def spec_options(entry='main'):
    return specs()[entry]['options']


def all_options():
    options = {}
    for entry in ENTRY_POINTS:
        options.update(spec_options(entry))
    return options


def task_inputs(entry):
    """(variables read, facts set) by the task files of an entry point, imports followed."""
    pending, seen, read, written = ['%s.yml' % entry], set(), set(), set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ('ansible.builtin.import_tasks', 'ansible.builtin.include_tasks'):
                    pending.append(value['file'] if isinstance(value, dict) else value)
                if key == 'ansible.builtin.set_fact':
                    written.update(name for name in value if NAME.match(name))
                if key not in ('name', 'tags'):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, str):
            read.update(NAME.findall(node))
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            walk(load('tasks', name))
    return read - written, written


def readme_rows():
    with open(os.path.join(ROLE, 'README.md')) as handle:
        text = handle.read()
    rows = {}
    for line in text.splitlines():
        match = re.match(r'^\| `([a-z0-9_]+)` \| ([^|]+) \| ([^|]+) \|(?: ([^|]+) \|)?', line)
        if match:
            rows[match.group(1)] = tuple((group or '').strip() for group in match.groups()[1:])
    return rows


def shown(value):
    if isinstance(value, bool):
        return '`%s`' % str(value).lower()
    if value == '':
        return '`""`'
    if value == []:
        return '`[]`'
    return '`%s`' % value


def test_every_default_is_an_option_with_the_same_value():
    defaults, options = load('defaults', 'main.yml'), all_options()
    assert sorted(defaults) == sorted(options)
    for name, value in defaults.items():
        assert options[name].get('default') == value, name


def test_an_option_means_the_same_in_every_entry_point():
    for name, option in all_options().items():
        for entry in ENTRY_POINTS:
            if name in spec_options(entry):
                assert spec_options(entry)[name] == option, (entry, name)


def test_every_variable_is_public_and_prefixed():
    for name in all_options():
        assert name.startswith('pep493_https_'), name


@pytest.mark.parametrize('entry', ENTRY_POINTS)
def test_each_entry_point_lists_exactly_the_variables_its_tasks_read(entry):
    read, written = task_inputs(entry)
    assert written <= OUTPUTS, written
    assert sorted(read) == sorted(spec_options(entry)), entry


def test_entry_points_are_the_task_files():
    assert sorted(specs()) == sorted(ENTRY_POINTS)
    for entry in ENTRY_POINTS:
        assert os.path.isfile(os.path.join(ROLE, 'tasks', entry + '.yml'))


def test_readme_documents_every_option_with_its_type_default_and_entry_points():
    rows, options = readme_rows(), all_options()
    for name, option in options.items():
        assert name in rows, 'README.md does not document %s' % name
        kind, default, entries = rows[name]
        assert kind.startswith(option['type']), (name, kind)
        for choice in option.get('choices', []):
            assert shown(choice) in kind, (name, choice)
        assert default == shown(option.get('default')), (name, default)
        wanted = [entry for entry in ENTRY_POINTS if name in spec_options(entry)]
        assert [entry.strip('` ') for entry in entries.split(',')] == wanted, (name, entries)
    # the keys of an exception: those the plan accepts, described in the option's description too
    described = ' '.join(options['pep493_https_exceptions']['description'])
    for name, (kind, default) in EXCEPTION_KEYS.items():
        assert rows[name][:2] == (kind, default), name
        assert 'C(%s) (%s%s)' % (name, kind, ', required' if default == 'required' else
                                 ', default C(%s)' % default.strip('`') if default != '-' else '') in described, name


def test_readme_documents_nothing_that_does_not_exist():
    rows, options = readme_rows(), all_options()
    known = set(options) | set(EXCEPTION_KEYS)
    assert set(rows) - known - TAGS - set(ENTRY_POINTS) - OUTPUTS == set()


def paragraphs(path):
    with open(os.path.join(COLLECTION, path)) as handle:
        return [' '.join(part.split()) for part in re.split(r'\n\s*\n', handle.read())]


@pytest.mark.parametrize('path', ['README.md', 'roles/policy/README.md', 'docs/scale.md'])
def test_every_count_of_module_calls_per_host_says_what_the_forecast_adds(path):
    """What a run costs differs on a host and under pep493_https_root, where the forecast does not
    run: a paragraph that counts the role's module calls per host says both."""
    counting = [text for text in paragraphs(path) if re.search(r'module calls? per host', text)]
    assert counting, '%s no longer counts the module calls per host' % path
    for text in counting:
        assert 'verification_forecast' in text and 'pep493_https_root' in text, text
