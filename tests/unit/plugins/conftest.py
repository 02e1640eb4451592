# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a module's main() in-process with given arguments; return what it printed as JSON."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json

import pytest

from ansible.module_utils.common import warnings as ansible_warnings

try:  # ansible-core 2.19+: module_utils behave as on the controller once controller code is imported
    from ansible.module_utils import _internal as ansible_internal
except ImportError:
    ansible_internal = None

from ansible_collections.pep493.https.tests.unit.module_args import patch_module_args


def clear_warnings():
    """Warnings are kept process-wide; each in-process run must see only its own."""
    for store in (ansible_warnings._global_warnings, ansible_warnings._global_deprecations):
        if isinstance(store, dict):
            store.clear()
        else:
            del store[:]


@contextlib.contextmanager
def as_target():
    """Run module code as a target does, whatever controller code an earlier test imported.

    Once ``ansible.errors`` or a filter plugin is imported, ansible-core 2.19+ sends
    ``module.warn()`` to the controller's display instead of the module's result: a test run
    after a filter test in the same process would see no warnings.
    """
    if ansible_internal is None or not getattr(ansible_internal, 'is_controller', False):
        yield
        return
    ansible_internal.is_controller = False
    try:
        yield
    finally:
        ansible_internal.is_controller = True


def _message(warning):
    """ansible-core 2.19+ returns warnings as structured events; older ones as strings."""
    while isinstance(warning, dict):
        warning = warning.get('event', warning.get('msg'))
    return warning


class ModuleRun(object):
    def __init__(self, capsys):
        self.capsys = capsys

    def __call__(self, module, args, check_mode=False, diff=False):
        """Run ``module.main()``; returns (result dict, exit code: 0 ok, 1 failed)."""
        args = dict(args)
        args['_ansible_check_mode'] = check_mode
        args['_ansible_diff'] = diff
        self.capsys.readouterr()
        clear_warnings()
        with as_target(), patch_module_args(args):
            with pytest.raises(SystemExit) as info:
                module.main()
        out = self.capsys.readouterr().out
        result = json.loads(out)
        result['warnings'] = [_message(w) for w in result.get('warnings', [])]
        return result, info.value.code or 0

    def ok(self, module, args, **kwargs):
        result, code = self(module, args, **kwargs)
        assert code == 0 and not result.get('failed'), result
        return result

    def fail(self, module, args, **kwargs):
        result, code = self(module, args, **kwargs)
        assert code != 0 and result.get('failed'), result
        return result


@pytest.fixture
def run_module(capsys):
    return ModuleRun(capsys)
