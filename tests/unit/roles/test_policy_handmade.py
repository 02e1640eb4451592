# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A hand-made opt-out (override.conf with PYTHONHTTPSVERIFY=0), through the role on a throw-away
root: refused as it is, taken over with pep493_https_adopt, or removed with
pep493_https_remove_handmade - only that assignment goes, a backup stays beside it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import optout
from ansible_collections.pep493.https.tests.unit.roles.playbook import run, tree_files

OVERRIDE = b'[Service]\nEnvironment=APP_MODE=prod PYTHONHTTPSVERIFY=0\n'
TAKEN = (b'[Service]\n' + optout.NOTE + b'Environment=APP_MODE=prod PYTHONHTTPSVERIFY=0\nEnvironment=APP_MODE=prod\n')
REASON = 'Vendor CA not in the trust store (OPS-2211)'


def fleet_host(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc' / 'python').mkdir(parents=True)
    (root / 'etc' / 'python' / 'cert-verification.cfg').write_text(u'[https]\nverify=enable\n')
    (root / 'lib' / 'systemd' / 'system').mkdir(parents=True)
    (root / 'lib' / 'systemd' / 'system' / 'legacy.service').write_text(
        u'[Service]\nExecStart=/usr/bin/python2.7 /opt/legacy/agent.py\n')
    folder = root / 'etc' / 'systemd' / 'system' / 'legacy.service.d'
    folder.mkdir(parents=True)
    (folder / 'override.conf').write_bytes(OVERRIDE)
    return root, folder


def enforce(tmp_path, root, **policy):
    out = tmp_path / 'out.json'
    play = dict(hosts='localhost', connection='local', gather_facts=False,
                vars=dict(policy, pep493_https_root=str(root)),
                tasks=[{'name': 'Enforce', 'block': [{'ansible.builtin.import_role': {'name': 'pep493.https.policy'}}],
                        'rescue': [{'ansible.builtin.set_fact': {'failed_msg': '{{ ansible_failed_result.msg }}'}}]},
                       {'name': 'Write what the role left', 'check_mode': False, 'ansible.builtin.copy': {
                           'dest': str(out), 'content': "{{ {'status': pep493_https_status | default(none), "
                                                        "'failed': failed_msg | default(none)} | to_json }}"}}])
    done = run(tmp_path, play)
    assert done.returncode == 0, done.stdout
    return json.loads(out.read_text())


def test_as_it_is_the_host_is_refused_untouched(tmp_path):
    root, folder = fleet_host(tmp_path)
    before = tree_files(root)
    left = enforce(tmp_path, root)
    assert left['failed'].startswith('would be non_compliant - legacy.service has PYTHONHTTPSVERIFY=0 from '
                                     '/etc/systemd/system/legacy.service.d/override.conf'), left['failed']
    assert tree_files(root) == before


def test_adopt_takes_it_over_as_an_exception_of_ours(tmp_path):
    root, folder = fleet_host(tmp_path)
    left = enforce(tmp_path, root, pep493_https_adopt=[dict(name='legacy', reason=REASON, expires='2099-06-30')])
    assert left['failed'] is None
    assert left['status']['compliance']['state'] == 'compliant_with_exceptions'
    assert (folder / 'override.conf').read_bytes() == TAKEN
    assert (folder / dropin.DEFAULT_DROPIN_NAME).read_bytes() == dropin.render_dropin(False, REASON, '2099-06-30')
    [backup] = [p for p in folder.iterdir() if p.name.startswith('override.conf.') and p.name.endswith('~')]
    assert backup.read_bytes() == OVERRIDE
    # once it expires the service verifies: nothing hand-made is left to set it
    left = enforce(tmp_path, root, pep493_https_adopt=[dict(name='legacy', reason=REASON, expires='2020-06-30')])
    assert left['failed'] is None and left['status']['compliance']['state'] == 'compliant'
    assert not (folder / dropin.DEFAULT_DROPIN_NAME).exists()


def test_remove_takes_it_out_and_the_service_verifies(tmp_path):
    root, folder = fleet_host(tmp_path)
    left = enforce(tmp_path, root, pep493_https_remove_handmade=['legacy'])
    assert left['failed'] is None and left['status']['compliance']['state'] == 'compliant'
    assert (folder / 'override.conf').read_bytes() == TAKEN
    assert not (folder / dropin.DEFAULT_DROPIN_NAME).exists()


@pytest.mark.parametrize('policy, message', [
    (dict(pep493_https_adopt=[dict(name='legacy', reason=REASON)]),
     'pep493_https_adopt[0] (legacy.service) has no expires; every exception needs a reason and an expiry date'),
    (dict(pep493_https_adopt=[dict(name='legacy', verify=True, reason=REASON, expires='2099-06-30')]),
     'pep493_https_adopt[0] has unknown key(s) verify; an adopted opt-out takes only name, reason, expires'),
    (dict(pep493_https_adopt=[dict(name='legacy', reason=REASON, expires='2099-06-30')],
          pep493_https_remove_handmade=['legacy.service']),
     'legacy.service is both in pep493_https_adopt and in pep493_https_remove_handmade'),
    (dict(pep493_https_remove_handmade=['legacy app']),
     "pep493_https_remove_handmade[0]: unit name 'legacy app' contains ' '"),
])
def test_a_bad_takeover_changes_nothing_and_names_the_input(tmp_path, policy, message):
    root, folder = fleet_host(tmp_path)
    before = tree_files(root)
    left = enforce(tmp_path, root, **policy)
    assert left['failed'].startswith('Policy refused, nothing was changed: ') and message in left['failed'], left
    assert tree_files(root) == before
