# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One line per host of an enforce or rollback batch (plugins/plugin_utils/batch_summary.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.plugin_utils import batch_summary as summary
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import applied, cfg_result, compliant, svc_result


def test_batch_summary_lists_added_updated_and_removed_separately():
    hv = {'pep493_https_applied': applied(
        cfg_result(), svc_result([('a.service', 'created'), ('b.service', 'updated'), ('c.service', 'unchanged'),
                                  ('old.service', 'removed')], removed=['left.service'], restarted=['a.service']),
        expired=[dict(name='old.service', expires='2020-01-01')]),
        'pep493_https_status': compliant()}
    lines = summary.batch_summary(['web1'], {'web1': hv})
    assert lines == ['batch of 1 host: web1',
                     'web1: compliant; cfg platform_default -> enable (no Python on this host reads the file); '
                     'drop-ins added: a.service; drop-ins updated: b.service; '
                     'drop-ins removed: old.service (expired 2020-01-01), left.service; try-restart: a.service']


def test_batch_summary_says_removed_only_what_was_removed():
    hv = {'pep493_https_applied': applied(cfg_result(verify='enable', previous='enable', changed=False),
                                          svc_result([('old.service', 'unchanged')]),
                                          expired=[dict(name='old.service', expires='2020-01-01')]),
          'pep493_https_status': compliant()}
    line = summary.host_summary('web1', hv)
    assert line == ('web1: compliant; cfg enable (unchanged); drop-ins unchanged; '
                    'expired in the inventory, not applied: old.service (2020-01-01)')
    assert 'removed' not in line and 'no Python' not in line
    hv['pep493_https_applied']['expired_policy'] = 'keep'
    assert summary.host_summary('web1', hv).endswith('expired but kept (pep493_https_expired: keep): old.service')


def test_batch_summary_in_check_mode_says_would():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result([('a.service', 'created')], restarted=['a.service']),
                                          check=True),
          'pep493_https_status': compliant(check=True)}
    line = summary.host_summary('web1', hv)
    assert 'cfg would change platform_default -> enable' in line
    assert 'drop-ins that would be added: a.service' in line
    assert 'would try-restart: a.service' in line


def test_batch_summary_in_check_mode_gives_the_predicted_state_and_its_first_reason():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result([('a.service', 'created')]), check=True),
          'pep493_https_status': compliant('non_compliant', ['legacy.service has PYTHONHTTPSVERIFY=0', 'two'],
                                           check=True, predicted=True)}
    line = summary.host_summary('web1', hv)
    assert line.startswith('web1: would be non_compliant - legacy.service has PYTHONHTTPSVERIFY=0 (+1 more); '
                           'cfg would change platform_default -> enable'), line
    hv['pep493_https_status'] = compliant('compliant_with_exceptions', check=True, predicted=True)
    assert summary.host_summary('web1', hv).startswith('web1: would be compliant_with_exceptions; cfg would change ')
    assert 'audited as the host was' not in summary.host_summary('web1', hv)


def test_batch_summary_says_when_a_real_run_was_not_audited_after_the_change():
    hv = {'pep493_https_applied': applied(cfg_result(), svc_result()),
          'pep493_https_status': compliant(predicted=True)}
    assert summary.host_summary('web1', hv).startswith(
        'web1: compliant (predicted; not audited after the change); cfg platform_default -> enable')


def test_batch_summary_names_the_first_reason_of_a_non_compliant_host():
    hv = {'pep493_https_applied': applied(cfg_result(changed=False), svc_result()),
          'pep493_https_status': compliant('non_compliant', ['first reason', 'second', 'third'])}
    assert summary.host_summary('web1', hv).startswith('web1: non_compliant - first reason (+2 more); ')


def test_batch_summary_failure_once_with_what_changed_before_it():
    hv = {'pep493_https_applied': applied(cfg_result(), {}),
          'pep493_https_failure': 'Put the per-service exceptions in place: systemctl daemon-reload failed'}
    assert summary.host_summary('web1', hv) == (
        'web1: FAILED - Put the per-service exceptions in place: systemctl daemon-reload failed; changed before the '
        'failure: cfg platform_default -> enable (no Python on this host reads the file)')
    refused = {'pep493_https_failure': 'Refuse a policy: no'}
    assert summary.host_summary('web2', refused) == 'web2: FAILED - Refuse a policy: no'


def test_batch_summary_without_systemd_and_with_pending_restarts():
    hv = {'pep493_https_applied': applied(cfg_result(consumers=[dict(path='/usr/bin/python')]),
                                          svc_result([('a.service', 'created')], running=False)),
          'pep493_https_status': compliant('pending_restart')}
    line = summary.host_summary('web1', hv)
    assert 'no Python' not in line
    assert line.endswith('drop-ins added: a.service; systemd is not running here: no reload or restart')
    hv['pep493_https_applied']['services'] = svc_result([('a.service', 'created')], pending=['a.service'])
    assert summary.host_summary('web1', hv).endswith('pending a restart: a.service')


def test_rollback_summary_per_host():
    restored = cfg_result(previous='enable', verify='platform_default', restored_from='/etc/python/c.cfg.1.x~',
                          skipped_backups=[dict(path='/etc/python/c.cfg.2.y~', reason='malformed')])
    hv = {'pep493_https_applied': applied(restored, svc_result(removed=['a.service']), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == (
        'web1: cfg restored from /etc/python/c.cfg.1.x~ (enable -> platform_default); malformed backups skipped: '
        '/etc/python/c.cfg.2.y~; drop-ins removed: a.service')
    hv['pep493_https_applied']['check_mode'] = True
    assert summary.host_summary('web1', hv).startswith('web1: cfg would be restored from /etc/python/c.cfg.1.x~')
    gone = cfg_result(previous='enable', verify='missing', restored_from='/etc/python/c.cfg.pep493-original')
    hv = {'pep493_https_applied': applied(gone, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == ('web1: cfg removed: there was no file before its first change '
                                                '(/etc/python/c.cfg.pep493-original); drop-ins unchanged')
    never = cfg_result(verify='enable', changed=False, restored_from=None)
    hv = {'pep493_https_applied': applied(never, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == ('web1: cfg enable left as it is: no backup and no record of it; '
                                                'drop-ins unchanged')
    same = cfg_result(verify='enable', changed=False, restored_from='/etc/python/c.cfg.1.x~')
    hv = {'pep493_https_applied': applied(same, svc_result(), entry_point='rollback')}
    assert summary.host_summary('web1', hv) == 'web1: cfg already as in /etc/python/c.cfg.1.x~; drop-ins unchanged'


def test_batch_summary_under_a_root():
    tree = applied(cfg_result(previous='missing', probed=False), svc_result([('a.service', 'created')], running=False))
    tree['root'] = '/var/tmp/image-root'
    line = summary.host_summary('web1', {'pep493_https_applied': tree, 'pep493_https_status': compliant()})
    assert line == ('web1: compliant; cfg missing -> enable; drop-ins added: a.service; '
                    'under root /var/tmp/image-root: no reload or restart')
