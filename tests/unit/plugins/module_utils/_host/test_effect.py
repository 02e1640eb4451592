# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one "effective" rule: can PYTHONHTTPSVERIFY reach Python 2 code in a service."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import effect
from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.tests.unit.tree import write

SCRIPTS = {
    '/srv/py3': b'#!/usr/bin/python3\nimport x\n',
    '/srv/py3-E': b'#! /usr/bin/python3 -E\n',
    '/srv/env-py3': b'#!/usr/bin/env python3\n',
    '/srv/env-S-py3': b'#!/usr/bin/env -S python3 -u\n',
    '/srv/py2': b'#!/usr/bin/python2.7\n',
    '/srv/py2-Es': b'#!/usr/bin/python2.7 -Es\n',
    '/srv/py2-tab': b'#!\t/usr/bin/python2.7\t-E \n',
    '/srv/env-py2': b'#!/usr/bin/env python2\n',
    '/srv/env-S-py2-E': b'#!/usr/bin/env -S python2 -E\n',
    '/srv/sh': b'#!/bin/sh\nexec python3 x\n',
    '/srv/elf': b'\x7fELF\x02\x01',
    '/srv/chain': b'#!/srv/py2\n',
    '/usr/bin/py2tool': b'#!/usr/bin/python2\n',
}


@pytest.fixture
def host(tmp_path):
    for path, data in SCRIPTS.items():
        write(tmp_path, path, data, 0o755)
    write(tmp_path, '/usr/bin/python2.7', b'\x7fELF', 0o755)
    os.symlink('python2.7', os.path.join(str(tmp_path), 'usr/bin/python'))
    os.symlink('python3.9', os.path.join(str(tmp_path), 'usr/bin/python-three'))
    return hostfiles.HostFiles(str(tmp_path))


def answer(host, argv, env=None):
    return effect.combine([effect.command_effect(argv[0], argv, host, env)]).effective


@pytest.mark.parametrize('argv, expected', [
    (['/usr/bin/python3', '/srv/a.py'], False),
    (['/usr/bin/python3.11'], False),
    (['/usr/local/bin/python3.6m', 'x'], False),
    (['/usr/libexec/platform-python', 'x'], False),
    (['/usr/bin/pypy3'], False),
    (['/usr/bin/python2.7', '/srv/a.py'], True),
    (['/usr/bin/python2'], True),
    (['/usr/bin/pypy'], True),
    (['python2.7', 'a'], True),
    (['/usr/bin/python', 'x'], True),                         # a link to python2.7
    (['/usr/bin/python-three', 'x'], None),
    (['/usr/bin/python2.7', '-E', 'a'], False),
    (['/usr/bin/python2.7', '-Es', 'a'], False),
    (['/usr/bin/python2.7', '-sE', 'a'], False),
    (['/usr/bin/python2.7', '-tt', '-E', 'a'], False),
    (['/usr/bin/python2.7', '-W', 'ignore', '-E', 'a'], False),
    (['/usr/bin/python2.7', '-Wignore', '-E', 'a'], False),
    (['/usr/bin/python2.7', '-I', 'a'], False),               # Python 2 has no -I: it does not start
    (['/usr/bin/python2.7', '-s', 'a'], True),
    (['/usr/bin/python2.7', 'a', '-E'], True),                # after the script: its argument
    (['/usr/bin/python2.7', '-c', 'import x', '-E'], True),
    (['/usr/bin/python2.7', '-cE'], True),                    # "E" is the code here
    (['/usr/bin/python2.7', '-m', 'mod', '-E'], True),
    (['/usr/bin/python2.7', '--', '-E'], True),
    (['/usr/bin/python2.7', '-X', 'a'], None),
    (['/usr/bin/python2.7', '--version'], None),
    (['/usr/bin/env', 'python3', '/srv/a.py'], False),
    (['/usr/bin/env', '-i', 'FOO=1', 'python2.7', 'a'], False),
    (['/usr/bin/env', '-', 'python2.7', 'a'], False),
    (['/usr/bin/env', '-u', 'PYTHONHTTPSVERIFY', 'python2.7', 'a'], False),
    (['/usr/bin/env', '-uPYTHONHTTPSVERIFY', 'python2.7', 'a'], False),
    (['/usr/bin/env', '--unset=PYTHONHTTPSVERIFY', 'python2.7', 'a'], False),
    (['/usr/bin/env', '-u', 'OTHER', 'python2.7', 'a'], True),
    (['/usr/bin/env', 'PYTHONHTTPSVERIFY=1', 'python2.7', 'a'], False),
    (['/usr/bin/env', 'LANG=C', '/usr/bin/python2.7', 'a'], True),
    (['/usr/bin/env', '-S', 'python3 -u', 'a'], False),
    (['/usr/bin/env', '-S', 'python2.7 -E', 'a'], False),
    (['/usr/bin/env', '-C', '/tmp', 'python2.7', 'a'], True),
    (['/usr/bin/env'], None),
    (['/srv/py3'], False),
    (['/srv/py3-E'], False),
    (['/srv/env-py3'], False),
    (['/srv/env-S-py3'], False),
    (['/srv/py2'], True),
    (['/srv/py2-Es'], False),
    (['/srv/py2-tab'], False),
    (['/srv/env-py2'], True),
    (['/srv/env-S-py2-E'], False),
    (['/srv/chain'], True),
    (['py2tool'], True),                                      # found in the fixed search path
    (['/srv/sh'], None),
    (['/srv/elf'], None),
    (['/srv/missing'], None),
    (['/bin/sh', '-c', 'exec python2.7 a'], None),
])
def test_one_command(host, argv, expected):
    assert answer(host, argv) is expected


def test_variables_in_arguments(host):
    assert answer(host, ['/usr/bin/python2.7', '$FLAGS', 'a'], {'FLAGS': '-E -s'}) is False
    assert answer(host, ['/usr/bin/python2.7', '${FLAGS}', 'a'], {'FLAGS': '-E'}) is False
    assert answer(host, ['/usr/bin/python2.7', '$FLAGS', 'a'], {}) is True               # unset: no word
    assert answer(host, ['/usr/bin/python2.7', '$FLAGS', 'a'],
                  {'FLAGS': service_env.Unknown('why')}) is None


def command(path, argv, directive='ExecStart'):
    return service_env.ExecCommand(path, argv, True, service_env.Setting('/u', 'unit', 1), directive)


def test_every_exec_start_pre_and_exec_start_counts(host):
    py3 = command('/usr/bin/python3', ['/usr/bin/python3', 'x'])
    py2 = command('/usr/bin/python2.7', ['/usr/bin/python2.7', 'x'])
    sh = command('/bin/sh', ['/bin/sh', '-c', 'x'])
    pre2 = command('/usr/bin/python2.7', ['/usr/bin/python2.7', 'x'], 'ExecStartPre')
    assert effect.service_effect([py3, py2], host).effective is True
    assert effect.service_effect([pre2, py3], host).effective is True
    assert effect.service_effect([py3, py3], host).kind == effect.PYTHON3
    assert effect.service_effect([py3, sh], host).effective is None
    assert effect.service_effect([sh, py2], host).effective is True
    assert effect.service_effect([], host).kind == effect.NO_COMMAND
    found = effect.service_effect([pre2, py3], host)
    assert found.executable == '/usr/bin/python3' and found.main is found.commands[1] and not found.python3


def test_the_main_process_value_follows_env_wrappers(host):
    unset = command('/usr/bin/env', ['/usr/bin/env', '-u', 'PYTHONHTTPSVERIFY', '/usr/bin/python3', 'x'])
    override = command('/usr/bin/env', ['/usr/bin/env', 'PYTHONHTTPSVERIFY=1', '/usr/bin/python2.7', 'x'])
    plain = command('/usr/bin/python2.7', ['/usr/bin/python2.7', 'x'])
    assert effect.main_process_value(effect.service_effect([unset], host), '0') is None
    assert effect.main_process_value(effect.service_effect([override], host), '0') == '1'
    assert effect.main_process_value(effect.service_effect([plain], host), '0') == '0'
    nested = command('/usr/bin/env', ['/usr/bin/env', '-u', 'PYTHONHTTPSVERIFY', '/usr/bin/env',
                                      'PYTHONHTTPSVERIFY=1', '/usr/bin/python2.7', 'x'])
    assert effect.main_process_value(effect.service_effect([nested], host), '0') == '1'


def test_root_directory_holds_the_programs(tmp_path):
    write(tmp_path, '/srv/chroot/opt/agent', b'#!/usr/bin/python2.7\n', 0o755)
    host = hostfiles.HostFiles(str(tmp_path))
    found = effect.service_effect([command('/opt/agent', ['/opt/agent'])], host, root_directory='/srv/chroot')
    assert found.effective is True


def test_a_cache_kept_for_the_host_gives_the_answers_it_would_without(host):
    # a command that names no variable is followed once per host; one that names a variable
    # depends on each service's environment and is never taken from the cache
    flags = command('/usr/bin/python2.7', ['/usr/bin/python2.7', '$FLAGS', 'x'])
    py2 = command('/usr/bin/python2.7', ['/usr/bin/python2.7', 'x'])
    chain = command('/srv/chain', ['/srv/chain'])
    cache = {}
    for environment in ({'FLAGS': '-E'}, {}, {'FLAGS': '-s'}, {'FLAGS': service_env.Unknown('why')}):
        for commands in ([flags], [py2, flags], [chain], [py2], [chain, flags]):
            cached = effect.service_effect(commands, host, environment, cache=cache)
            fresh = effect.service_effect(commands, host, environment)
            assert (cached.effective, cached.kind, cached.executable) == (fresh.effective, fresh.kind, fresh.executable)
    assert all('$FLAGS' not in key[1] for key in cache)
    assert effect.service_effect([flags], host, {'FLAGS': '-E'}, cache=cache).effective is False
    assert effect.service_effect([flags], host, {}, cache=cache).effective is True
