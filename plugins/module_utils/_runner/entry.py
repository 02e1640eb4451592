# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's entry point on the target: the request's module logic (its backend) run with the
stand-in for AnsibleModule. The backend ends the process itself, with exit_json or fail_json."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os

from ansible_collections.pep493.https.plugins.module_utils._runner.module import RunnerModule

BACKENDS = 'ansible_collections.pep493.https.plugins.module_utils._backends.'


def main(request):
    _usable_cwd()
    module = RunnerModule(request)
    backend = importlib.import_module(BACKENDS + str(request['module']))
    backend.run(module)


def _usable_cwd():
    """Python needs a working folder it can query; become can leave it in one it cannot."""
    try:
        os.getcwd()
    except OSError:
        try:
            os.chdir(os.path.expanduser('~'))
        except OSError:
            os.chdir('/')
