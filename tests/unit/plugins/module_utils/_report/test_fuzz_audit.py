# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the audit's readers: any content a host (or a build root) may hold in a unit file,
a drop-in or an environment file is read without an exception, and the environment computed
from it is well formed.

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shutil
import tempfile

from hypothesis import given, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model as hostmodel
from ansible_collections.pep493.https.plugins.module_utils._report import services as records
from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ
from ansible_collections.pep493.https.tests.unit.tree import write


PIECES = st.sampled_from([
    b'PYTHONHTTPSVERIFY=0', b'PYTHONHTTPSVERIFY="1"', b"PYTHONHTTPSVERIFY='0", b'export PYTHONHTTPSVERIFY=0',
    b'unset PYTHONHTTPSVERIFY', b'# c', b'; c', b'\\', b'\\\\', b'=', b'A=b\\', b' ', b'\t', b'\r', b'\xff',
    b'[Service]', b'[Unit]', b'Environment=', b'Environment=PYTHONHTTPSVERIFY=0', b'EnvironmentFile=-/etc/e*',
    b'EnvironmentFile=/etc/e', b'PassEnvironment=PYTHONHTTPSVERIFY', b'UnsetEnvironment=PYTHONHTTPSVERIFY=0',
    b'ExecStart=', b'ExecStart=/usr/bin/python2 -c x', b'ExecStart=@/usr/bin/python3 py ; /bin/x',
    b'ExecStartPre=-/usr/bin/env -i python2.7', b'"', b"'", b'%%', b'%i', b'%H', b'\\;', b'\x00',
])
CONTENT = st.one_of(st.binary(max_size=512), st.lists(st.one_of(PIECES, st.binary(max_size=8)), max_size=16)
                    .map(b'\n'.join))


@FUZZ
@given(CONTENT)
def test_environment_readers_take_any_bytes(data):
    env = envfile.parse_environ(data.replace(b'\n', b'\0'))
    assert all(name and '=' not in name for name in env)
    try:
        for lineno, name, value in envfile.parse_environment_file(data):
            assert lineno >= 1
    except envfile.EnvFileError:
        pass
    for lineno, name, value in envfile.parse_etc_environment(data):
        assert lineno >= 1 and name
    for entry in envfile.parse_shell_settings(data):
        assert entry[0] >= 1


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(['fragment', '10-a.conf', 'zz.conf']), CONTENT), max_size=4), CONTENT)
def test_any_unit_tree_gives_a_well_formed_record(files, env_file):
    root = tempfile.mkdtemp(prefix='pep493-fuzz-')
    try:
        for name, data in files:
            path = '/usr/lib/systemd/system/app@x.service' if name == 'fragment' else \
                '/etc/systemd/system/app@.service.d/' + name
            write(root, path, data)
        write(root, '/etc/e', env_file)
        host = hostmodel.Host(hostfiles.HostFiles(root))
        record = records.service_record(host, host.service('app@x.service'))
        assert record['unit'] == 'app@x.service'
        assert record['effective'] in (True, False, None) and isinstance(record['effect'], str)
        assert record['value'] is None or isinstance(record['value'], type(u''))
        assert record['value_known'] or record['value'] is None
    finally:
        shutil.rmtree(root)
