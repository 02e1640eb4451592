# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Environment files as each reader reads them: systemd 247's EnvironmentFile= state machine,
/etc/environment (pam_env), shell snippets, /proc/<pid>/environ."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile


def values(data):
    return dict((name, value) for name, (value, _line) in
                envfile.assignments_of(envfile.parse_environment_file(data)).items())


@pytest.mark.parametrize('data, expected', [
    # plain, white space around "=" and after the value
    (b'A=1\n  B = two words  \nC=\n', {'A': '1', 'B': 'two words', 'C': ''}),
    # comments: a line starting with # or ; (after white space)
    (b'# A=1\n  ; B=2\nC=3 # not a comment\n', {'C': '3 # not a comment'}),
    # systemd 247: a comment line ending in a backslash swallows the next line
    (b'# note \\\nA=1\nB=2\n', {'B': '2'}),
    (b'# note \\\\\nA=1\n', {'A': '1'}),
    # quotes only right after "=" (and white space); a quoted value may span lines
    (b'A="x y"\nB=\'p q\'\nC=0""\nD=a"b"\n', {'A': 'x y', 'B': 'p q', 'C': '0""', 'D': 'a"b"'}),
    (b'A="one\ntwo"\nB=1\n', {'A': 'one\ntwo', 'B': '1'}),
    (b'A="x" "y" z \n', {'A': 'xyz'}),
    # inside double quotes only \" \\ \` \$ lose their backslash; a backslash-newline is dropped
    (b'A="\\0\\"\\\\\\`\\$\\n"\n', {'A': '\\0"\\`$\\n'}),
    (b'A="x\\\ny"\n', {'A': 'xy'}),
    # single quotes keep everything
    (b"A='\\n \\\\'\n", {'A': '\\n \\\\'}),
    # unquoted: a backslash keeps the next character, a trailing one joins the next line
    (b'A=a\\ b\\\\c\nB=x\\\ny\n', {'A': 'a b\\c', 'B': 'xy'}),
    (b'A=\\ \\ \n', {'A': '  '}),
    # invalid names are dropped (export is not special); the last assignment wins
    (b'export A=1\nbad name=2\n1X=3\nB=1\nB=2\n', {'B': '2'}),
    # a line without "=" is skipped; a NUL ends the file
    (b'junk\nA=1\x00B=2\n', {'A': '1'}),
    # CR alone and CRLF end lines too
    (b'A=1\r\nB=2\rC=3', {'A': '1', 'B': '2', 'C': '3'}),
    (b'A', {}),
    (b'A=', {'A': ''}),
    (b'A="unterminated', {'A': 'unterminated'}),
])
def test_environment_file_as_systemd_247_reads_it(data, expected):
    assert values(data) == expected


def test_line_numbers_are_where_the_assignment_starts():
    parsed = envfile.parse_environment_file(b'# c\n\nA=1\nB="x\ny"\nC=2\n')
    assert [(line, name) for line, name, _value in parsed] == [(3, 'A'), (4, 'B'), (6, 'C')]


def test_invalid_utf8_makes_systemd_refuse_the_whole_file():
    with pytest.raises(envfile.EnvFileError) as info:
        envfile.parse_environment_file(b'A=1\nB=\xff\n')
    assert 'line 2' in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_are_refused(data):
    try:
        parsed = envfile.parse_environment_file(data)
    except envfile.EnvFileError:
        return
    for line, name, value in parsed:
        assert line >= 1 and isinstance(name, type(u''))


def test_etc_environment_allows_export_and_strips_quotes():
    data = b'PATH="/usr/bin"\n# PYTHONHTTPSVERIFY=0\nexport PYTHONHTTPSVERIFY="0"\nX\n'
    assert envfile.parse_etc_environment(data) == [(1, 'PATH', '/usr/bin'), (3, 'PYTHONHTTPSVERIFY', '0')]


@pytest.mark.parametrize('line, expected', [
    (b'export PYTHONHTTPSVERIFY=0', [(1, 'set', '0')]),
    (b'PYTHONHTTPSVERIFY="0"; export PYTHONHTTPSVERIFY', [(1, 'set', '0')]),
    (b"  declare -x PYTHONHTTPSVERIFY='1'", [(1, 'set', '1')]),
    (b'setenv PYTHONHTTPSVERIFY 0', [(1, 'set', '0')]),
    (b'unset PYTHONHTTPSVERIFY', [(1, 'unset', None)]),
    (b'export PYTHONHTTPSVERIFY', [(1, 'mention', None)]),
    (b'PYTHONHTTPSVERIFY=${LEGACY:-0}', [(1, 'set', '${LEGACY:-0}')]),
    (b'# export PYTHONHTTPSVERIFY=0', []),
    (b'export NOT_PYTHONHTTPSVERIFY=0', [(1, 'mention', None)]),
])
def test_shell_snippets(line, expected):
    assert envfile.parse_shell_settings(line + b'\n') == expected


def test_environ_blobs():
    blob = b'PATH=/usr/bin\0PYTHONHTTPSVERIFY=0\0EQ=a=b\0NL=two\nlines\0PYTHONHTTPSVERIFY=1\0=nameless\0JUST\0'
    assert envfile.parse_environ(blob) == {'PATH': '/usr/bin', 'PYTHONHTTPSVERIFY': '0', 'EQ': 'a=b',
                                           'NL': 'two\nlines'}
    assert envfile.parse_environ(b'BIN=\xff\xfe\0') == {'BIN': u'\ufffd\ufffd'}
    assert envfile.parse_environ(b'') == {}
