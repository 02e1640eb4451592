# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""cert_verification's way back: the record of the file before its first change, and
state=restored, against a throw-away root."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import itertools
import os
import stat
import time

import pytest

from ansible_collections.pep493.https.plugins.module_utils._write import history
from ansible_collections.pep493.https.plugins.modules import cert_verification
from ansible_collections.pep493.https.tests.unit.tree import read, snapshot, write

CFG = '/etc/python/cert-verification.cfg'
VENDOR = (b'# Possible values are: enable, disable, platform_default\n'
          b'[https]\nverify=platform_default\n')
BROKEN_BY_HAND = b'verify=disable\n' + VENDOR


@pytest.fixture
def ticking(monkeypatch):
    """A clock one second further at every reading: backups of one test get distinct names."""
    seconds = itertools.count(1781500000)
    monkeypatch.setattr(time, 'time', lambda: float(next(seconds)))


@pytest.fixture
def time_zone():
    """Sets this process's local time zone (TZ); the one before comes back after the test."""
    saved = os.environ.get('TZ')

    def set_zone(name):
        os.environ['TZ'] = name
        time.tzset()
    yield set_zone
    if saved is None:
        os.environ.pop('TZ', None)
    else:
        os.environ['TZ'] = saved
    time.tzset()


def args(root, **kw):
    kw.setdefault('backup', True)
    return dict(kw, root=str(root))


def listing(root):
    return sorted(os.listdir(os.path.join(str(root), 'etc/python')))


def only(names, suffix):
    return [name for name in names if name.endswith(suffix)]


def test_a_created_file_goes_back_to_no_file(run_module, tmp_path):
    created = run_module.ok(cert_verification, args(tmp_path, verify='enable'))
    dest = created['path']
    assert created['created'] is True and created['record_file'] == dest + '.pep493-original'
    assert history.parse_record(read(created['record_file'])) == (False, None)

    content = read(dest)
    would = run_module.ok(cert_verification, args(tmp_path, state='restored'), check_mode=True, diff=True)
    assert would['changed'] is True and would['verify'] == 'missing' and would['previous'] == 'enable'
    assert would['msg'] == '%s would be removed: there was no file before its first change (%s).' % (
        dest, created['record_file'])
    assert would['diff'][0]['after_header'] == '/dev/null'
    assert os.path.exists(dest)

    done = run_module.ok(cert_verification, args(tmp_path, state='restored'))
    assert done['changed'] is True and not os.path.exists(dest)
    assert done['restored_from'] == created['record_file']
    assert read(done['backup_file']) == content
    assert only(listing(tmp_path), '.before-restore~') == [os.path.basename(done['backup_file'])]
    again = run_module.ok(cert_verification, args(tmp_path, state='restored'))
    assert again['changed'] is False and again['msg'] == '%s is already as in %s.' % (dest, created['record_file'])


def test_after_a_repair_the_newest_valid_backup_comes_back(run_module, tmp_path, ticking):
    dest = write(tmp_path, CFG, VENDOR, 0o644)
    first = run_module.ok(cert_verification, args(tmp_path, verify='enable'))
    assert read(first['backup_file']) == VENDOR
    assert history.parse_record(read(first['record_file'])) == (True, VENDOR)
    write(tmp_path, CFG, BROKEN_BY_HAND)
    repaired = run_module.ok(cert_verification, args(tmp_path, verify='enable', repair=True))
    assert read(repaired['backup_file']) == BROKEN_BY_HAND and 'record_file' not in repaired
    before = read(dest)

    done = run_module.ok(cert_verification, args(tmp_path, state='restored'))
    assert read(dest) == VENDOR and stat.S_IMODE(os.stat(dest).st_mode) == 0o644
    assert done['restored_from'] == first['backup_file']
    assert done['previous'] == 'enable' and done['verify'] == 'platform_default'
    assert [entry['path'] for entry in done['skipped_backups']] == [repaired['backup_file']]
    assert done['warnings'] == ['%s was not restored: %s' % (repaired['backup_file'],
                                                             done['skipped_backups'][0]['reason'])]
    assert 'would break "import ssl"' in done['warnings'][0]
    assert read(done['backup_file']) == before
    assert run_module.ok(cert_verification, args(tmp_path, state='restored'))['changed'] is False


def test_a_disable_backup_is_restored_only_with_the_acknowledgement(run_module, tmp_path, ticking):
    write(tmp_path, CFG, b'[https]\nverify=disable\n')
    run_module.ok(cert_verification, args(tmp_path, verify='enable'))
    unchanged = snapshot(tmp_path)
    refused = run_module.fail(cert_verification, args(tmp_path, state='restored'))
    assert 'says verify=disable' in refused['msg'] and 'Nothing was changed' in refused['msg']
    assert snapshot(tmp_path) == unchanged
    done = run_module.ok(cert_verification, args(tmp_path, state='restored', allow_disable=True))
    assert done['verify'] == 'disable'


def test_without_history_the_file_stays_as_it_is(run_module, tmp_path):
    write(tmp_path, CFG, VENDOR)
    unchanged = snapshot(tmp_path)
    dest = os.path.join(str(tmp_path), CFG[1:])
    kept = run_module.ok(cert_verification, args(tmp_path, state='restored'))
    assert kept['changed'] is False and kept['restored_from'] is None and kept['verify'] == 'platform_default'
    assert kept['warnings'] == ['%s has no backup (%s.<pid>.<date>~) and no record (%s.pep493-original): it was never '
                                'changed with backup on, and is left as it is.' % (dest, dest, dest)]
    assert snapshot(tmp_path) == unchanged
    assert 'verify=enable is not used with state=restored' in run_module.fail(
        cert_verification, args(tmp_path, state='restored', verify='enable'))['msg']


def test_the_record_keeps_the_file_before_its_first_backed_up_change(run_module, tmp_path, ticking):
    run_module.ok(cert_verification, args(tmp_path, verify='enable', backup=False))
    assert listing(tmp_path) == ['cert-verification.cfg']
    record = os.path.join(str(tmp_path), CFG[1:]) + '.pep493-original'
    first = read(record[:-len('.pep493-original')])
    assert run_module.ok(cert_verification, args(tmp_path, verify='platform_default'))['record_file'] == record
    later = run_module.ok(cert_verification, args(tmp_path, verify='enable'))
    assert 'record_file' not in later
    assert only(listing(tmp_path), '.pep493-original') == ['cert-verification.cfg.pep493-original']
    assert history.parse_record(read(record)) == (True, first)
    assert len(only(listing(tmp_path), '~')) == 2


def test_after_a_time_zone_change_the_last_backup_before_it_is_restored(run_module, tmp_path, ticking, time_zone):
    """Backups are named by the local time. The host moves from UTC+9 to UTC-5 between two changes, so the
    name of the newer backup reads 14 hours earlier than the older one's; the restore still takes the newer."""
    dest = write(tmp_path, CFG, VENDOR, 0o644)
    time_zone('JST-9')
    first = run_module.ok(cert_verification, args(tmp_path, verify='enable'))
    time_zone('EST+5')
    second = run_module.ok(cert_verification, args(tmp_path, verify='platform_default'))
    stamps = [os.path.basename(result['backup_file']).split('.', 3)[-1] for result in (first, second)]
    assert stamps[1] < stamps[0], 'the names must tell the wrong order for this test to mean anything'
    done = run_module.ok(cert_verification, args(tmp_path, state='restored'))
    assert done['restored_from'] == second['backup_file']
    assert read(dest) == read(second['backup_file']) and done['verify'] == 'enable'
