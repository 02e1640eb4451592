# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The policy role's README, defaults and argument specs say the same thing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import yaml

ROLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'roles', 'policy')


def load(*parts):
    with open(os.path.join(ROLE, *parts)) as handle:
        return yaml.safe_load(handle)


def readme_rows():
    with open(os.path.join(ROLE, 'README.md')) as handle:
        text = handle.read()
    rows = {}
    for line in text.splitlines():
        match = re.match(r'^\| `([a-z0-9_]+)` \| ([^|]+) \| ([^|]+) \|', line)
        if match:
            rows[match.group(1)] = (match.group(2).strip(), match.group(3).strip())
    return rows


def spec_options(entry='main'):
    return load('meta', 'argument_specs.yml')['argument_specs'][entry]['options']


def shown(value):
    if isinstance(value, bool):
        return '`%s`' % str(value).lower()
    if value == '':
        return '`""`'
    if value == []:
        return '`[]`'
    return '`%s`' % value


def test_every_default_is_in_the_spec_with_the_same_value():
    defaults, options = load('defaults', 'main.yml'), spec_options()
    assert sorted(defaults) == sorted(options)
    for name, value in defaults.items():
        assert options[name].get('default') == value, name


def test_every_variable_is_public_and_prefixed():
    for name in spec_options():
        assert name.startswith('pep493_https_'), name


def test_entry_points_share_the_options():
    specs = load('meta', 'argument_specs.yml')['argument_specs']
    assert sorted(specs) == ['audit', 'main', 'rollback']
    for entry in specs:
        assert spec_options(entry) == spec_options('main')


def test_readme_documents_every_option_with_its_type_and_default():
    rows, options = readme_rows(), spec_options()
    for name, option in options.items():
        assert name in rows, 'README.md does not document %s' % name
        kind, default = rows[name]
        assert kind.startswith(option['type']), (name, kind)
        for choice in option.get('choices', []):
            assert shown(choice) in kind, (name, choice)
        assert default == shown(option.get('default')), (name, default)
    for name, option in options['pep493_https_exceptions']['options'].items():
        kind, default = rows[name]
        assert kind == option['type'], name
        assert default == ('required' if option.get('required') else shown(option['default']) if 'default' in option
                           else '-'), name


def test_readme_documents_nothing_that_does_not_exist():
    rows, options = readme_rows(), spec_options()
    known = set(options) | set(options['pep493_https_exceptions']['options'])
    tags = set(['pep493_https_file', 'pep493_https_services', 'pep493_https_audit'])
    entry_points = set(['main', 'audit', 'rollback'])
    assert set(rows) - known - tags - entry_points == set()
