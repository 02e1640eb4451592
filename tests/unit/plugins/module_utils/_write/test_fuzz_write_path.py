# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the writing modules' inputs that decide whether a write can finish: file-attribute
options (mode, owner, group, attributes) and unit-name and drop-in-name lengths. The property:
no input makes a module write and then fail - a run either succeeds, or fails with the tree
exactly as it was (and check mode fails on it too, never answering changed: true).

Each example is a real in-process run of the module on a throw-away root; the number of
examples is kept small (short profile: 40 per test) so that the fault run stays short."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import json
import os
import shutil
import sys
import tempfile

from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.modules import cert_verification, service_verification
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ
from ansible_collections.pep493.https.tests.unit.module_args import patch_module_args
from ansible_collections.pep493.https.tests.unit.tree import snapshot, write

RUNS = settings(FUZZ, max_examples=max(FUZZ.max_examples // 5, 40))
CFG = '/etc/python/cert-verification.cfg'
SHIPPED = b"[https]\nverify=platform_default\n"

MODES = st.one_of(
    st.sampled_from(['0644', '0600', '644', '0o644', '0999', '8', '07777', '77777', '-1', '', 'u=rw,g=r,o=r',
                     'u+x', 'a=rwX', 'u=rwz', 'rw-r--r--', 'u=rw,,', '0644\n', u'\uff10644']),
    st.text(alphabet='0123456789ugoa+-=rwxXst, ', max_size=12),
    st.integers(min_value=-10, max_value=0o20000),
)
ACCOUNTS = st.one_of(st.sampled_from(['0', 'root', 'nobody', '4242', '', ' ', 'root\n', u'r\xf6\xf6t', '-1']),
                     st.text(max_size=12))
# only strings holding at least one character chattr does not know: a valid flag would change this
# machine's own file flags (and "i" would leave files nobody can remove)
BAD_ATTRIBUTES = st.builds(lambda head, bad, tail: head + bad + tail, st.text(alphabet='+-=aAcd', max_size=3),
                           st.sampled_from(['Q', 'z', '!', ' ', '\n', u'\xe9', '0']), st.text(max_size=3))


def run(module, args, check_mode):
    """(result, failed) of one in-process run of ``module``."""
    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=False)
    out = io.StringIO() if sys.version_info[0] >= 3 else io.BytesIO()
    saved, sys.stdout = sys.stdout, out
    try:
        with patch_module_args(args):
            try:
                module.main()
            except SystemExit:
                pass
    finally:
        sys.stdout = saved
    result = json.loads(out.getvalue())
    return result, bool(result.get('failed'))


def never_writes_then_fails(module, args, prepare):
    root = tempfile.mkdtemp(prefix='pep493-fuzz-')
    try:
        prepare(root)
        before = snapshot(root)
        checked, check_failed = run(module, dict(args, root=root), True)
        assert snapshot(root) == before, checked
        result, failed = run(module, dict(args, root=root), False)
        if failed:
            assert snapshot(root) == before, (args, result)
            assert check_failed, ('check mode said %r where the run failed' % checked, args, result)
        assert 'Traceback' not in json.dumps(result), result
    finally:
        shutil.rmtree(root)


@RUNS
@given(mode=st.one_of(st.none(), MODES), owner=st.one_of(st.none(), ACCOUNTS), group=st.one_of(st.none(), ACCOUNTS),
       attributes=st.one_of(st.none(), BAD_ATTRIBUTES), backup=st.booleans(),
       verify=st.sampled_from(['enable', 'platform_default']))
def test_file_attribute_inputs_never_write_then_fail(mode, owner, group, attributes, backup, verify):
    args = dict(verify=verify, backup=backup)
    for key, value in (('mode', mode), ('owner', owner), ('group', group), ('attributes', attributes)):
        if value is not None:
            args[key] = value
    never_writes_then_fails(cert_verification, args, lambda root: write(root, CFG, SHIPPED))


@RUNS
@given(lengths=st.lists(st.integers(min_value=1, max_value=262), min_size=1, max_size=3),
       dropin_length=st.one_of(st.none(), st.integers(min_value=1, max_value=255)))
def test_unit_and_dropin_name_lengths_never_write_then_fail(lengths, dropin_length):
    services = [dict(name='good1', verify=False)]
    services += [dict(name=chr(ord('a') + index) * length, verify=False) for index, length in enumerate(lengths)]
    args = dict(services=services)
    if dropin_length is not None:
        args['dropin_name'] = 'd' * dropin_length + '.conf'
    never_writes_then_fails(service_verification, args, lambda root: os.mkdir(os.path.join(root, 'etc')))
