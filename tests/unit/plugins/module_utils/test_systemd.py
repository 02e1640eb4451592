# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of `systemctl show` output and unit files; the Python 3 interpreter test."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.pep493.https.plugins.module_utils import hostfiles, systemd

# Captured from systemd 247 (Debian bullseye) for three units at once.
SHOW = (
    'ExecStart={ path=/usr/bin/python2.7 ; argv[]=/usr/bin/python2.7 /usr/local/libexec/pep493/worker ; '
    'ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n'
    'Environment=PYTHONHTTPSVERIFY=0\n'
    'Id=pep493-worker-py2@3.service\n'
    'LoadState=loaded\n'
    'ActiveState=inactive\n'
    'FragmentPath=/etc/systemd/system/pep493-worker-py2@.service\n'
    '\n'
    'Environment=\n'
    'Id=nosuch.service\n'
    'LoadState=not-found\n'
    'ActiveState=inactive\n'
    'FragmentPath=\n'
    '\n'
    'ExecStartPre={ path=/bin/true ; argv[]=/bin/true ; ignore_errors=no ; start_time=[n/a] ; '
    'stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n'
    'ExecStartPre={ path=/bin/echo ; argv[]=/bin/echo a\\ b c d ; ignore_errors=yes ; start_time=[n/a] ; '
    'stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }\n'
    'ExecStart={ path=/usr/bin/python3 ; argv[]=/usr/bin/python3 /usr/local/libexec/pep493/https-client '
    'https://localhost:4443/?a=b ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; '
    'code=(null) ; status=0/0 }\n'
    'Environment=PYTHONHTTPSVERIFY=0 "A=b c" "B=x\\ty" "Q=it\'s"\n'
    'Id=pep493-client-py3.service\n'
    'LoadState=loaded\n'
    'ActiveState=active\n'
)


def test_parse_show_splits_blocks_in_order():
    blocks = systemd.parse_show(SHOW)
    assert [b['Id'] for b in blocks] == ['pep493-worker-py2@3.service', 'nosuch.service', 'pep493-client-py3.service']
    assert blocks[0]['FragmentPath'] == '/etc/systemd/system/pep493-worker-py2@.service'
    assert blocks[1] == dict(Environment='', Id='nosuch.service', LoadState='not-found', ActiveState='inactive',
                             FragmentPath='')
    assert blocks[2]['ActiveState'] == 'active'


def test_parse_show_keeps_equals_signs_and_repeated_keys():
    blocks = systemd.parse_show(SHOW)
    assert blocks[2]['Environment'] == 'PYTHONHTTPSVERIFY=0 "A=b c" "B=x\\ty" "Q=it\'s"'
    assert blocks[2]['ExecStartPre'].count('\n') == 1
    assert len(systemd.parse_exec_start(blocks[2]['ExecStartPre'])) == 2


def test_parse_show_tolerates_extra_blank_lines_and_empty_output():
    assert systemd.parse_show('') == []
    assert systemd.parse_show('\n\nId=a.service\n\n\n\nId=b.service\n\n') == [{'Id': 'a.service'}, {'Id': 'b.service'}]


@pytest.mark.parametrize('value, expected', [
    ('', {}),
    ('PYTHONHTTPSVERIFY=0', {'PYTHONHTTPSVERIFY': '0'}),
    ('PYTHONHTTPSVERIFY=0 "A=b c" "B=x\\ty" "Q=it\'s"', {'PYTHONHTTPSVERIFY': '0', 'A': 'b c', 'B': 'x\ty', 'Q': "it's"}),
    ("'S=single quoted' T=1", {'S': 'single quoted', 'T': '1'}),
    ('A=1 A=2', {'A': '2'}),
    ('X=a=b=c', {'X': 'a=b=c'}),
    ('E= "F="', {'E': '', 'F': ''}),
    ('P=\\x41\\101\\u00e9 Q=a\\ b', {'P': u'AA\xe9', 'Q': 'a b'}),
    ('noequals PYTHONHTTPSVERIFY=1', {'PYTHONHTTPSVERIFY': '1'}),
    ('"PYTHONHTTPSVERIFY=0"', {'PYTHONHTTPSVERIFY': '0'}),
    ('"PYTHONHTTPSVERIFY= 0"', {'PYTHONHTTPSVERIFY': ' 0'}),
])
def test_parse_environment(value, expected):
    assert systemd.parse_environment(value) == expected


def test_parse_exec_start_forms():
    assert systemd.parse_exec_start(
        '{ path=/usr/bin/python3 ; argv[]=/usr/bin/python3 /srv/app.py --x=1 ; ignore_errors=no ; '
        'start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }') == [
        ['/usr/bin/python3', '/srv/app.py', '--x=1']]
    # ExecStartEx= form (newer systemd) and an argv[0] that differs from the program run
    assert systemd.parse_exec_start(
        '{ path=/usr/bin/python2.7 ; argv[]=myagent -u ; flags=ignore-failure ; start_time=[n/a] ; '
        'stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }') == [['/usr/bin/python2.7', '-u']]
    assert systemd.parse_exec_start('') == []
    assert systemd.parse_exec_start(None) == []


def test_unit_file_exec_start():
    text = (
        '[Unit]\nExecStart=/not/service/section\n'
        '[Service]\n'
        '# ExecStart=/commented\n'
        'ExecStart=/usr/bin/first\n'
        'ExecStart=\n'
        'ExecStart=-/usr/bin/python3 \\\n'
        '  /srv/app.py "two words"\n'
        'ExecStart=@/usr/bin/python2.7 agent-name --flag\n'
        'ExecStart=+!/usr/bin/env python3 x\n')
    assert systemd.unit_file_exec_start(text) == [
        ['/usr/bin/python3', '/srv/app.py', 'two words'],
        ['/usr/bin/python2.7', '--flag'],
        ['/usr/bin/env', 'python3', 'x']]


def heads(mapping):
    return mapping.get


@pytest.mark.parametrize('argv, files, expected', [
    (['/usr/bin/python3', '/srv/a.py'], {}, True),
    (['/usr/bin/python3.11'], {}, True),
    (['/usr/local/bin/python3.6m', 'x'], {}, True),
    (['/usr/libexec/platform-python', 'x'], {}, True),
    (['/usr/bin/pypy3'], {}, True),
    (['/usr/bin/python2.7', '/srv/a.py'], {}, False),
    (['/usr/bin/python2'], {}, False),
    (['/usr/bin/env', 'python3', '/srv/a.py'], {}, True),
    (['/usr/bin/env', '-i', 'FOO=1', 'python2.7', 'a'], {}, False),
    (['/usr/bin/env', '-S', 'python3 -u', 'a'], {}, True),
    (['/usr/bin/env', '-u', 'python2', 'python3'], {}, True),
    (['/srv/agent'], {'/srv/agent': b'#!/usr/bin/python3\nimport x\n'}, True),
    (['/srv/agent'], {'/srv/agent': b'#! /usr/bin/python3 -E\n'}, True),
    (['/srv/agent'], {'/srv/agent': b'#!/usr/bin/env python3\n'}, True),
    (['/srv/agent'], {'/srv/agent': b'#!/usr/bin/env -S python3 -u\n'}, True),
    (['/srv/agent'], {'/srv/agent': b'#!/usr/bin/python2.7\n'}, False),
    (['/srv/agent'], {'/srv/agent': b'#!/usr/bin/env python2\n'}, False),
    (['/srv/agent'], {'/srv/agent': b'#!/bin/sh\nexec python3 x\n'}, None),
    (['/srv/agent'], {'/srv/agent': b'\x7fELF\x02\x01'}, None),
    (['/srv/agent'], {}, None),
    (['/usr/bin/python', 'x'], {}, None),
    ([], {}, None),
])
def test_python3_interpreter(argv, files, expected):
    assert systemd.python3_interpreter(argv, read_head=heads(files)) is expected


def test_bare_python_follows_its_link():
    def resolve(target):
        return lambda path: target
    assert systemd.python3_interpreter(['/usr/bin/python'], resolve=resolve('/usr/bin/python3.11')) is True
    assert systemd.python3_interpreter(['/usr/bin/python'], resolve=resolve('/usr/bin/python2.7')) is False
    assert systemd.python3_interpreter(['/usr/bin/python'], resolve=resolve('/usr/bin/python')) is None
    script = {'/srv/a': b'#!/usr/bin/python\n'}
    assert systemd.python3_interpreter(['/srv/a'], read_head=heads(script),
                                       resolve=resolve('/usr/bin/python3.9')) is True


def test_shebang_loop_ends():
    files = {'/a': b'#!/a\n'}
    assert systemd.python3_interpreter(['/a'], read_head=heads(files)) is None


def test_systemd_running_is_false_under_a_root(tmp_path):
    assert systemd.systemd_running(str(tmp_path)) is False
    assert systemd.systemd_running() is os.path.isdir('/run/systemd/system')


def write(path, content=b'[Service]\nExecStart=/bin/true\n'):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as handle:
        handle.write(content)


def test_find_unit_file_under_root(tmp_path):
    root = str(tmp_path)
    write(os.path.join(root, 'lib/systemd/system/vendor.service'))
    write(os.path.join(root, 'etc/systemd/system/vendor.service'))
    write(os.path.join(root, 'usr/lib/systemd/system/worker@.service'))
    files = hostfiles.HostFiles(root)
    assert systemd.find_unit_file('vendor.service', files) == '/etc/systemd/system/vendor.service'
    assert systemd.find_unit_file('worker@7.service', files) == '/usr/lib/systemd/system/worker@.service'
    assert systemd.find_unit_file('missing.service', files) is None


def test_find_unit_file_refuses_links_out_of_root(tmp_path):
    root = str(tmp_path)
    os.makedirs(os.path.join(root, 'etc/systemd/system'))
    os.symlink('../../../../../../../../etc/passwd', os.path.join(root, 'etc/systemd/system/escape.service'))
    assert systemd.find_unit_file('escape.service', hostfiles.HostFiles(root)) is None
