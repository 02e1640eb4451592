# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plans of the writing modules, decided before anything is written, and the planned state the
audit builds from the same plans."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os

import pytest

from ansible_collections.pep493.https.plugins.module_utils._backends import verification_info as audit
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.module_utils._syntax import exceptions
from ansible_collections.pep493.https.plugins.module_utils._write import plan
from ansible_collections.pep493.https.tests.unit.tree import snapshot, write

UNIT_DIR = '/etc/systemd/system'
DEFAULTS = dict(state='present', verify=None, reason=None, expires=None)


def files(root, **kwargs):
    return hostfiles.HostFiles(str(root), **kwargs)


def test_requests_apply_defaults_and_collect_every_error():
    found, errors = exceptions.requests(None, [dict(name='a', verify=False), dict(name='b.service', state='absent'),
                                               dict(name='a', verify=True), dict(name='bad name', verify=True),
                                               dict(name='c')], dict(DEFAULTS, reason='default reason'))
    assert [(r.name, r.state, r.verify, r.reason) for r in found] == [
        ('a.service', 'present', False, 'default reason'), ('b.service', 'absent', None, None),
        ('c.service', 'present', None, 'default reason')]
    assert errors == [
        'services[2]: a.service is already given in services[0]; list each service once',
        "services[3]: unit name 'bad name' contains ' '; systemd allows only letters, digits and \":_.\\-\" "
        '(plus "@" for templates); use systemd-escape for other characters',
        'services[4] (c.service): verify is required with state=present (false: PYTHONHTTPSVERIFY=0, '
        'true: PYTHONHTTPSVERIFY=1), unless the item gives a ca to trust']
    found, errors = exceptions.requests('x', None, dict(DEFAULTS, state='absent', verify=True))
    assert errors == ['name (x.service): verify, reason, expires and ca are not used with state=absent; remove them']


def test_plan_a_dropin_create_update_unchanged_remove(tmp_path):
    [request], _errors = exceptions.requests('app', None, dict(DEFAULTS, verify=False, reason='r'))
    created = plan.plan_dropin(files(tmp_path), UNIT_DIR, 'zz.conf', request)
    assert created.action == 'created' and created.host == UNIT_DIR + '/app.service.d/zz.conf'
    assert created.new == dropin.render_dropin(False, 'r') and created.old is None
    write(tmp_path, created.host, created.new, 0o644)
    assert plan.plan_dropin(files(tmp_path), UNIT_DIR, 'zz.conf', request).action == 'unchanged'
    os.chmod(os.path.join(str(tmp_path), created.host.lstrip('/')), 0o600)
    changed = plan.plan_dropin(files(tmp_path), UNIT_DIR, 'zz.conf', request)
    assert changed.action == 'updated' and changed.old_mode == 0o600
    [absent], _errors = exceptions.requests('app', None, dict(DEFAULTS, state='absent'))
    removed = plan.plan_dropin(files(tmp_path), UNIT_DIR, 'zz.conf', absent)
    assert removed.action == 'removed' and removed.new is None and removed.reason == 'r'
    assert plan.overlay([created, removed]) == {created.host: None}


def test_foreign_files_and_links_are_refused_with_every_problem(tmp_path):
    write(tmp_path, UNIT_DIR + '/a.service.d/zz.conf', b'[Service]\n')
    os.makedirs(os.path.join(str(tmp_path), 'etc/elsewhere'))
    os.symlink('../elsewhere', os.path.join(str(tmp_path), UNIT_DIR.lstrip('/'), 'b.service.d'))
    found, _errors = exceptions.requests(None, [dict(name='a', verify=True), dict(name='b', verify=True)], DEFAULTS)
    with pytest.raises(plan.PlanError) as info:
        plan.plan_dropins(files(tmp_path, show_real=True), UNIT_DIR, 'zz.conf', found, False)
    assert str(info.value).startswith('Nothing was changed: services[0] (a.service): ')
    assert 'is not managed by this module' in info.value.errors[0]
    assert 'b.service.d (its folder) is a symbolic link to ../elsewhere: refused' in info.value.errors[1]


def test_exclusive_removes_only_ours_not_listed(tmp_path):
    ours = dropin.render_dropin(True)
    write(tmp_path, UNIT_DIR + '/keep.service.d/zz.conf', ours)
    write(tmp_path, UNIT_DIR + '/gone.service.d/zz.conf', ours)
    write(tmp_path, UNIT_DIR + '/foreign.service.d/zz.conf', b'[Service]\n')
    write(tmp_path, UNIT_DIR + '/other.service.d/other.conf', ours)
    found, _errors = exceptions.requests(None, [dict(name='keep', verify=True)], DEFAULTS)
    plans, removals = plan.plan_dropins(files(tmp_path), UNIT_DIR, 'zz.conf', found, True)
    assert [(r.name, r.action) for r in removals] == [('gone.service', 'removed')]
    assert plans[0].action == 'unchanged'


def test_plan_cfg(tmp_path):
    created = plan.plan_cfg(files(tmp_path), '/etc/python/cert-verification.cfg', 'enable')
    assert created.changed and created.previous == 'missing' and cfg.parse_cfg(created.new).verify == 'enable'
    with pytest.raises(plan.PlanError):
        plan.plan_cfg(files(tmp_path), '/etc/python/cert-verification.cfg', 'enable', create=False)
    write(tmp_path, '/etc/python/cert-verification.cfg', b'verify=disable\n[https]\nverify=disable\n')
    with pytest.raises(plan.PlanError) as info:
        plan.plan_cfg(files(tmp_path), '/etc/python/cert-verification.cfg', 'enable')
    assert info.value.errors[0]['line'] == 1
    repaired = plan.plan_cfg(files(tmp_path), '/etc/python/cert-verification.cfg', 'enable', repair=True)
    assert repaired.repaired == [1] and repaired.previous == 'malformed'
    absent = plan.plan_cfg(files(tmp_path), '/etc/python/none.cfg', None, state='absent')
    assert not absent.changed and absent.previous == 'missing'


# --- the audit's planned state ------------------------------------------------------------------

def test_planned_state_overlays_exactly_what_the_modules_would_write(tmp_path):
    write(tmp_path, UNIT_DIR + '/old.service.d/zz-pep493-https.conf', dropin.render_dropin(False))
    write(tmp_path, '/etc/python/cert-verification.cfg', b'[https]\nverify=disable\n')
    before = snapshot(tmp_path)
    planned = audit.planned_state(files(tmp_path), '/etc/python/cert-verification.cfg', dict(
        verify='enable', exceptions=[dict(name='new', verify=False, reason='r', expires='2030-01-01')],
        exclusive=True))
    assert snapshot(tmp_path) == before
    assert planned.overlay == {
        '/etc/python/cert-verification.cfg': b'[https]\nverify=enable\n',
        UNIT_DIR + '/new.service.d/zz-pep493-https.conf': dropin.render_dropin(False, 'r', datetime.date(2030, 1, 1)),
        UNIT_DIR + '/old.service.d/zz-pep493-https.conf': None}
    assert sorted((c['path'], c['action']) for c in planned.changes) == [
        ('/etc/python/cert-verification.cfg', 'updated'), (UNIT_DIR + '/new.service.d/zz-pep493-https.conf', 'created'),
        (UNIT_DIR + '/old.service.d/zz-pep493-https.conf', 'removed')]
    assert planned.dropins_changed and planned.cfg == (b'[https]\nverify=enable\n', '0644')


def test_planned_state_with_nothing_to_do_and_with_refusals(tmp_path):
    write(tmp_path, '/etc/python/cert-verification.cfg', b'junk\n')
    planned = audit.planned_state(files(tmp_path), '/etc/python/cert-verification.cfg', dict(verify='enable'))
    assert planned.overlay == {} and 'cert_verification would refuse' in planned.notes[0]
    with pytest.raises(plan.PlanError) as info:
        audit.planned_state(files(tmp_path), '/c', dict(exceptions=[dict(name='a b', verify=True)]))
    assert str(info.value).startswith("planned.exceptions: exceptions[0]: unit name 'a b'")
    assert audit.planned_state(files(tmp_path), '/c', dict()).changes == []


def test_a_dropin_removed_by_a_parallel_run_after_it_was_read_is_planned_from_what_was_read(tmp_path, monkeypatch):
    """Mode and owner come from the drop-in as it was read: a run in parallel (state=absent on the
    same unit) may remove it right after, and the plan must not end in a traceback."""
    [request], _errors = exceptions.requests('app', None, dict(DEFAULTS, verify=False, reason='r'))
    host = UNIT_DIR + '/app.service.d/zz.conf'
    write(tmp_path, host, dropin.render_dropin(False, 'old reason'), 0o600)
    real = os.path.join(str(tmp_path), host.lstrip('/'))
    read_at = hostfiles.HostFiles.read_at

    def read_then_removed(self, resolved, *args, **kwargs):
        data = read_at(self, resolved, *args, **kwargs)
        if resolved.real == real:
            os.unlink(real)
        return data
    monkeypatch.setattr(hostfiles.HostFiles, 'read_at', read_then_removed)
    item = plan.plan_dropin(files(tmp_path), UNIT_DIR, 'zz.conf', request)
    assert item.action == 'updated' and item.old_mode == 0o600


class Request(object):
    label = reason = expires = None


@pytest.mark.parametrize('old,new,old_mode,old_owner,euid,before_header,after_header', [
    (None, b'new\n', None, None, 0, '/p', '/p'),                                     # created
    (b'old\n', None, 0o644, (0, 0), 0, '/p', '/dev/null'),                           # removed
    (b'old\n', b'new\n', 0o600, (0, 0), 0, '/p (mode 0600, becomes 0644)', '/p'),    # mode put right
    (b'old\n', b'old\n', 0o644, (1000, 1000), 0, '/p (owner 1000:1000, becomes root:root)', '/p'),
    (b'old\n', b'old\n', 0o644, (1000, 1000), 1000, '/p', '/p'),                     # not root: owner left
])
def test_every_file_of_ours_has_one_diff_rule(old, new, old_mode, old_owner, euid, before_header, after_header):
    """Drop-ins and CA anchors alike (FilePlan): the path on both sides, /dev/null after a removal,
    a mode or owner put right named before."""
    item = plan.DropinPlan(Request(), '/p', '/root/p', old)
    item.new, item.old_mode, item.old_owner = new, old_mode, old_owner
    diff = item.diff(euid)
    assert (diff['before_header'], diff['after_header']) == (before_header, after_header)
    assert (diff['before'], diff['after']) == ((old or b'').decode(), (new or b'').decode())
    assert item.wrong_mode() is (old_mode not in (None, 0o644))
