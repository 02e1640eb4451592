# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fuzzing the unit-name validator and the drop-in renderer/reader.

Profiles: PEP493_FUZZ_PROFILE=short (default, make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import posixpath
import re

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


def _escaped_char_by_char(text):
    out = []
    for char in text:
        if quoting.refused_class(char) is None:
            out.append(char)
        elif ord(char) < 0x100:
            out.append('\\x%02x' % ord(char))
        elif ord(char) < 0x10000:
            out.append('\\u%04x' % ord(char))
        else:
            out.append('\\U%08x' % ord(char))
    return ''.join(out)


@FUZZ
@given(st.one_of(st.text(max_size=40), st.text(alphabet=u' ~\x1f\x7f\x80\x9f\xa0\xadaz\u200b\u2028\ufeff', max_size=20)))
def test_escaped_shows_every_refused_character_and_keeps_the_rest(text):
    assert quoting.escaped(text) == _escaped_char_by_char(text)
