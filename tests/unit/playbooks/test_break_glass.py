# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Break glass (docs/rollout.md): one service broke after enforce; one command restores its exception
on that host only, with a reason and a short expiry, and keeps the host's other exceptions. Run as the
guide gives it, on a local fleet of throw-away roots."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json

import yaml

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.tests.unit.roles.playbook import local_fleet, run_playbook

FLEET = {'web-1': '[https]\nverify=enable\n', 'web-2': '[https]\nverify=enable\n'}
KEPT = dict(name='billing', verify=False, reason='CHG-9: vendor CA (OPS-1)', expires='2099-12-31')
REASON = 'INC-4711: rejects the new CA since enforce'


def fleet(tmp_path):
    inventory = local_fleet(tmp_path, FLEET)
    data = yaml.safe_load(open(inventory))
    data['all']['hosts']['web-2']['pep493_https_exceptions'] = [KEPT]
    with open(inventory, 'w') as handle:
        yaml.safe_dump(data, handle)
    for host in FLEET:
        units = tmp_path / 'roots' / host / 'lib' / 'systemd' / 'system'
        units.mkdir(parents=True)
        for name in ('legacy', 'billing'):
            (units / (name + '.service')).write_text(u'[Service]\nExecStart=/usr/bin/python2.7 /opt/%s.py\n' % name)
    return inventory


def ours(tmp_path, host, unit):
    path = tmp_path / 'roots' / host / 'etc' / 'systemd' / 'system' / (unit + '.d') / dropin.DEFAULT_DROPIN_NAME
    return path.read_bytes() if path.exists() else None


def break_glass(tmp_path, inventory, host, expires, *more):
    glass = dict(pep493_https_break_glass=[dict(name='legacy', reason=REASON, expires=expires)])
    return run_playbook(tmp_path, 'pep493.https.enforce', '-l', host, '-e', json.dumps(glass), *more,
                        inventory=inventory)


def test_one_command_restores_the_exception_on_that_host_only_and_keeps_the_others(tmp_path):
    inventory = fleet(tmp_path)
    assert run_playbook(tmp_path, 'pep493.https.enforce', inventory=inventory).returncode == 0
    soon = (dates.today() + datetime.timedelta(days=7)).isoformat()
    done = break_glass(tmp_path, inventory, 'web-2', soon)
    assert done.returncode == 0, done.stdout
    assert ours(tmp_path, 'web-2', 'legacy.service') == dropin.render_dropin(False, REASON, soon)
    assert ours(tmp_path, 'web-2', 'billing.service') == dropin.render_dropin(False, KEPT['reason'], KEPT['expires'])
    assert ours(tmp_path, 'web-1', 'legacy.service') is None
    [line] = [line.strip().strip('",') for line in done.stdout.splitlines() if line.strip().startswith('"web-2: ')]
    assert line.startswith('web-2: compliant_with_exceptions; ') and 'drop-ins added: legacy.service' in line, line
    # the audit reads the inventory: until the exception is there too, it says so
    audit = run_playbook(tmp_path, 'pep493.https.audit', '-l', 'web-2', '-e', 'pep493_https_report_dir=%s'
                         % (tmp_path / 'report'), inventory=inventory)
    assert 'legacy.service has PYTHONHTTPSVERIFY=0 from' in ' '.join(audit.stdout.split()), audit.stdout


def test_a_long_break_glass_is_refused_and_changes_nothing(tmp_path):
    inventory = fleet(tmp_path)
    late = (dates.today() + datetime.timedelta(days=60)).isoformat()
    done = break_glass(tmp_path, inventory, 'web-2', late)
    assert done.returncode != 0
    flat = ' '.join(done.stdout.split())
    assert 'pep493_https_break_glass (legacy.service) expires %s, more than 14 days from today' % late in flat, flat
    assert ours(tmp_path, 'web-2', 'legacy.service') is None
