# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a module's main() in-process with given arguments; return what it printed as JSON."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.module_utils.common import warnings as ansible_warnings

from ansible_collections.pep493.https.tests.unit.module_args import patch_module_args


def clear_warnings():
    """Warnings are kept process-wide; each in-process run must see only its own."""
    for store in (ansible_warnings._global_warnings, ansible_warnings._global_deprecations):
        if isinstance(store, dict):
            store.clear()
        else:
            del store[:]


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
        with patch_module_args(args):
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
