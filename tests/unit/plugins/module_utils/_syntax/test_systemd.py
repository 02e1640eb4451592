# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""systemd's syntaxes: unit files, words and escapes, specifiers, systemctl's output."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names


# --- unit files: config_parse() -------------------------------------------------------------------

def assignments(data):
    found, error = systemd.unit_file_assignments(data)
    return list(found), error


def test_sections_keys_values_and_comments():
    found, error = assignments(b'[Unit]\nDescription = a b \n# Environment=X=1\n  ; also a comment\n'
                               b'[Service]\nEnvironment=A=1\n\n  Environment  =  B=2  \nnoequals\n=nokey\n')
    assert error is None
    assert found == [(2, 'Unit', 'Description', 'a b'), (6, 'Service', 'Environment', 'A=1'),
                     (8, 'Service', 'Environment', 'B=2')]


def test_the_same_bytes_are_parsed_once_and_each_caller_gets_its_own_list():
    data = b'[Service]\nEnvironment=A=1\nEnvironment=B=2\n'
    first, error = systemd.unit_file_assignments(data)
    first.append('changed by the caller')
    again, _error = systemd.unit_file_assignments(data)
    assert error is None and again == [(2, 'Service', 'Environment', 'A=1'), (3, 'Service', 'Environment', 'B=2')]
    other, _error = systemd.unit_file_assignments(data + b'Environment=C=3\n')
    assert other[-1] == (4, 'Service', 'Environment', 'C=3')


def test_assignments_outside_a_section_are_ignored():
    assert assignments(b'Environment=A=1\n[Service]\nEnvironment=B=2\n')[0] == [(3, 'Service', 'Environment', 'B=2')]


def test_continuation_lines_and_comments_inside_them():
    data = (b'[Service]\nEnvironment=A=1 \\\n# a comment line inside is skipped\n  B=2\n'
            b'Environment=C=3\\\\\nExecStart=/x \\\n')
    found, error = assignments(data)
    assert error is None
    # the backslash becomes a space; an even number of backslashes does not continue the line
    assert found == [(4, 'Service', 'Environment', 'A=1    B=2'), (5, 'Service', 'Environment', 'C=3\\\\'),
                     (7, 'Service', 'ExecStart', '/x')]


def test_line_ends_crlf_cr_and_nul_and_a_byte_order_mark():
    found, error = assignments(b'\xef\xbb\xbf[Service]\r\nEnvironment=A=1\rEnvironment=B=2\x00Environment=C=3\n')
    assert error is None and [v for _l, _s, _k, v in found] == ['A=1', 'B=2', 'C=3']


def test_invalid_utf8_or_a_broken_section_header_end_the_file():
    found, error = assignments(b'[Service]\nEnvironment=A=1\nEnvironment=\xff\nEnvironment=B=2\n')
    assert [v for _l, _s, _k, v in found] == ['A=1'] and error.line == 3
    found, error = assignments(b'[Service]\nEnvironment=A=1\n[Service\nEnvironment=B=2\n')
    assert [v for _l, _s, _k, v in found] == ['A=1'] and 'section header' in str(error)


# --- words: extract_first_word() --------------------------------------------------------------

@pytest.mark.parametrize('text, words, error', [
    ('a b\tc', [b'a', b'b', b'c'], False),
    ('"a b" \'c d\'', [b'a b', b'c d'], False),
    ('x"y z"w', [b'xy zw'], False),                       # quotes anywhere in a word
    ('\\x41\\101\\u00e9\\s', [b'AA\xc3\xa9 '], False),
    ('\\xff', [b'\xff'], False),                          # \x is a byte, not a code point
    ('"a\\"b"', [b'a"b'], False),
    ('ok \\q rest', [b'ok'], True),                       # an unknown escape: systemd refuses the word
    ('ok "open', [b'ok'], True),
    ('ok \\', [b'ok'], True),
    ('\\x00', [], True),
    ('\\000', [], True),
    ('\\U00110000', [], True),
])
def test_extract_words(text, words, error):
    found, why = systemd.extract_words(text)
    assert found == words and (why is not None) is error


def test_words_without_c_escapes_keep_the_next_character():
    assert systemd.extract_words('a\\q "b c"', cunescape=False) == ([b'aq', b'b c'], None)


@pytest.mark.parametrize('value, expected', [
    ('', {}),
    ('PYTHONHTTPSVERIFY=0', {'PYTHONHTTPSVERIFY': '0'}),
    ('PYTHONHTTPSVERIFY=0 "A=b c" "B=x\\ty" "Q=it\'s"', {'PYTHONHTTPSVERIFY': '0', 'A': 'b c', 'B': 'x\ty', 'Q': "it's"}),
    ('A=1 A=2', {'A': '2'}),
    ('X=a=b=c', {'X': 'a=b=c'}),
    ('E= "F="', {'E': '', 'F': ''}),
    ('P=\\x41\\101\\u00e9 Q=a\\sb', {'P': u'AA\xe9', 'Q': 'a b'}),
    ('P=1 Q=a\\ b R=2', {'P': '1'}),                       # "\ " is no C escape: the rest is refused
    ('noequals 1X=2 PYTHONHTTPSVERIFY=1', {'PYTHONHTTPSVERIFY': '1'}),
    ('"PYTHONHTTPSVERIFY= 0"', {'PYTHONHTTPSVERIFY': ' 0'}),
    ('PYTHONHTTPS\\x56ERIFY=0', {'PYTHONHTTPSVERIFY': '0'}),
    ('A=\\xff B=1', {'B': '1'}),                          # not UTF-8: the assignment is invalid
    ('A=1 "B=2', {'A': '1'}),
])
def test_parse_environment(value, expected):
    assert systemd.parse_environment(value) == expected


# --- unit names and specifiers ----------------------------------------------------------------

def test_unit_name_parts():
    assert unit_names.unit_name_parts('a-b@c.service') == ('a-b', 'c', 'service')
    assert unit_names.unit_name_parts('a@.service') == ('a', '', 'service')
    assert unit_names.unit_name_parts('plain.socket') == ('plain', None, 'socket')
    for bad in ('a.conf', '@x.service', 'a b.service', 'a/b.service', 'x' * 250 + '.service'):
        assert unit_names.unit_name_parts(bad) is None
    assert unit_names.template_of('w@3.service') == 'w@.service' and unit_names.template_of('w.service') is None
    assert unit_names.is_template('w@.service') and unit_names.is_instance('w@x.service')


@pytest.mark.parametrize('text, unit, expected', [
    ('%i %I %n %N %p %P %j %J %%', 'app-web@a\\x2db.service',
     'a\\x2db a-b app-web@a\\x2db.service app-web@a\\x2db app-web app/web web web %'),
    ('%f', 'mnt@var-lib.service', '/var/lib'),
    ('%f', 'var-lib.service', '/var/lib'),
    ('%t/%S/%E/%C/%L/%T/%V', 'a.service', '/run//var/lib//etc//var/cache//var/log//tmp//var/tmp'),
    ('100%-', 'a.service', '100%-'),
    ('end%', 'a.service', 'end%'),
])
def test_specifiers(text, unit, expected):
    assert systemd.expand_specifiers(text, unit) == expected


def test_host_dependent_and_unknown_specifiers():
    with pytest.raises(systemd.SpecifierError) as info:
        systemd.expand_specifiers('PYTHONHTTPSVERIFY=%H', 'a.service')
    assert info.value.host is True
    with pytest.raises(systemd.SpecifierError) as info:
        systemd.expand_specifiers('%y', 'a.service')
    assert info.value.host is False


# --- systemctl ----------------------------------------------------------------------------------

SHOW = (
    'Environment=PYTHONHTTPSVERIFY=0\nId=pep493-worker-py2@3.service\nLoadState=loaded\n\n'
    'Environment=\nId=nosuch.service\nLoadState=not-found\n\n'
    'ExecStartPre=one\nExecStartPre=two\nId=c.service\n'
)


def test_parse_show():
    blocks = systemd.parse_show(SHOW)
    assert [b['Id'] for b in blocks] == ['pep493-worker-py2@3.service', 'nosuch.service', 'c.service']
    assert blocks[2]['ExecStartPre'] == 'one\ntwo'
    assert systemd.parse_show('') == []
    assert systemd.parse_show('\n\nId=a.service\n\n\n\nId=b.service\n\n') == [{'Id': 'a.service'}, {'Id': 'b.service'}]


def test_parse_list_units():
    text = ('  a.service          loaded    active   running Desc with words\n'
            '\xe2\x97\x8f b.service loaded failed failed B\n'
            'c@1.service not-found inactive dead c@1.service\n'
            'garbage\n')
    assert systemd.parse_list_units(text) == {
        'a.service': ('loaded', 'active', 'running'), 'b.service': ('loaded', 'failed', 'failed'),
        'c@1.service': ('not-found', 'inactive', 'dead')}
