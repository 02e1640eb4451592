# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the unit-name validator, the drop-in renderer/reader and how what a drop-in says is
shown in a report (quoting.escaped).

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import posixpath
import re

import pytest
from hypothesis import given, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names
from ansible_collections.pep493.https.tests.unit.fuzz import FUZZ


SYSTEMD_CHARS = 'abcXYZ019:_.\\-'
UNIT_DIR = '/etc/systemd/system'
NAMEISH = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=SYSTEMD_CHARS + '@/ =%\n\t\x00.', max_size=30),
    st.builds(lambda a, b: a + '@' + b, st.text(alphabet=SYSTEMD_CHARS, max_size=10),
              st.text(alphabet=SYSTEMD_CHARS + '@', max_size=10)),
    st.sampled_from(['../x', '/etc/passwd', 'a b', 'a\nb', 'a=b', 'a%i', '', 'x' * 300, 'a.socket',
                     'a.service.service', '..', '.', '@', '@.service', 'a@', 'a@.service', 'a@b@c']),
)


def single_ascii_line(text):
    return '\n' not in text and '\r' not in text and all(32 <= ord(c) < 127 for c in text)


@FUZZ
@given(NAMEISH)
def test_unit_names_are_accepted_only_inside_unit_dir(name):
    try:
        unit = unit_names.validate_unit_name(name)
    except unit_names.UnitNameError as exc:
        # the offending value is shown, escaped: no newline or control character reaches a log
        assert single_ascii_line(str(exc)), str(exc)
        return
    assert unit.endswith('.service') and len((unit + '.d').encode('utf-8')) <= unit_names.NAME_BYTES_MAX
    assert re.match(r'[A-Za-z0-9:_.\\@-]+\.service\Z', unit), unit
    assert unit in (name, name + '.service')
    assert unit_names.validate_unit_name(unit) == unit
    path = dropin.dropin_path(UNIT_DIR, unit)
    assert posixpath.normpath(path) == path
    assert posixpath.dirname(path) == UNIT_DIR + '/' + unit + '.d'


@FUZZ
@given(st.text(alphabet='abcXYZ019:_.-', min_size=1, max_size=60),
       st.one_of(st.none(), st.text(alphabet='abcXYZ019:_.-@', max_size=60)))
def test_systemd_names_are_accepted(prefix, instance):
    name = prefix if instance is None else prefix + '@' + instance
    assert unit_names.validate_unit_name(name) == name + '.service'


REASON = st.one_of(st.none(), st.text(max_size=220), st.text(alphabet='ab \\#[]=\n\r\x85\u2028%', max_size=20))
EXPIRES = st.one_of(st.none(), st.dates().map(lambda d: d.isoformat()), st.text(max_size=12))


@FUZZ
@given(st.booleans(), REASON, EXPIRES)
def test_rendered_dropin_reads_back_and_holds_no_injected_line(verify, reason, expires):
    try:
        reason_ok = dropin.validate_reason(reason)
        expires_ok = dates.validate_expires(expires)
    except (dropin.DropinValueError, dates.DateError) as exc:
        assert single_ascii_line(str(exc)), str(exc)
        return
    data = dropin.render_dropin(verify, reason_ok, expires_ok)
    text = data.decode('utf-8')
    lines = text.split('\n')
    assert lines[-1] == ''
    assert [line for line in lines if not line.startswith('#')] == [
        '[Service]', 'Environment=PYTHONHTTPSVERIFY=%d' % int(verify), '']
    parsed = dropin.parse_dropin(data)
    assert parsed == dict(verify=verify, value=str(int(verify)), reason=reason_ok, expires=expires_ok, ca=None,
                          ca_bundle=None)
    assert dropin.parse_dropin(data.replace(b'\n', b'\r\n')) == parsed


DROPIN_LINES = st.one_of(
    st.sampled_from([dropin.MARKER, '[Service]', '[Unit]', 'Environment=', 'Environment=PYTHONHTTPSVERIFY=0',
                     'Environment="PYTHONHTTPSVERIFY=1" A=b', '# reason: x', '# expires: 2030-02-30',
                     '# expires: 2030-01-01', 'Environment=PYTHONHTTPSVERIFY=0 \\', ' ;c', '# ca: SHA-256 AB:CD',
                     'Environment=SSL_CERT_FILE=/x.pem']),
    st.text(max_size=30))


@FUZZ
@given(st.one_of(st.binary(max_size=512), st.lists(DROPIN_LINES, max_size=10).map(
    lambda lines: '\n'.join(lines).encode('utf-8', 'surrogatepass'))))
def test_dropin_reader_takes_any_bytes(data):
    parsed = dropin.parse_dropin(data)
    if parsed is None:
        assert dropin.MARKER.encode('ascii') not in data
        return
    assert set(parsed) == set(['verify', 'value', 'reason', 'expires', 'ca', 'ca_bundle'])
    assert parsed['verify'] is None if parsed['value'] is None else parsed['verify'] == (parsed['value'] != '0')
    assert parsed['expires'] is None or isinstance(parsed['expires'], (datetime.date, type(u'')))


# An escape as ``escaped`` writes it: \\xNN below U+0100, \\uNNNN below U+10000, \\UNNNNNNNN above.
ESCAPE = re.compile(r'\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))')
try:
    _chr = unichr  # noqa: F821 - Python 2
except NameError:
    _chr = chr


def unescaped(shown):
    """``shown`` with every escape turned back into the character it stands for."""
    return ESCAPE.sub(lambda match: _chr(int(''.join(match.groups('')), 16)), shown)


@pytest.mark.parametrize('text, shown', [
    (None, None),
    (u'plain text, kept as it is: a\\x41 \\ ~', u'plain text, kept as it is: a\\x41 \\ ~'),
    (u'caf\xe9 \xa0\u4e2d \U0001F980', u'caf\xe9 \xa0\u4e2d \U0001F980'),
    (u'\x00\t\n\r\x1b[31mred\x7f\x85\x9f', u'\\x00\\x09\\x0a\\x0d\\x1b[31mred\\x7f\\x85\\x9f'),
    (u'soft\xadhyphen', u'soft\\xadhyphen'),
    (u'a\u2028b\u2029c', u'a\\u2028b\\u2029c'),
    (u'\u202eevil\u200b\u2066\ufeff', u'\\u202eevil\\u200b\\u2066\\ufeff'),
    (u'\ud800 \ufdd0 \ufffe \uffff', u'\\ud800 \\ufdd0 \\ufffe \\uffff'),
    (u'tag \U000e0041, plane 1 noncharacter \U0001fffe', u'tag \\U000e0041, plane 1 noncharacter \\U0001fffe'),
])
def test_escaped_known_answers(text, shown):
    assert quoting.escaped(text) == shown


def test_a_reason_edited_by_hand_into_a_dropin_is_reported_escaped():
    data = (dropin.MARKER + u'\n# reason: ticket \x1b[2J42 \u202etxt.exe\x07\n[Service]\n'
            u'Environment=PYTHONHTTPSVERIFY=0\n').encode('utf-8')
    assert quoting.escaped(dropin.parse_dropin(data)['reason']) == u'ticket \\x1b[2J42 \\u202etxt.exe\\x07'


@FUZZ
@given(st.one_of(st.text(max_size=40), st.text(alphabet=u' ~\x1f\x7f\x80\x9f\xa0\xadaz\u200b\u2028\ufeff', max_size=20),
                 st.lists(st.integers(0, 0x10FFFF).map(_chr), max_size=20).map(u''.join)).map(
    lambda text: text.replace(u'\\', u'')))
def test_escaped_shows_every_refused_character_and_keeps_the_rest(text):
    # without a backslash in the text, every backslash shown starts an escape, so the escapes decode back
    shown = quoting.escaped(text)
    assert [char for char in shown if quoting.refused_class(char) is not None] == []
    assert unescaped(shown) == text
    refused = [char for char in text if quoting.refused_class(char) is not None]
    forms = [u'x' if ord(char) < 0x100 else u'u' if ord(char) < 0x10000 else u'U' for char in refused]
    assert shown.count(u'\\') == len(forms)
    assert [match.group()[1] for match in ESCAPE.finditer(shown)] == forms
