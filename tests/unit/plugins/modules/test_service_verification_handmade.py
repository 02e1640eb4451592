# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""service_verification's remove_handmade: a hand-made PYTHONHTTPSVERIFY=0 taken out of a drop-in
nobody made with the module, nothing else of it lost; adopted as an exception of ours in the same call."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import optout
from ansible_collections.pep493.https.plugins.modules import service_verification
from ansible_collections.pep493.https.tests.unit.tree import read as get, snapshot, write

FUTURE = '2999-12-31'
OVERRIDE = b'[Service]\n# the vendor CA, by hand\nEnvironment=APP_MODE=prod PYTHONHTTPSVERIFY=0\nNice=5\n'
TAKEN = (b'[Service]\n# the vendor CA, by hand\n' + optout.NOTE + b'Environment=APP_MODE=prod PYTHONHTTPSVERIFY=0\n'
         b'Environment=APP_MODE=prod\nNice=5\n')


def override(root, unit='foo.service', content=OVERRIDE, mode=0o640):
    path = os.path.join(str(root), 'etc/systemd/system', unit + '.d', 'override.conf')
    write('/', path, content)
    os.chmod(path, mode)
    return path


def backups(path):
    folder = os.path.dirname(path)
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.startswith('override.conf.') and name.endswith('~'))


def test_remove_takes_out_only_the_assignment_keeps_a_backup_and_the_mode(run_module, tmp_path):
    path = override(tmp_path)
    result = run_module.ok(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']))
    assert result['changed'] is True
    assert get(path) == TAKEN
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    [kept] = backups(path)
    assert get(kept) == OVERRIDE
    assert result['handmade'] == [dict(name='foo.service', path=path, taken=1, backup=kept)]
    # a second run finds nothing left to take out
    before = snapshot(tmp_path)
    again = run_module.ok(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']))
    assert again['changed'] is False and again['handmade'] == [] and snapshot(tmp_path) == before


def test_adopt_writes_the_exception_of_ours_and_takes_the_hand_made_one_out_in_one_call(run_module, tmp_path):
    path = override(tmp_path)
    result = run_module.ok(service_verification, dict(
        root=str(tmp_path), services=[dict(name='foo', verify=False, reason='CHG-7: vendor CA', expires=FUTURE)],
        remove_handmade=['foo.service']))
    ours = os.path.join(os.path.dirname(path), dropin.DEFAULT_DROPIN_NAME)
    assert get(ours) == dropin.render_dropin(False, 'CHG-7: vendor CA', FUTURE)
    assert get(path) == TAKEN
    assert [item['name'] for item in result['handmade']] == ['foo.service']


def test_check_mode_says_what_would_be_taken_out_and_changes_nothing(run_module, tmp_path):
    path = override(tmp_path)
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']),
                           check_mode=True, diff=True)
    assert result['changed'] is True and snapshot(tmp_path) == before
    assert result['handmade'] == [dict(name='foo.service', path=path, taken=1, backup=None)]
    [diff] = result['diff']
    assert diff['before_header'] == path and 'Environment=APP_MODE=prod\n' in diff['after']


def test_ours_other_services_and_other_values_are_left_alone(run_module, tmp_path):
    other = override(tmp_path, 'bar.service')
    one = override(tmp_path, 'foo.service', b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')
    before = snapshot(tmp_path)
    result = run_module.ok(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']))
    assert result['changed'] is False and snapshot(tmp_path) == before
    assert get(other) == OVERRIDE and get(one) == b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n'


def test_a_drop_in_that_cannot_be_rewritten_safely_fails_the_call_before_anything_is_written(run_module, tmp_path):
    override(tmp_path, 'foo.service', b'[Service]\nEnvironment=A=1 \\\n  PYTHONHTTPSVERIFY=0\n')
    before = snapshot(tmp_path)
    result = run_module.fail(service_verification, dict(
        root=str(tmp_path), services=[dict(name='new', verify=False, reason='r', expires=FUTURE)],
        remove_handmade=['foo', 'bad name']))
    assert snapshot(tmp_path) == before
    assert result['msg'].startswith('Nothing was changed: ')
    assert "remove_handmade[1]: unit name 'bad name' contains ' '" in result['msg']
    run_module.fail(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']))
    failed = run_module.fail(service_verification, dict(root=str(tmp_path), services=[], remove_handmade=['foo']))
    assert 'override.conf line 2: the Environment= line goes on over the next line' in failed['msg']
    assert snapshot(tmp_path) == before
