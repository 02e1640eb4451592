# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The batches of pep493.https.enforce and pep493.https.rollback, run on a local fleet (each host a
throw-away root): pep493_https_serial is a list, or text with commas as an AWX / Automation
Platform survey gives it (a canary, then the rest)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

import pytest

from ansible_collections.pep493.https.tests.unit.roles.playbook import local_fleet, run_playbook

FLEET = dict(('web-%d' % n, '[https]\nverify=disable\n') for n in range(1, 4))


def batches(output):
    return [int(size) for size in re.findall(r'batch of (\d+) host', output)]


@pytest.mark.parametrize('playbook, serial, sizes', [
    ('pep493.https.enforce', '1,100%', [1, 2]),
    ('pep493.https.enforce', [2, '100%'], [2, 1]),
    ('pep493.https.rollback', ' 1 , 50% ,100%', [1, 1, 1]),
])
def test_the_batches_come_from_a_list_or_from_text_with_commas(tmp_path, playbook, serial, sizes):
    done = run_playbook(tmp_path, playbook, '-e', json.dumps(dict(pep493_https_serial=serial)),
                        inventory=local_fleet(tmp_path, FLEET))
    assert done.returncode == 0, done.stdout
    assert batches(done.stdout) == sizes, done.stdout
