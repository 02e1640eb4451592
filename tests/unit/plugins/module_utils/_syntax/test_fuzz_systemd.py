# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing systemd's syntaxes: ``systemctl show`` output, unit files, words and escapes.

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from hypothesis import example, given, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ

KEYS = ['Id', 'LoadState', 'ActiveState', 'Environment', 'MainPID']
VALUES = st.text(alphabet=st.characters(blacklist_categories=('Cs',), blacklist_characters='\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029'),
                 max_size=40)


@st.composite
def show_outputs(draw):
    blocks = draw(st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1), max_size=4))
    text = '\n\n'.join('\n'.join('%s=%s' % item for item in sorted(block.items())) for block in blocks)
    return blocks, text + ('\n' if blocks and draw(st.booleans()) else '')


@FUZZ
@given(show_outputs())
def test_show_blocks_read_back(case):
    blocks, text = case
    got = systemd.parse_show(text)
    # a block whose values are all blank is not told apart from the separator
    expected = [b for b in blocks if any(('%s=%s' % i).strip() for i in b.items())]
    assert got == expected


@FUZZ
@given(st.text(max_size=300))
def test_show_and_list_parsers_take_any_text(text):
    for block in systemd.parse_show(text):
        assert all(isinstance(k, type(text)) and '\n' not in k for k in block)
    for unit, state in systemd.parse_list_units(text).items():
        assert unit.endswith('.service') and len(state) == 3


WORDY = st.one_of(st.text(max_size=60), st.text(alphabet='ab =\'"\\xuU0123456789fF \t\n%i;', max_size=40))


@FUZZ
@given(WORDY)
def test_word_parsers_take_any_text(text):
    words, error = systemd.extract_words(text)
    assert all(isinstance(w, bytes) for w in words) and (error is None or isinstance(error, str))
    env = systemd.parse_environment(text)
    assert all(name and '=' not in name for name in env)
    try:
        systemd.expand_specifiers(text, 'a-b@c.service')
    except systemd.SpecifierError:
        pass


@FUZZ
@given(st.binary(max_size=400))
def test_unit_files_take_any_bytes(data):
    found, error = systemd.unit_file_assignments(data)
    for line, section, key, value in found:
        assert line >= 1 and key and '\n' not in value


@FUZZ
@given(st.lists(st.tuples(st.text(alphabet='ABCxyz_', min_size=1, max_size=8),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x10ffff,
                                                         blacklist_categories=('Cs',)), max_size=12)),
                max_size=5))
def test_quoted_environment_reads_back(pairs):
    """What a unit file says with C escapes and double quotes reads back as meant."""
    def quote(value):
        out = []
        for char in value:
            if char in '"\\':
                out.append('\\' + char)
            elif ord(char) < 32:
                out.append('\\x%02x' % ord(char))
            else:
                out.append(char)
        return ''.join(out)
    text = ' '.join('"%s=%s"' % (name, quote(value)) for name, value in pairs)
    expected = {}
    for name, value in pairs:
        if value != '\x00' and '\x00' not in value:
            expected[name] = value
    if any('\x00' in value for _name, value in pairs):
        return      # systemd refuses \x00 (and everything after it on the line)
    assert systemd.parse_environment(text) == expected


ESCAPE = st.one_of(st.from_regex(r'\A\\[xuU][0-9a-fA-F]{2,8}\Z'), st.from_regex(r'\A\\[0-7]{3}\Z'),
                   st.sampled_from(['\\', '\\n', '\\s', '"', "'", ' ', 'A=', 'x']))


@FUZZ
@example('A=\\U99999999')
@given(st.lists(ESCAPE, max_size=12).map(''.join))
def test_c_escapes_never_raise(text):
    systemd.extract_words(text)
    systemd.parse_environment(text)
