# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Taking a hand-made PYTHONHTTPSVERIFY=0 out of a drop-in: only that assignment goes, every other
line and assignment stays as written, and the line as it was is kept in a comment."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import optout
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd


def environment(data):
    """The variables a drop-in's [Service] Environment= lines set, as systemd reads them."""
    found = {}
    assignments, error = systemd.unit_file_assignments(data)
    assert error is None
    for dummy, section, key, value in assignments:
        if section == 'Service' and key == 'Environment':
            found.update(systemd.parse_environment(value))
    return found


def test_a_line_with_only_the_opt_out_is_commented_out_not_emptied():
    data = b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n'
    new, taken = optout.take_out_optout(data)
    assert taken == 1
    assert new == b'[Service]\n' + optout.NOTE + b'Environment=PYTHONHTTPSVERIFY=0\n'
    assert environment(data) == {'PYTHONHTTPSVERIFY': '0'} and environment(new) == {}


def test_the_other_assignments_of_the_line_stay_as_written():
    data = (b'# by hand, 2019\r\n[Unit]\r\nDescription=x\r\n[Service]\r\n'
            b'  Environment="A=1 2" PYTHONHTTPSVERIFY=0 B=\\x41 \'C=3\'\r\nExecStart=/usr/bin/agent\r\n')
    new, taken = optout.take_out_optout(data)
    assert taken == 1
    assert new == (b'# by hand, 2019\r\n[Unit]\r\nDescription=x\r\n[Service]\r\n' + optout.NOTE
                   + b'Environment="A=1 2" PYTHONHTTPSVERIFY=0 B=\\x41 \'C=3\'\r\n'
                   + b'  Environment="A=1 2" B=\\x41 \'C=3\'\r\nExecStart=/usr/bin/agent\r\n')
    assert environment(new) == {'A': '1 2', 'B': 'A', 'C': '3'}
    assert environment(data) == dict(environment(new), PYTHONHTTPSVERIFY='0')


@pytest.mark.parametrize('data', [
    b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n',             # not an opt-out
    b'[Service]\n# Environment=PYTHONHTTPSVERIFY=0\n',           # a comment
    b'[Unit]\nEnvironment=PYTHONHTTPSVERIFY=0\n',                # not [Service]: systemd ignores it
    b'[Service]\nEnvironment=APP_PYTHONHTTPSVERIFY=0\n',         # another variable
    b'[Service]\nEnvironment="PYTHONHTTPSVERIFY=0 "\n',           # the value "0 " (verification stays on)
])
def test_what_is_not_an_opt_out_is_left_alone(data):
    assert optout.take_out_optout(data) == (data, 0)


def test_a_second_run_changes_nothing():
    once, dummy = optout.take_out_optout(b'[Service]\nEnvironment=A=1 PYTHONHTTPSVERIFY=0\n')
    assert optout.take_out_optout(once) == (once, 0)


def test_the_last_line_without_a_newline_and_bytes_that_are_not_utf8_elsewhere_survive():
    data = b'[Service]\nDescription=\xff\xfe\nEnvironment=PYTHONHTTPSVERIFY=0 A=1'
    new, taken = optout.take_out_optout(data)
    assert new == b'[Service]\nDescription=\xff\xfe\n' + optout.NOTE + b'Environment=PYTHONHTTPSVERIFY=0 A=1\nEnvironment=A=1'


@pytest.mark.parametrize('data, why', [
    (b'[Service]\nEnvironment=A=1 \\\n  PYTHONHTTPSVERIFY=0\n', 'line 2: the Environment= line goes on over the next line'),
    (b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0 "A=1\n', 'line 2: systemd would stop reading it at an unbalanced quote'),
    (b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0 A=\xff\n', 'line 2 is not valid UTF-8'),
])
def test_a_line_that_cannot_be_rewritten_safely_is_refused_naming_the_file_and_line(data, why):
    with pytest.raises(optout.OptoutError) as caught:
        optout.take_out_optout(data, '/etc/systemd/system/foo.service.d/override.conf')
    assert str(caught.value).startswith('/etc/systemd/system/foo.service.d/override.conf ' + why)
    assert str(caught.value).endswith('take PYTHONHTTPSVERIFY=0 out of it by hand')
