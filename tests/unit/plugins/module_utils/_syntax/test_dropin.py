# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit-name validation, drop-in rendering and reading back, exclusive selection."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import posixpath

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

VALID_NAMES = [
    ('legacy-app', 'legacy-app.service'),
    ('legacy-app.service', 'legacy-app.service'),
    ('worker@.service', 'worker@.service'),
    ('worker@', 'worker@.service'),
    ('worker@3.service', 'worker@3.service'),
    ('worker@3', 'worker@3.service'),
    ('getty@tty1.service', 'getty@tty1.service'),
    ('a@b@c.service', 'a@b@c.service'),
    ('systemd-fsck@dev-disk-by\\x2duuid-1234.service', 'systemd-fsck@dev-disk-by\\x2duuid-1234.service'),
    ('my.app', 'my.app.service'),
    ('..', '...service'),
    ('x:y_z.service', 'x:y_z.service'),
    ('a' * 245, 'a' * 245 + '.service'),
    (u'ambari-agent', 'ambari-agent.service'),
]

INVALID_NAMES = [
    ('../x', "'/'"),
    ('/etc/passwd', "'/'"),
    ('a/b.service', "'/'"),
    ('legacy app', "' '"),
    ('legacy-app\n', "'\\n'"),
    ('legacy\napp', "'\\n'"),
    ('a=b', "'='"),
    ('a%i.service', "'%'"),
    ('a\x00b', "'\\x00'"),
    ('a\x1bb', "'\\x1b'"),
    ('a\tb', "'\\t'"),
    ('', 'empty'),
    ('a' * 300, '308 characters'),
    ('a' * 248, '256 characters'),
    ('sshd.socket', '.socket'),
    ('timers.target', '.target'),
    ('backup.timer', '.timer'),
    ('@x.service', 'nothing before'),
    ('@.service', 'nothing before'),
    ('.service', 'nothing before'),
    ('worker@x y.service', "' '"),
    (u'caf\xe9', "'\\xe9'"),
    (u'a\u2028b', "'\\u2028'"),
    (42, 'not a string'),
    (None, 'not a string'),
]


@pytest.mark.parametrize('name, canonical', VALID_NAMES)
def test_valid_unit_names(name, canonical):
    assert unit_names.validate_unit_name(name) == canonical


@pytest.mark.parametrize('name, fragment', INVALID_NAMES)
def test_invalid_unit_names_are_refused_naming_the_value(name, fragment):
    with pytest.raises(unit_names.UnitNameError) as info:
        unit_names.validate_unit_name(name)
    message = str(info.value)
    if fragment:
        assert fragment in message
    if isinstance(name, str) and name and len(name) < 80:
        assert dropin.show(name) in message


def test_unit_name_error_is_a_value_error():
    assert issubclass(unit_names.UnitNameError, ValueError)


def test_the_drop_in_folder_name_sets_the_limit():
    """<name>.service.d is one file name: at most 255 bytes, so the unit at most 253."""
    assert unit_names.validate_unit_name('a' * 245 + '.service') == 'a' * 245 + '.service'
    for length in (246, 247):
        with pytest.raises(unit_names.UnitNameError, match='would be %d bytes long' % (length + 10)):
            unit_names.validate_unit_name('a' * length + '.service')


def test_a_drop_in_name_is_at_most_255_bytes():
    assert dropin.validate_dropin_name('d' * 250 + '.conf') == 'd' * 250 + '.conf'
    with pytest.raises(dropin.DropinValueError, match='is 256 bytes long'):
        dropin.validate_dropin_name('d' * 251 + '.conf')


UNIT_DIR = '/etc/systemd/system'


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2030), max_size=270))
def test_any_accepted_name_stays_inside_its_dropin_folder(name):
    try:
        unit = unit_names.validate_unit_name(name)
    except unit_names.UnitNameError:
        return
    path = dropin.dropin_path(UNIT_DIR, unit)
    folder = posixpath.join(UNIT_DIR, unit + '.d')
    assert posixpath.normpath(path) == path
    assert posixpath.dirname(path) == folder
    assert posixpath.basename(path) == dropin.DEFAULT_DROPIN_NAME
    assert posixpath.dirname(folder) == UNIT_DIR
    assert unit.endswith('.service') and len(unit) <= 255
    assert all(c.isalnum() and ord(c) < 128 or c in ':_.\\-@' for c in unit)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='ab.@-_:\\/ \n%=', max_size=20))
def test_names_from_the_risky_alphabet_stay_inside(name):
    try:
        unit = unit_names.validate_unit_name(name)
    except unit_names.UnitNameError:
        return
    assert '/' not in unit and '\n' not in unit and ' ' not in unit
    assert dropin.unit_from_dropin_folder(unit + '.d') == unit


def test_default_dropin_name_sorts_after_packaged_and_edit_overrides():
    # systemd sorts drop-ins of all folders by file name; the last assignment wins.
    others = ['10-timeout.conf', '50-pid.conf', '99-local.conf', 'override.conf', 'local.conf',
              'Zz.conf', 'debian.conf', 'system.conf']
    assert sorted(others + [dropin.DEFAULT_DROPIN_NAME])[-1] == dropin.DEFAULT_DROPIN_NAME
    assert dropin.validate_dropin_name(dropin.DEFAULT_DROPIN_NAME) == dropin.DEFAULT_DROPIN_NAME


@pytest.mark.parametrize('name', ['../x.conf', 'a/b.conf', 'x.txt', '.hidden.conf', '', 'a b.conf',
                                  'x.conf\n', '-x.conf', None])
def test_bad_dropin_names(name):
    with pytest.raises(dropin.DropinValueError):
        dropin.validate_dropin_name(name)


def test_render_exact_bytes():
    data = dropin.render_dropin(False, 'vendor agent, self-signed server', datetime.date(2026, 6, 30))
    assert data == (
        b'# Managed by pep493.https.service_verification; edits here are overwritten.\n'
        b'# reason: vendor agent, self-signed server\n'
        b'# expires: 2026-06-30\n'
        b'# PEP 493: Python 2 in this service does not verify HTTPS certificates (insecure).\n'
        b'[Service]\n'
        b'Environment=PYTHONHTTPSVERIFY=0\n')
    assert dropin.MARKER.encode('ascii') + b'\n' == data.split(b'\n', 1)[0] + b'\n'


def test_render_verify_true_without_header_values():
    data = dropin.render_dropin(True)
    assert data.endswith(b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    assert b'reason' not in data and b'expires' not in data


@pytest.mark.parametrize('verify', [True, False])
@pytest.mark.parametrize('reason', [None, 'short', u'caf\xe9 \u00fc\u4e2d # ; = % \\ x', 'a' * 200])
@pytest.mark.parametrize('expires', [None, '2026-01-31', datetime.date(2030, 12, 1)])
def test_marker_round_trip(verify, reason, expires):
    data = dropin.render_dropin(verify, reason, expires)
    parsed = dropin.parse_dropin(data)
    assert parsed == dict(verify=verify, value='1' if verify else '0', reason=reason,
                          expires=dates.validate_expires(expires), ca=None, ca_bundle=None)
    assert dropin.render_dropin(parsed['verify'], parsed['reason'], parsed['expires']) == data


@settings(max_examples=300, deadline=None)
@given(st.booleans(), st.text(max_size=220), st.dates(min_value=datetime.date(1970, 1, 1)))
def test_no_reason_can_inject_a_line(verify, reason, expires):
    try:
        reason = dropin.validate_reason(reason)
    except dropin.DropinValueError:
        return
    data = dropin.render_dropin(verify, reason, expires)
    lines = data.decode('utf-8').split('\n')
    assert lines[-1] == ''
    assert [line for line in lines if not line.startswith('#')] == [
        '[Service]', 'Environment=PYTHONHTTPSVERIFY=%d' % int(verify), '']
    assert dropin.parse_dropin(data) == dict(verify=verify, value=str(int(verify)), reason=reason,
                                             expires=expires, ca=None, ca_bundle=None)


def test_foreign_file_has_no_marker():
    assert dropin.parse_dropin(b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n') is None
    assert dropin.parse_dropin(b'') is None
    assert dropin.parse_dropin(None) is None
    assert dropin.parse_dropin(b'# Managed by pep493.https.service_verification\n[Service]\n') is None


def test_parse_reads_what_systemd_would():
    data = (dropin.MARKER.encode('ascii') + b'\r\n# reason: r\r\n[Service]\r\n'
            b'Environment=PYTHONHTTPSVERIFY=0\r\nEnvironment="PYTHONHTTPSVERIFY=1" OTHER=x\r\n')
    assert dropin.parse_dropin(data) == dict(verify=True, value='1', reason='r', expires=None, ca=None, ca_bundle=None)
    reset = dropin.MARKER.encode('ascii') + b'\n[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\nEnvironment=\n'
    assert dropin.parse_dropin(reset) == dict(verify=None, value=None, reason=None, expires=None, ca=None,
                                              ca_bundle=None)
    other_section = dropin.MARKER.encode('ascii') + b'\n[Unit]\nEnvironment=PYTHONHTTPSVERIFY=0\n'
    assert dropin.parse_dropin(other_section)['value'] is None
    empty_value = dropin.MARKER.encode('ascii') + b'\n[Service]\nEnvironment=PYTHONHTTPSVERIFY=\n'
    # only the exact string 0 disables verification
    assert dropin.parse_dropin(empty_value) == dict(verify=True, value='', reason=None, expires=None, ca=None,
                                                    ca_bundle=None)


def test_parse_keeps_a_bad_expiry_as_text():
    data = dropin.MARKER.encode('ascii') + b'\n# expires: someday\n[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'
    assert dropin.parse_dropin(data)['expires'] == 'someday'


@pytest.mark.parametrize('text, message', [
    ('two\nlines', "'\\n'"),
    ('cr\rin', "'\\r'"),
    ('tab\there', "'\\t'"),
    ('nul\x00', "'\\x00'"),
    ('bell\x07', "'\\x07'"),
    (u'ls\u2028sep', "'\\u2028'"),
    (u'bidi\u202eoverride', "'\\u202e'"),
    ('a' * 201, '201 characters'),
    ('trailing \\', 'backslash'),
    (7, 'not a string'),
])
def test_bad_reasons(text, message):
    with pytest.raises(dropin.DropinValueError) as info:
        dropin.validate_reason(text)
    assert message in str(info.value)


def test_reason_is_stripped_and_empty_means_none():
    assert dropin.validate_reason('  spaced  ') == 'spaced'
    assert dropin.validate_reason('   ') is None
    assert dropin.validate_reason(None) is None
    assert dropin.validate_reason(u'caf\xe9') == u'caf\xe9'


def test_exclusive_selection_keeps_listed_units_only():
    ours = ['a.service', 'b.service', 'worker@.service', 'worker@3.service']
    wanted = ['b.service', 'worker@3.service', 'new.service']
    assert dropin.exclusive_removals(ours, wanted) == ['a.service', 'worker@.service']
    assert dropin.exclusive_removals(ours, []) == sorted(ours)
    assert dropin.exclusive_removals([], wanted) == []


def test_folder_names_map_back_to_units():
    assert dropin.unit_from_dropin_folder('a.service.d') == 'a.service'
    assert dropin.unit_from_dropin_folder('worker@.service.d') == 'worker@.service'
    assert dropin.unit_from_dropin_folder('a.socket.d') is None
    assert dropin.unit_from_dropin_folder('a.service') is None
    assert dropin.unit_from_dropin_folder('bad name.service.d') is None


def test_templates_and_instances():
    assert unit_names.is_template('worker@.service')
    assert not unit_names.is_template('worker@3.service')
    assert unit_names.template_of('worker@3.service') == 'worker@.service'
    assert unit_names.template_of('worker@.service') is None
    assert unit_names.template_of('plain.service') is None


def test_dropin_path():
    assert dropin.dropin_path('/etc/systemd/system/', 'a.service') == \
        '/etc/systemd/system/a.service.d/' + dropin.DEFAULT_DROPIN_NAME
    assert os.path.basename(dropin.dropin_path('/x', 'a.service', 'y.conf')) == 'y.conf'


# One table, the same answer on Python 2.7 and 3: (reason, None when accepted, or the class refused).
REASON_CLASSES = [
    (u'caf\xe9 \U0001F980', None),
    (u'\u4e2d\u6587 r\xe9seau \u0410\u0411', None),
    (u'emoji added in Unicode 13: \U0001FAD6', None),
    (u'a\x00b', 'control character'),
    (u'a\x1bb', 'control character'),
    (u'a\x7fb', 'control character'),
    (u'a\x85b', 'control character'),
    (u'a\x9fb', 'control character'),
    (u'a\u2028b', 'line separator'),
    (u'a\u2029b', 'line separator'),
    (u'a\u200bb', 'invisible formatting character'),
    (u'a\u202eb', 'invisible formatting character'),
    (u'a\u2066b', 'invisible formatting character'),
    (u'a\ufeffb', 'invisible formatting character'),
    (u'a\U000e0041b', 'invisible formatting character'),
    (u'a\ud800b', 'surrogate'),
    (u'a\uffffb', 'noncharacter'),
]


@pytest.mark.parametrize('reason, refused', REASON_CLASSES)
def test_reason_characters_are_one_explicit_table(reason, refused):
    if refused is None:
        assert dropin.validate_reason(reason) == reason
        return
    with pytest.raises(dropin.DropinValueError) as info:
        dropin.validate_reason(reason)
    assert 'contains the %s ' % refused in str(info.value), str(info.value)
    assert single_line_ascii(str(info.value)) and "u'" not in str(info.value)


def single_line_ascii(text):
    return '\n' not in text and all(ord(char) < 128 for char in text)


def test_a_dropin_trusting_a_ca_reads_back_its_fingerprint_and_bundle():
    fingerprint = ':'.join(['AB'] * 32)
    data = dropin.render_dropin(True, 'r', '2030-01-01', ca=(fingerprint, '/etc/pki/pep493-https/a.service.pem'))
    assert dropin.parse_dropin(data) == dict(verify=True, value='1', reason='r', expires=dates.validate_expires('2030-01-01'),
                                             ca=fingerprint, ca_bundle='/etc/pki/pep493-https/a.service.pem')
    assert dropin.environment_value(data, 'REQUESTS_CA_BUNDLE') == '/etc/pki/pep493-https/a.service.pem'
    assert dropin.ca_fingerprint(dropin.render_dropin(True)) is None
