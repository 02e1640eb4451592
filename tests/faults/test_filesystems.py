# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Full disk (a small tmpfs) and a read-only file system: a clear error, the old file intact.

Each case mounts its own tmpfs inside a private mount namespace (mountcase.py); this needs
root. Without it the cases fail, they do not pass."""

import json
import os
import subprocess

import pytest

import harness

HERE = os.path.dirname(os.path.abspath(__file__))


def mount_case(case, tmp_path):
    folder = str(tmp_path / 'mnt')
    os.mkdir(folder)
    cmd = ['unshare', '-m', '--propagation', 'private', harness.PYTHON, os.path.join(HERE, 'mountcase.py'),
           case, folder]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, 'cannot run %s in a private mount namespace (root needed): %s' % (
        case, err.decode('utf-8', 'replace')[-1500:])
    assert os.listdir(folder) == [], 'the tmpfs leaked out of its namespace'
    return json.loads(out.decode('utf-8').strip().splitlines()[-1])


def assert_clear_failure(outcome, *words, **kwargs):
    result = outcome['result']
    assert result is not None, outcome  # a JSON answer, not a traceback
    assert outcome['returncode'] == 1 and result.get('failed'), outcome
    assert 'Traceback' not in outcome['stderr'] and 'exception' not in result, outcome
    for word in words:
        assert word in result['msg'], (word, result['msg'])
    if kwargs.get('new_file'):
        # nothing to keep intact; at most the empty folders made for the file stay
        assert all(not content for content in outcome['after'].values()), outcome
    else:
        assert outcome['unchanged'], outcome
    assert outcome['leftovers'] == [], outcome


@pytest.mark.parametrize('case', ['full-cert', 'full-cert-backup', 'full-cert-new', 'full-service'])
def test_full_disk_fails_clearly_and_keeps_the_old_file(case, tmp_path):
    outcome = mount_case(case, tmp_path)
    assert_clear_failure(outcome, 'No space left on device', new_file=case.endswith('-new'))


def test_no_inodes_left_fails_clearly(tmp_path):
    outcome = mount_case('inodes-cert', tmp_path)
    assert_clear_failure(outcome, 'No space left on device', 'temporary file')


@pytest.mark.parametrize('case', ['ro-cert', 'ro-cert-new', 'ro-service', 'ro-service-absent'])
def test_read_only_file_system_fails_clearly_and_keeps_the_old_file(case, tmp_path):
    outcome = mount_case(case, tmp_path)
    assert_clear_failure(outcome, 'Read-only file system', new_file=case.endswith('-new'))


def test_check_mode_on_a_read_only_file_system_reports_the_change(tmp_path):
    outcome = mount_case('ro-cert-check', tmp_path)
    assert outcome['returncode'] == 0 and outcome['result']['changed'], outcome
    assert outcome['unchanged'], outcome
