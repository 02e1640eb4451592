# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``patch_module_args`` for every supported ansible-core (2.19 ships one; older ones do not)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes

try:  # ansible-core 2.19 and later
    from ansible.module_utils.testing import patch_module_args  # pylint: disable=unused-import
except ImportError:  # ansible-core 2.16 - 2.18
    @contextlib.contextmanager
    def patch_module_args(args):
        basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args}))
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = None
