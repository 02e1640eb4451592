# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the audit module's readers of environment sources and unit files: any content a
host (or a build root) may hold is read without an exception.

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from hypothesis import given, strategies as st

from ansible_collections.pep493.https.plugins.module_utils import audit
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ


PIECES = st.sampled_from([
    b'PYTHONHTTPSVERIFY=0', b'PYTHONHTTPSVERIFY="1"', b"PYTHONHTTPSVERIFY='0", b'export PYTHONHTTPSVERIFY=0',
    b'unset PYTHONHTTPSVERIFY', b'# c', b'; c', b'\\', b'\\\\', b'=', b'A=b\\', b' ', b'\t', b'\r', b'\xff',
    b'[Service]', b'[Unit]', b'Environment=', b'Environment=PYTHONHTTPSVERIFY=0', b'EnvironmentFile=-/x',
    b'ExecStart=', b'ExecStart=/usr/bin/python2 -c x', b'ExecStart=@/usr/bin/python3 py', b'"', b"'", b'%%',
])
CONTENT = st.one_of(st.binary(max_size=512), st.lists(st.one_of(PIECES, st.binary(max_size=8)), max_size=16)
                    .map(b'\n'.join))


@FUZZ
@given(CONTENT)
def test_environment_readers_take_any_bytes(data):
    env = audit.parse_environ(data.replace(b'\n', b'\0'))
    assert all(name and '=' not in name for name in env)
    for lineno, name, value in audit.parse_environment_file(data):
        assert lineno >= 1 and name
    for lineno, name, value in audit.parse_etc_environment(data):
        assert lineno >= 1 and name
    for entry in audit.parse_shell_settings(data):
        assert entry[0] >= 1
    audit.environment_file_value(data)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(['unit', 'dropin']), st.one_of(st.none(), CONTENT)), max_size=4))
def test_unit_configuration_takes_any_files(files):
    state = audit.unit_configuration([('/etc/systemd/system/x%d' % i, kind, data)
                                      for i, (kind, data) in enumerate(files)])
    assert set(['value', 'source', 'environment_files', 'exec_argv']) <= set(state)
