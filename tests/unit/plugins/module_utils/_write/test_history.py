# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfg file's history: the record of the file before its first change, the order of its
backups, and which one a restore puts back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest

from ansible_collections.pep493.https.plugins.module_utils._write import history
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.tests.unit.tree import read, write

VENDOR = b'# vendor comment\n[https]\nverify=platform_default\n'
ENABLED = b'[https]\nverify=enable\n'
DISABLED = b'[https]\nverify=disable\n'
MALFORMED = b'verify=disable\n[https]\nverify=enable\n'


# --- the record ---------------------------------------------------------------------------------

@pytest.mark.parametrize('content', [None, b'', VENDOR, MALFORMED, b'absent\n', b'\x00\xff no newline'])
def test_record_round_trip(content):
    data = history.render_record(content, '2026-06-15@10:00:00Z')
    assert data.startswith(b'# pep493.https.cert_verification: the file before its first change (recorded 2026-06-15')
    assert history.parse_record(data) == ((False, None) if content is None else (True, content))


@pytest.mark.parametrize('data', [b'', VENDOR, b'# pep493.https.cert_verification: the file before its first change',
                                  history.render_record(VENDOR, 'x')[:-1],
                                  history.render_record(VENDOR, 'x') + b'more',
                                  history.render_record(None, 'x') + b'\n'])
def test_a_record_that_is_not_complete_is_refused(data):
    with pytest.raises(history.HistoryError):
        history.parse_record(data)


# --- backups, newest first ------------------------------------------------------------------------

def test_backup_order_by_stamp_then_pid_and_nothing_else():
    base = 'cert-verification.cfg'
    names = [base + '.99.2026-01-02@10:00:00~', base + '.12.2026-03-01@09:00:00~', base + '.13.2026-03-01@09:00:00~',
             base + '.rpmnew', base + history.RECORD_SUFFIX, base + '.7.2026-05-01@00:00:00.before-restore~',
             base + '2.1.2027-01-01@00:00:00~', 'other.cfg.1.2027-01-01@00:00:00~', base + '.x.2027-01-01@00:00:00~',
             base + '.1.2027-01-01@00:00:00~.tmp', base]
    assert history.backup_order(names, base) == [base + '.13.2026-03-01@09:00:00~', base + '.12.2026-03-01@09:00:00~',
                                                 base + '.99.2026-01-02@10:00:00~']


def tree_history(root, entries, record=None):
    """A cfg folder with ``entries`` [(stamp, content)] as backups (and a record)."""
    dest = write(root, '/etc/python/cert-verification.cfg', ENABLED)
    for index, (stamp, content) in enumerate(entries):
        write(root, '/etc/python/cert-verification.cfg.%d.%s~' % (100 + index, stamp), content)
    if record is not None:
        write(root, '/etc/python/cert-verification.cfg' + history.RECORD_SUFFIX,
              history.render_record(record[1], 'x') if record[0] else history.render_record(None, 'x'))
    return dest


def test_candidates_newest_first_then_the_record(tmp_path):
    dest = tree_history(tmp_path, [('2026-01-01@00:00:00', VENDOR), ('2026-02-01@00:00:00', MALFORMED)],
                        record=(False, None))
    found = history.candidates(dest)
    assert [os.path.basename(e['path']) for e in found] == [
        'cert-verification.cfg.101.2026-02-01@00:00:00~', 'cert-verification.cfg.100.2026-01-01@00:00:00~',
        'cert-verification.cfg.pep493-original']
    assert [e['exists'] for e in found] == [True, True, False]
    assert found[0]['content'] == MALFORMED and found[2]['content'] is None


def test_the_newest_valid_one_is_chosen_and_the_skipped_ones_say_why(tmp_path):
    dest = tree_history(tmp_path, [('2026-01-01@00:00:00', VENDOR), ('2026-02-01@00:00:00', MALFORMED)])
    os.symlink('/etc/shadow', dest + '.1.2026-03-01@00:00:00~')
    plan = history.plan_restore(dest, ENABLED)
    assert plan['chosen']['path'].endswith('.100.2026-01-01@00:00:00~')
    assert plan['new'] == VENDOR and plan['changed'] is True
    reasons = dict((os.path.basename(e['path']), e['reason']) for e in plan['skipped'])
    assert reasons['cert-verification.cfg.1.2026-03-01@00:00:00~'] == 'a symbolic link (to /etc/shadow): refused'
    assert reasons['cert-verification.cfg.101.2026-02-01@00:00:00~'].startswith(
        'malformed, it would break "import ssl": line 1: text before any [section] header')


def test_a_record_of_no_file_is_a_valid_state(tmp_path):
    dest = tree_history(tmp_path, [('2026-02-01@00:00:00', MALFORMED)], record=(False, None))
    plan = history.plan_restore(dest, ENABLED)
    assert plan['new'] is None and plan['changed'] is True
    assert history.plan_restore(dest, None)['changed'] is False


def test_nothing_usable_is_refused_naming_every_candidate(tmp_path):
    dest = tree_history(tmp_path, [('2026-02-01@00:00:00', MALFORMED)], record=(True, MALFORMED))
    with pytest.raises(history.HistoryError) as info:
        history.plan_restore(dest, ENABLED)
    message = str(info.value)
    assert message.startswith('nothing to restore %s from: ' % dest)
    assert '.100.2026-02-01@00:00:00~: malformed' in message and 'pep493-original: malformed' in message
    assert 'Nothing was changed; put a value in place instead' in message


def test_without_any_history_the_file_stays_as_it_is(tmp_path):
    empty = write(tmp_path, '/etc/other/cert-verification.cfg', ENABLED)
    assert history.plan_restore(empty, ENABLED) == dict(chosen=None, skipped=[], new=ENABLED, changed=False)
    missing = os.path.join(str(tmp_path), 'nowhere', 'cert-verification.cfg')
    assert history.plan_restore(missing, None)['changed'] is False


def test_a_disable_backup_needs_the_acknowledgement(tmp_path):
    dest = tree_history(tmp_path, [('2026-01-01@00:00:00', DISABLED)])
    with pytest.raises(history.HistoryError) as info:
        history.plan_restore(dest, ENABLED)
    assert 'says verify=disable' in str(info.value) and 'allow_disable=true' in str(info.value)
    assert 'pep493_https_allow_insecure_host_default: true' in str(info.value)
    assert history.plan_restore(dest, ENABLED, allow_disable=True)['new'] == DISABLED


# --- writing the record -------------------------------------------------------------------------

def test_the_record_is_written_once_exclusively(tmp_path):
    dest = os.path.join(str(tmp_path), 'cert-verification.cfg')
    record = history.record_path(dest)
    assert history.record_original(dest, None, now=0) == record
    assert history.parse_record(read(record)) == (False, None)
    assert b'(recorded 1970-01-01@00:00:00Z)' in read(record)
    assert stat.S_IMODE(os.stat(record).st_mode) == 0o600
    assert history.record_original(dest, VENDOR) is None
    assert history.parse_record(read(record)) == (False, None)
    assert sorted(os.listdir(str(tmp_path))) == ['cert-verification.cfg.pep493-original']


def test_an_incomplete_or_linked_record_is_replaced(tmp_path):
    dest = os.path.join(str(tmp_path), 'cert-verification.cfg')
    record = history.record_path(dest)
    write(tmp_path, os.path.basename(record), history.render_record(VENDOR, 'x')[:-3])
    assert history.record_original(dest, VENDOR) == record
    assert history.parse_record(read(record)) == (True, VENDOR)
    outside = write(tmp_path, 'outside', b'keep me')
    os.unlink(record)
    os.symlink(outside, record)
    assert history.record_original(dest, ENABLED) == record
    assert not os.path.islink(record) and read(outside) == b'keep me'


def test_create_exclusive_never_replaces_nor_follows(tmp_path):
    path = os.path.join(str(tmp_path), 'new')
    assert safe_file.create_exclusive(path, b'one', 0o640) is True
    assert read(path) == b'one' and stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert safe_file.create_exclusive(path, b'two') is False
    assert read(path) == b'one'
    link = os.path.join(str(tmp_path), 'link')
    os.symlink(os.path.join(str(tmp_path), 'target'), link)
    assert safe_file.create_exclusive(link, b'three') is False
    assert not os.path.exists(os.path.join(str(tmp_path), 'target'))
    with pytest.raises(safe_file.SafeFileError):
        safe_file.create_exclusive(os.path.join(str(tmp_path), 'missing', 'x'), b'')
