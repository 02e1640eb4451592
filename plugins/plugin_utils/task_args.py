# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A task's arguments checked on the controller with the controller's own ArgumentSpecValidator,
against the module's own spec and AnsibleModule arguments (``module_kwargs()`` of the module file).

What only the target can know stays for the target: ``~`` and ``$VAR`` in ``type: path`` options
(checked here as text, expanded by the runner) and environment fallbacks (``unsafe_writes`` reads
ANSIBLE_UNSAFE_WRITES where the module runs). A refused task gets the result ansible-core 2.16's
AnsibleModule gives for it.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib

from ansible.module_utils.basic import FILE_COMMON_ARGUMENTS, env_fallback
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.common.validation import check_type_str
from ansible.module_utils.errors import UnsupportedError

MODULES = 'ansible_collections.pep493.https.plugins.modules.'
# AnsibleModule arguments that are not checks
NOT_CHECKS = ('argument_spec', 'add_file_common_args', 'supports_check_mode', 'bypass_checks', 'no_log')


def path(value):
    """``type: path`` on the controller: text, not expanded (``~`` and ``$VAR`` are the target's).
    Named ``path`` so that a refusal names the type as AnsibleModule does."""
    return check_type_str(value)


@dataclasses.dataclass
class CheckedArgs:
    """What the runner needs to run the module with these arguments, or the refusal."""
    params: dict
    refusal: dict | None = None
    paths: list = dataclasses.field(default_factory=list)
    env_fallbacks: list = dataclasses.field(default_factory=list)
    no_log_values: list = dataclasses.field(default_factory=list)
    no_log_flags: dict = dataclasses.field(default_factory=dict)
    aliases: dict = dataclasses.field(default_factory=dict)
    warnings: list = dataclasses.field(default_factory=list)
    deprecations: list = dataclasses.field(default_factory=list)
    supports_check_mode: bool = False


def module_kwargs(module):
    """The AnsibleModule arguments of the collection's module ``module`` (its module_kwargs())."""
    return importlib.import_module(MODULES + module).module_kwargs()


def prepare_spec(spec, place=(), paths=None):
    """A copy of ``spec`` with ``type: path`` (and ``elements: path``) checked as text; the place of
    each such option goes to ``paths`` ("*" for every element of a list)."""
    paths = [] if paths is None else paths
    prepared = {}
    for name, option in spec.items():
        option = dict(option)
        here = place + (name,)
        if option.get('type') == 'path':
            option['type'] = path
            paths.append(list(here))
        if option.get('elements') == 'path':
            option['elements'] = path
            paths.append(list(here) + ['*'])
        if option.get('options'):
            below = here + ('*',) if option.get('type') == 'list' else here
            option['options'] = prepare_spec(option['options'], below, paths)[0]
        if 'fallback' in option and place:
            raise ValueError('option %s: a fallback below the top level cannot be left to the target' % '.'.join(here))
        prepared[name] = option
    return prepared, paths


def check(module, task_action, raw_args):
    """The arguments ``raw_args`` (as the module would receive them) of a task of ``module``."""
    kwargs = dict(module_kwargs(module))
    spec = copy.deepcopy(kwargs.pop('argument_spec'))
    if kwargs.pop('add_file_common_args', False):
        for name, option in FILE_COMMON_ARGUMENTS.items():
            spec.setdefault(name, copy.deepcopy(option))
    supports_check_mode = kwargs.pop('supports_check_mode', False)
    spec, paths = prepare_spec(spec)
    env_fallbacks = []
    for name, option in spec.items():
        fallback = option.pop('fallback', None)
        if fallback is None:
            continue
        if fallback[0] is not env_fallback:
            raise ValueError('option %s: only an environment fallback can be left to the target' % name)
        kind = option.get('type') or 'str'
        if kind is path:
            kind = 'path'
        if kind not in ('str', 'raw', 'path', 'bool', 'int', 'float'):
            raise ValueError('option %s: an environment fallback of type %s cannot be left to the target' % (name, kind))
        if name not in raw_args:
            env_fallbacks.append([name, list(fallback[1]), kind, bool(option.get('no_log'))])
    checks = dict((key, value) for key, value in kwargs.items() if key not in NOT_CHECKS)
    result = ArgumentSpecValidator(spec, **checks).validate(raw_args)
    params = dict(raw_args)
    params.update(result.validated_parameters)
    warnings = ['Both option {option} and its alias {alias} are set.'.format(**w) for w in result._warnings]
    deprecations = [dict(msg=d['msg'], collection_name=d.get('collection_name'),
                         **({'date': d['date']} if d.get('date') is not None else {'version': d.get('version')}))
                    for d in result._deprecations]
    checked = CheckedArgs(
        params=params, paths=paths, env_fallbacks=env_fallbacks, no_log_values=sorted(result._no_log_values),
        no_log_flags=dict((name, option.get('no_log')) for name, option in spec.items()),
        aliases=dict(result._aliases), warnings=warnings, deprecations=deprecations,
        supports_check_mode=supports_check_mode)
    try:
        error = result.errors[0]
    except IndexError:  # the errors have no length of their own
        error = None
    if error is not None:
        message = result.errors.msg
        if isinstance(error, UnsupportedError):
            message = 'Unsupported parameters for (%s) module: %s' % (task_action, message)
        refusal = dict(failed=True, msg=message, invocation=dict(module_args=params))
        if warnings:
            refusal['warnings'] = warnings
        if deprecations:
            refusal['deprecations'] = deprecations
        kept = dict((key, value) for key, value in refusal.items() if value is None or isinstance(value, bool))
        checked.refusal = remove_values(refusal, result._no_log_values)
        checked.refusal.update(kept)
    return checked
