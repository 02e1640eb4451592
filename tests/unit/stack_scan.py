# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The walk of a program's imports as the stack tests call it: ``https_stacks.scan_program`` with
generous limits and a deadline a minute away, and what it found of one stack."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import time

from ansible_collections.pep493.https.plugins.module_utils._syntax import https_stacks as stacks
from ansible_collections.pep493.https.tests.unit.tree import read

PYTHON27 = '/root/.pyenv/versions/2.7.18/bin/python'
# where RHEL's requests (its certs.where(), patched) takes its bundle from
RHEL_BUNDLE = '/etc/pki/tls/certs/ca-bundle.crt'
LIMITS = dict(max_files=50, max_bytes=1 << 20, max_depth=10)


def scan(program, search_path, as_module=False, list_dir=os.listdir, read_file=read, python_major=2,
         clock=time.time, **limits):
    given_limits = dict(LIMITS, deadline=time.time() + 60)
    given_limits.update(limits)
    return stacks.scan_program(program, read_file, search_path, given_limits, as_module=as_module,
                               list_dir=list_dir, python_major=python_major, clock=clock)


def found(result, stack):
    entries = result['stacks'].get(stack, [])
    return [(entry['module'], os.path.basename(entry['file']), entry['line']) for entry in entries]
