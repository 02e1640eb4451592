# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ca_trust against throw-away roots laid out like a RHEL and a Debian host, with CAs made by the
openssl CLI: present, absent, rotation, idempotence, check mode, diff, foreign files, refusals,
the expiry warning, and the update left pending under root. The update and its proof on the host
itself run here only through update_and_prove with a stub command, in a family of throw-away
folders (the module never runs without root in these tests)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import stat

import pytest

from ansible_collections.pep493.https.plugins.module_utils._backends import ca_trust as backend
from ansible_collections.pep493.https.plugins.module_utils._trust import store, x509
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file
from ansible_collections.pep493.https.plugins.modules import ca_trust
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit.tree import read, snapshot, write

FAMILIES = {'rhel': (store.RHEL, ca_pki.RHEL_ANCHORS, '.pem'), 'debian': (store.DEBIAN, ca_pki.DEBIAN_ANCHORS, '.crt')}


def cert(name):
    return x509.load_certificates(ca_pki.pem(name))[0]


def tree(tmp_path, family):
    root = os.path.realpath(str(tmp_path))
    ca_pki.lay_out(root, family)
    return root


def anchor(root, family, name):
    return os.path.join(root, FAMILIES[family][1], name + FAMILIES[family][2])


def item(name, certificate=None, state=None):
    entry = dict(name=name)
    if certificate:
        entry['content'] = ca_pki.text(certificate)
    if state:
        entry['state'] = state
    return entry


def call(root, *items, **options):
    return dict(options, root=root, cas=list(items))


@pytest.mark.parametrize('family', ['rhel', 'debian'])
def test_present_writes_the_marked_pem_once_and_leaves_the_update_pending(run_module, tmp_path, family):
    root = tree(tmp_path, family)
    result = run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    path = anchor(root, family, 'acme')
    assert read(path) == store.render_anchor('acme', cert('acme'))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert (result['changed'], result['family'], result['update_status']) == (True, family, 'pending')
    assert result['update_command'] == store.shown(store.update_command(FAMILIES[family][0], ['created']))
    assert result['bundle'] == dict(read=False, found_by=None, locations=[], note=result['bundle']['note'])
    assert 'root is set' in result['bundle']['note'] and 'pending (root is set)' in result['msg']
    shown = result['cas'][0]
    acme = cert('acme')
    assert shown == dict(name='acme', path=path, state='present', action='created', subject=ca_pki.SUBJECTS['acme'],
                         issuer=ca_pki.SUBJECTS['acme'], sha256_fingerprint=acme.sha256_fingerprint,
                         not_after=acme.not_after.strftime('%Y-%m-%dT%H:%M:%SZ'), days_left=shown['days_left'],
                         expiring=False, subject_key_id=acme.subject_key_id, in_bundle=None)
    assert 3640 < shown['days_left'] < 3660 and result['warnings'] == []

    again = run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    assert (again['changed'], again['update_status'], again['cas'][0]['action']) == (False, 'not_needed', 'unchanged')
    assert os.listdir(os.path.dirname(path)) == [os.path.basename(path)]


def test_the_same_ca_given_with_crlf_and_text_around_changes_nothing(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    messy = 'Acme root, from the wiki\r\n' + ca_pki.text('acme').replace('\n', '\r\n') + '\r\n'
    result = run_module.ok(ca_trust, call(root, dict(name='acme', content=messy)))
    assert (result['changed'], result['update_status']) == (False, 'not_needed')


def test_check_mode_writes_nothing_and_diff_shows_each_file(run_module, tmp_path):
    root = tree(tmp_path, 'debian')
    write('/', anchor(root, 'debian', 'old'), store.render_anchor('old', cert('acme')), 0o644)
    before = snapshot(root)
    result = run_module.ok(ca_trust, call(root, item('new', 'rekeyed'), item('old', state='absent')),
                           check_mode=True, diff=True)
    assert snapshot(root) == before
    assert (result['changed'], result['update_status']) == (True, 'pending')
    assert [entry['action'] for entry in result['cas']] == ['created', 'removed']
    assert 'would be changed' in result['msg']
    new, old = result['diff']
    # as every file of the collection (and ansible's copy): a new file's before side is its path, empty
    assert (new['before_header'], new['after_header'], new['before']) == (anchor(root, 'debian', 'new'),
                                                                          anchor(root, 'debian', 'new'), '')
    assert new['after'] == store.render_anchor('new', cert('rekeyed')).decode('ascii')
    assert (old['before_header'], old['after_header'], old['after']) == (anchor(root, 'debian', 'old'), '/dev/null', '')
    assert old['before'].startswith(store.MARKER.decode('ascii'))


def test_no_diff_without_diff_mode_nor_without_a_change(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    assert 'diff' not in run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    assert 'diff' not in run_module.ok(ca_trust, call(root, item('acme', 'acme')), diff=True)


@pytest.mark.parametrize('family', ['rhel', 'debian'])
def test_rotation_in_one_call_adds_the_new_and_removes_the_old(run_module, tmp_path, family):
    root = tree(tmp_path, family)
    run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    result = run_module.ok(ca_trust, call(root, item('acme-2026', 'rekeyed'), item('acme', 'acme', 'absent')))
    assert [(entry['name'], entry['action']) for entry in result['cas']] == [('acme-2026', 'created'), ('acme', 'removed')]
    assert result['cas'][1]['sha256_fingerprint'] == cert('acme').sha256_fingerprint
    assert os.listdir(os.path.dirname(anchor(root, family, 'acme'))) == [os.path.basename(anchor(root, family, 'acme-2026'))]
    expected = store.update_command(FAMILIES[family][0], ['created', 'removed'])
    assert result['update_command'] == store.shown(expected)
    if family == 'debian':
        assert expected[-1] == '--fresh'


def test_absent_without_content_removes_our_file_and_reports_its_ca(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    result = run_module.ok(ca_trust, call(root, item('acme', state='absent')), diff=True)
    assert result['cas'][0]['subject'] == ca_pki.SUBJECTS['acme'] and result['cas'][0]['action'] == 'removed'
    assert not os.path.exists(anchor(root, 'rhel', 'acme'))
    again = run_module.ok(ca_trust, call(root, item('acme', state='absent')))
    assert (again['changed'], again['update_status'], again['cas'][0]['subject']) == (False, 'not_needed', None)


def test_an_expired_ca_can_be_removed(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    write('/', anchor(root, 'rhel', 'old'), store.render_anchor('old', cert('expired')), 0o644)
    result = run_module.ok(ca_trust, call(root, item('old', 'expired', 'absent')))
    assert result['cas'][0]['action'] == 'removed' and result['cas'][0]['days_left'] < 0
    assert result['warnings'] == []


def test_a_foreign_file_is_never_overwritten_nor_removed(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    path = write('/', anchor(root, 'rhel', 'acme'), ca_pki.pem('acme'))
    before = snapshot(root)
    for state in ('present', 'absent'):
        result = run_module.fail(ca_trust, call(root, item('acme', 'acme', state)))
        assert '%s exists but was not written by this module' % path in result['msg']
        assert snapshot(root) == before


def test_every_problem_is_reported_at_once_and_nothing_is_written(run_module, tmp_path):
    root = tree(tmp_path, 'debian')
    before = snapshot(root)
    result = run_module.fail(ca_trust, call(root, item('good', 'acme'), item('bad/name', 'leaf'),
                                            dict(name='keyed', content=ca_pki.text('other') + ca_pki.text('other.key')),
                                            item('old', 'expired'), item('soon', 'future'), item('none')))
    assert [error.split(':')[0] for error in result['errors']] == [
        'cas[1].name', 'cas[1].content', 'cas[2].content', 'cas[3].content', 'cas[4].content', 'cas[5].content']
    assert result['msg'].startswith('Nothing was changed: ')
    assert snapshot(root) == before


def test_an_expiring_ca_is_trusted_with_a_warning(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    result = run_module.ok(ca_trust, call(root, item('short', 'expiring')))
    assert result['cas'][0]['expiring'] is True and result['cas'][0]['days_left'] in (9, 10)
    assert len(result['warnings']) == 1
    assert result['warnings'][0].startswith("cas[0] (short): 'O = Acme, CN = Acme Short Root' expires on ")
    quiet = run_module.ok(ca_trust, call(root, item('short', 'expiring'), expiry_warning_days=5))
    assert quiet['cas'][0]['expiring'] is False and quiet['warnings'] == []


def test_a_file_of_ours_with_another_mode_is_put_right_without_an_update(run_module, tmp_path):
    root = tree(tmp_path, 'rhel')
    path = write('/', anchor(root, 'rhel', 'acme'), store.render_anchor('acme', cert('acme')), 0o600)
    result = run_module.ok(ca_trust, call(root, item('acme', 'acme')), diff=True)
    assert (result['changed'], result['update_status'], result['cas'][0]['action']) == (True, 'not_needed', 'updated')
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert result['diff'][0]['before_header'] == '%s (mode 0600, becomes 0644)' % path
    assert 'no update was needed' in result['msg']


def test_a_new_ca_at_a_name_of_ours_replaces_it(run_module, tmp_path):
    root = tree(tmp_path, 'debian')
    run_module.ok(ca_trust, call(root, item('acme', 'acme')))
    result = run_module.ok(ca_trust, call(root, item('acme', 'rekeyed')))
    assert result['cas'][0]['action'] == 'updated'
    assert result['update_command'] == '/usr/sbin/update-ca-certificates --fresh'
    assert read(anchor(root, 'debian', 'acme')) == store.render_anchor('acme', cert('rekeyed'))


def test_a_failed_write_says_what_was_done_and_keeps_the_old_ca(run_module, tmp_path, monkeypatch):
    root = tree(tmp_path, 'rhel')
    run_module.ok(ca_trust, call(root, item('acme', 'acme')))

    def full(*args, **kwargs):
        raise safe_file.SafeFileError('cannot write x: No space left on device; it is unchanged')
    monkeypatch.setattr(safe_file, 'write_atomic', full)
    result = run_module.fail(ca_trust, call(root, item('acme-2026', 'rekeyed'), item('acme', state='absent')))
    assert result['msg'] == ('cannot write x: No space left on device; it is unchanged; anchor files written or '
                             'removed before the error: none')
    assert os.path.exists(anchor(root, 'rhel', 'acme'))


def test_an_empty_list_changes_nothing(run_module, tmp_path):
    result = run_module.ok(ca_trust, dict(root=str(tmp_path), cas=[]))
    assert (result['changed'], result['update_status'], result['family'], result['cas']) == (False, 'not_needed', None, [])


def test_a_tree_without_a_trust_store_is_refused(run_module, tmp_path):
    result = run_module.fail(ca_trust, dict(root=str(tmp_path), cas=[item('acme', 'acme')]))
    assert result['msg'].startswith('Nothing was changed: no trust store found: looked for ')
    assert os.listdir(str(tmp_path)) == []


# --- the update and its proof on the host itself: update_and_prove with a stub command --------

class FakeModule(object):
    """What update_and_prove uses of an AnsibleModule: check_mode, run_command, fail_json."""

    def __init__(self, run_command, check_mode=False):
        self.check_mode = check_mode
        self.commands = []
        self._run = run_command

    def run_command(self, argv, environ_update=None):
        self.commands.append((argv, environ_update))
        return self._run(argv)

    def fail_json(self, **result):
        raise AssertionError(result)


def folder_family(tmp_path):
    """A RHEL-like family whose every path is in a throw-away folder."""
    base = os.path.realpath(str(tmp_path))
    os.makedirs(base + '/anchors')
    return store.Family('rhel', 'test', base + '/update', ['extract'], None, base + '/anchors', '.pem',
                        base + '/bundle.pem', None)


@pytest.fixture
def no_interpreters(monkeypatch):
    monkeypatch.setattr(backend.interpreters, 'candidate_interpreters', lambda: [])


def test_update_and_prove_runs_the_update_then_reads_the_bundle(tmp_path, no_interpreters):
    family = folder_family(tmp_path)

    def update(argv):
        write('/', family.bundle, ca_pki.pem('acme'))
        return 0, '', ''
    module = FakeModule(update)
    got = backend.update_and_prove(module, family, ['created'], [('acme', 'present', cert('acme'))], [], {})
    update_state, stale, proof, bundle = got
    assert (update_state, stale, proof.in_bundle) == ('ran', False, dict(acme=True))
    assert module.commands == [([family.tool, 'extract'], dict(LC_ALL='C', LANG='C'))]
    assert bundle == dict(read=True, note='read after the update', found_by='known_paths', locations=[dict(
        file=family.bundle, file_real=family.bundle, folder=None, folder_real=None, interpreters=[])])


def test_update_and_prove_fails_saying_what_was_written_and_what_to_run(tmp_path, no_interpreters):
    family = folder_family(tmp_path)
    write('/', family.bundle, b'')
    module = FakeModule(lambda argv: (0, '', ''))
    with pytest.raises(AssertionError) as caught:
        backend.update_and_prove(module, family, ['created'], [('acme', 'present', cert('acme'))],
                                 ['%s/acme.pem created' % family.anchors], dict(changed=True))
    failure = caught.value.args[0]
    assert failure['changed'] is True
    assert failure['msg'] == (
        "%s extract ran, but what the host's Python trusts (%s) does not show the change: acme not in it. Look for the "
        "same CA in another anchor file, a blocklist, or a bundle the update does not write. The anchor files were "
        "written (%s/acme.pem created); once the cause is fixed, run %s extract, or this task again (it runs the "
        "update while the bundle does not show the change)" % (family.tool, family.bundle, family.anchors, family.tool))


def test_update_and_prove_in_check_mode_reads_but_never_runs(tmp_path, no_interpreters):
    family = folder_family(tmp_path)
    write('/', family.bundle, ca_pki.pem('other'))

    def never(argv):
        raise AssertionError('ran %r' % argv)
    module = FakeModule(never, check_mode=True)
    update_state, stale, proof, bundle = backend.update_and_prove(
        module, family, [], [('acme', 'present', cert('acme'))], [], {})
    assert (update_state, stale, proof.in_bundle, module.commands) == ('pending', True, dict(acme=False), [])
    assert bundle['note'] == 'check mode: the bundle as it is now, before any change'


def test_the_messages_of_a_stale_bundle():
    assert backend.message([], 'ran', True, ['/usr/bin/update-ca-trust', 'extract'], dict(root=None), False) == (
        "The anchor files are as requested, but the bundle the host's Python loads did not show them: "
        "/usr/bin/update-ca-trust extract ran, and it does now.")
    assert backend.message([], 'pending', True, ['u'], dict(root=None), True).endswith('did not show them: u would run.')


def test_an_unreadable_anchor_folder_is_reported_not_raised(run_module, tmp_path, monkeypatch):
    root = tree(tmp_path, 'rhel')
    write('/', anchor(root, 'rhel', 'acme'), store.render_anchor('acme', cert('acme')))

    def denied(*args, **kwargs):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    monkeypatch.setattr(store.hostfiles.os, 'open', denied)
    result = run_module.fail(ca_trust, call(root, item('acme', 'acme')))
    assert result['msg'] == ('Nothing was changed: cas[0] (acme): cannot read %s: permission denied; run as a user '
                             'who may read it (become: true)' % anchor(root, 'rhel', 'acme'))
