# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The trust store's knowledge (_trust.store): families and their detection, the anchor file and
its plan, the update command, where Python looks and what it finds there, and the update and
its proof driven by stub commands and bundles in a throw-away root - including an update that
"succeeds" without the bundle showing the change. Where this machine has Debian's
update-ca-certificates, the real tool is run with every path inside a throw-away folder."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._trust import ca_requests, store, x509
from ansible_collections.pep493.https.tests.unit import ca_pki
from ansible_collections.pep493.https.tests.unit.tree import read, write

RHEL_BUNDLE = store.RHEL.bundle.lstrip('/')
DEBIAN_BUNDLE = store.DEBIAN.bundle.lstrip('/')


def cert(name):
    return x509.load_certificates(ca_pki.pem(name))[0]


def request(name, state='present', certificate='acme', index=0):
    return ca_requests.CaRequest('cas[%d]' % index, name, state, cert(certificate) if certificate else None)


def root_of(tmp_path, family=None):
    root = os.path.realpath(str(tmp_path))
    if family:
        ca_pki.lay_out(root, family)
    return root


# --- families ------------------------------------------------------------------------------------

@pytest.mark.parametrize('family', ['rhel', 'debian'])
def test_the_family_is_found_from_its_tool_and_folder(tmp_path, family):
    root = root_of(tmp_path, family)
    assert store.detect(hostfiles.HostFiles(root)).name == family


def test_a_host_with_no_store_fails_naming_what_was_looked_for(tmp_path):
    root = root_of(tmp_path)
    write(root, ca_pki.RHEL_TOOL, b'')
    with pytest.raises(store.StoreError) as caught:
        store.detect(hostfiles.HostFiles(root, show_real=True))
    message = str(caught.value)
    for path in (store.RHEL.tool, store.RHEL.anchors, store.DEBIAN.tool, store.DEBIAN.anchors):
        assert root + path in message
    assert 'found neither pair; found %s but not %s' % (root + store.RHEL.tool, root + store.RHEL.anchors) in message


def test_a_host_with_both_stores_is_refused(tmp_path):
    root = root_of(tmp_path, 'rhel')
    ca_pki.lay_out(root, 'debian')
    with pytest.raises(store.StoreError) as caught:
        store.detect(hostfiles.HostFiles(root))
    assert 'two trust stores' in str(caught.value)


def test_a_folder_at_the_tool_path_is_no_tool(tmp_path):
    root = root_of(tmp_path)
    os.makedirs(os.path.join(root, ca_pki.RHEL_TOOL))
    os.makedirs(os.path.join(root, ca_pki.RHEL_ANCHORS))
    with pytest.raises(store.StoreError):
        store.detect(hostfiles.HostFiles(root))


# --- the anchor file -----------------------------------------------------------------------------

def test_the_anchor_is_the_marker_then_the_pem_and_reads_back():
    acme = cert('acme')
    data = store.render_anchor('acme', acme)
    lines = data.split(b'\n')
    assert lines[0] == store.MARKER and lines[1].startswith(b'# ca_trust name: acme, SHA-256 ')
    assert lines[2] == b'-----BEGIN CERTIFICATE-----' and data.endswith(b'-----END CERTIFICATE-----\n')
    assert max(len(line) for line in lines[3:-2]) == 64
    assert store.is_ours(data) and store.certificate_in(data).der == acme.der
    assert store.certificate_in(data).sha256_fingerprint.encode('ascii') in lines[1]


def test_the_same_ca_in_any_pem_form_gives_the_same_bytes():
    pem = ca_pki.pem('acme')
    crlf = b'text before\r\n' + pem.replace(b'\n', b'\r\n')
    assert store.render_anchor('a', x509.load_certificates(crlf)[0]) == store.render_anchor('a', cert('acme'))


def test_only_a_first_marker_line_makes_a_file_ours():
    assert store.is_ours(store.MARKER + b'\r\nrest')
    assert not store.is_ours(b'\n' + store.MARKER)
    assert not store.is_ours(ca_pki.pem('acme'))
    assert not store.is_ours(None)
    assert store.certificate_in(store.MARKER + b'\nedited by hand') is None


# --- the plan ------------------------------------------------------------------------------------

def test_plan_creates_then_leaves_the_same_file_alone(tmp_path):
    root = root_of(tmp_path, 'rhel')
    item = store.plan_anchor(hostfiles.HostFiles(root), store.RHEL, request('acme'))
    assert (item.action, item.path) == ('created', root + store.RHEL.anchors + '/acme.pem')
    write(root, item.host, item.new, 0o644)
    again = store.plan_anchor(hostfiles.HostFiles(root), store.RHEL, request('acme'))
    assert (again.action, again.changed, again.content_changed) == ('unchanged', False, False)


def test_plan_puts_the_mode_right_without_an_update(tmp_path):
    root = root_of(tmp_path, 'debian')
    write(root, store.DEBIAN.anchors + '/acme.crt', store.render_anchor('acme', cert('acme')), 0o600)
    item = store.plan_anchor(hostfiles.HostFiles(root), store.DEBIAN, request('acme'))
    assert (item.action, item.old_mode, item.content_changed) == ('updated', 0o600, False)


def test_plan_refuses_a_foreign_file_for_either_state(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, store.RHEL.anchors + '/acme.pem', ca_pki.pem('acme'))
    for state in ('present', 'absent'):
        with pytest.raises(store.PlanError) as caught:
            store.plan_anchor(hostfiles.HostFiles(root), store.RHEL, request('acme', state))
        assert 'exists but was not written by this module' in str(caught.value)


def test_a_removal_given_content_must_match_the_file(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, store.RHEL.anchors + '/acme.pem', store.render_anchor('acme', cert('acme')))
    files = hostfiles.HostFiles(root)
    with pytest.raises(store.PlanError) as caught:
        store.plan_anchor(files, store.RHEL, request('acme', 'absent', 'rekeyed'))
    assert 'their SHA-256 fingerprints differ' in str(caught.value)
    item = store.plan_anchor(files, store.RHEL, request('acme', 'absent', None))
    assert (item.action, item.certificate.der) == ('removed', cert('acme').der)
    gone = store.plan_anchor(files, store.RHEL, request('other', 'absent', None))
    assert (gone.action, gone.certificate) == ('unchanged', None)


def test_plan_refuses_a_folder_others_can_write(tmp_path):
    root = root_of(tmp_path, 'rhel')
    os.chmod(root + store.RHEL.anchors, 0o777)
    with pytest.raises(store.PlanError) as caught:
        store.plan_anchor(hostfiles.HostFiles(root), store.RHEL, request('acme'))
    assert 'writable by group or others (mode 0777)' in str(caught.value)


def test_plan_refuses_a_name_whose_debian_link_belongs_to_another_file(tmp_path):
    root = root_of(tmp_path, 'debian')
    os.makedirs(root + store.DEBIAN.hashed)
    os.symlink('/usr/share/ca-certificates/mozilla/Acme.crt', root + store.DEBIAN.hashed + '/acme.pem')
    with pytest.raises(store.PlanError) as caught:
        store.plan_anchor(hostfiles.HostFiles(root), store.DEBIAN, request('acme'))
    assert 'a link to /usr/share/ca-certificates/mozilla/Acme.crt' in str(caught.value)
    os.unlink(root + store.DEBIAN.hashed + '/acme.pem')
    os.symlink(store.DEBIAN.anchors + '/acme.crt', root + store.DEBIAN.hashed + '/acme.pem')
    assert store.plan_anchor(hostfiles.HostFiles(root), store.DEBIAN, request('acme')).action == 'created'


def test_plan_anchors_reports_every_refused_item(tmp_path):
    root = root_of(tmp_path, 'rhel')
    for name in ('a', 'b'):
        write(root, store.RHEL.anchors + '/%s.pem' % name, b'foreign\n')
    with pytest.raises(store.PlanError) as caught:
        store.plan_anchors(hostfiles.HostFiles(root), store.RHEL, [request('a'), request('b', certificate='other')])
    assert caught.value.errors[0].startswith('cas[0] (a): ') and caught.value.errors[1].startswith('cas[0] (b): ')
    assert str(caught.value).startswith('Nothing was changed: ')


@pytest.mark.parametrize('family, actions, stale, expected', [
    (store.RHEL, ['created'], False, ['/usr/bin/update-ca-trust', 'extract']),
    (store.RHEL, ['removed'], True, ['/usr/bin/update-ca-trust', 'extract']),
    (store.DEBIAN, ['created'], False, ['/usr/sbin/update-ca-certificates']),
    (store.DEBIAN, ['created', 'removed'], False, ['/usr/sbin/update-ca-certificates', '--fresh']),
    (store.DEBIAN, ['updated'], False, ['/usr/sbin/update-ca-certificates', '--fresh']),
    (store.DEBIAN, [], True, ['/usr/sbin/update-ca-certificates', '--fresh']),
])
def test_update_command(family, actions, stale, expected):
    assert store.update_command(family, actions, stale) == expected


# --- where Python looks, and what it finds ------------------------------------------------------

def probe(path, cafile, capath, error=None):
    return dict(path=path, version='3.6.8', cafile=cafile, capath=capath, error=error)


def test_groups_follow_links_and_join_interpreters_that_read_the_same(tmp_path):
    root = root_of(tmp_path)
    write(root, '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', b'')
    os.symlink('/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', root + '/etc/pki/tls-cert.pem')
    os.makedirs(root + '/etc/pki/tls/certs')
    files = hostfiles.HostFiles(root)
    groups = store.groups_from_probe(files, [
        probe('/usr/bin/python2.7', '/etc/pki/tls-cert.pem', '/etc/pki/tls/certs'),
        probe('/usr/bin/python3', '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem', '/etc/pki/tls/certs'),
        probe('/opt/own/bin/python3', '/opt/own/ssl/cert.pem', '/opt/own/ssl/certs'),
        probe('/usr/bin/python3.9', None, None, error='cannot run: Permission denied')])
    assert [group.public() for group in groups] == [dict(
        file='/etc/pki/tls-cert.pem', file_real='/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
        folder='/etc/pki/tls/certs', folder_real='/etc/pki/tls/certs',
        interpreters=['/usr/bin/python2.7', '/usr/bin/python3'])]
    assert store.locate(files, store.RHEL, [probe('/opt/own/bin/python3', '/opt/own/ssl/cert.pem', None)])[1] == 'known_paths'


def test_the_known_paths_stand_in_when_no_interpreter_answers(tmp_path):
    root = root_of(tmp_path)
    write(root, DEBIAN_BUNDLE, b'')
    groups, found_by = store.locate(hostfiles.HostFiles(root), store.DEBIAN, [])
    assert found_by == 'known_paths'
    assert groups[0].public() == dict(file=store.DEBIAN.bundle, file_real=store.DEBIAN.bundle, folder=store.DEBIAN.hashed,
                                      folder_real=store.DEBIAN.hashed, interpreters=[])


def hashed(root, certificate_name, index, target=None):
    """A <hash>.<index> link in the Debian folder, to the certificate's file (or to ``target``)."""
    folder = root + store.DEBIAN.hashed
    if not os.path.isdir(folder):
        os.makedirs(folder)
    name = '%s.%d' % (x509.subject_hash(cert(certificate_name)), index)
    if target is None:
        target = certificate_name + '.pem'
        write(folder, target, ca_pki.pem(certificate_name))
    os.symlink(target, os.path.join(folder, name))


def test_prove_reads_the_bundle_file_by_fingerprint(tmp_path):
    root = root_of(tmp_path)
    write(root, RHEL_BUNDLE, b'# comment\n' + ca_pki.pem('other') + ca_pki.pem('acme'))
    files = hostfiles.HostFiles(root)
    proof = store.prove(files, [store.known_group(files, store.RHEL)],
                        [('acme', 'present', cert('acme')), ('old', 'absent', cert('rekeyed')), ('gone', 'absent', None)])
    assert proof.in_bundle == dict(acme=True, old=False, gone=None)
    assert (proof.wrong, proof.split) == ([], {})


def test_prove_looks_up_the_hashed_folder_as_openssl_does(tmp_path):
    root = root_of(tmp_path)
    hashed(root, 'acme', 0, target='gone.pem')    # a link left dangling, as plain update-ca-certificates leaves it
    hashed(root, 'rekeyed', 1)
    files = hostfiles.HostFiles(root)
    group = store.Group(None, None, store.DEBIAN.hashed, store.DEBIAN.hashed, ['/usr/bin/python3'])
    proof = store.prove(files, [group], [('new', 'present', cert('rekeyed'))])
    # OpenSSL stops at the first <hash>.N it cannot open: .1 is never seen
    assert (proof.in_bundle, proof.wrong) == (dict(new=False), ['new'])
    os.unlink(root + store.DEBIAN.hashed + '/%s.0' % x509.subject_hash(cert('acme')))
    os.rename(root + store.DEBIAN.hashed + '/%s.1' % x509.subject_hash(cert('acme')),
              root + store.DEBIAN.hashed + '/%s.0' % x509.subject_hash(cert('acme')))
    assert store.prove(hostfiles.HostFiles(root), [group], [('new', 'present', cert('rekeyed'))]).in_bundle == dict(new=True)


def test_prove_names_the_pythons_that_disagree(tmp_path):
    root = root_of(tmp_path)
    write(root, RHEL_BUNDLE, ca_pki.pem('acme'))
    write(root, '/opt/own/ssl/cert.pem', ca_pki.pem('other'))
    system = store.Group(store.RHEL.bundle, store.RHEL.bundle, None, None, ['/usr/bin/python3'])
    own = store.Group('/opt/own/ssl/cert.pem', '/opt/own/ssl/cert.pem', None, None, ['/opt/own/bin/python3'])
    proof = store.prove(hostfiles.HostFiles(root), [system, own], [('acme', 'present', cert('acme'))])
    assert proof.in_bundle == dict(acme=True) and proof.wrong == []
    assert proof.split == dict(acme=[own])
    assert own.describe() == '/opt/own/ssl/cert.pem (read by /opt/own/bin/python3)'


# --- the update and its proof, with stub commands -----------------------------------------------

class StubUpdate(object):
    """update-ca-trust as a stub: records each command, and (``works``) writes the bundle from the
    anchor files, as the real tool makes it from them; ``rc``/``err`` make it fail."""

    def __init__(self, root, works=True, rc=0, err=''):
        self.root = root
        self.works = works
        self.rc = rc
        self.err = err
        self.commands = []

    def __call__(self, argv):
        self.commands.append(argv)
        if self.works:
            folder = self.root + store.RHEL.anchors
            write(self.root, RHEL_BUNDLE, b''.join(read(os.path.join(folder, name)) for name in sorted(os.listdir(folder))))
        return self.rc, '', self.err


def settle(root, stub, actions, wanted):
    return store.settle(stub, store.RHEL, actions, lambda: hostfiles.HostFiles(root),
                        lambda files: store.locate(files, store.RHEL, []), wanted)


def test_an_update_that_shows_the_change_is_proven(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, RHEL_BUNDLE, ca_pki.pem('rekeyed'))
    write(root, store.RHEL.anchors + '/acme.pem', store.render_anchor('acme', cert('acme')))
    stub = StubUpdate(root)
    update, stale, proof, located = settle(root, stub, ['created', 'removed'],
                                           [('acme', 'present', cert('acme')), ('old', 'absent', cert('rekeyed'))])
    assert (update, stale, proof.in_bundle) == ('ran', False, dict(acme=True, old=False))
    assert stub.commands == [['/usr/bin/update-ca-trust', 'extract']]
    assert located[1] == 'known_paths' and located[0][0].file == store.RHEL.bundle


def test_an_update_that_does_not_show_the_change_fails(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, RHEL_BUNDLE, ca_pki.pem('rekeyed'))
    write(root, store.RHEL.anchors + '/acme.pem', store.render_anchor('acme', cert('acme')))
    with pytest.raises(store.StoreError) as caught:
        settle(root, StubUpdate(root, works=False), ['created', 'removed'],
               [('acme', 'present', cert('acme')), ('old', 'absent', cert('rekeyed'))])
    assert str(caught.value) == (
        '/usr/bin/update-ca-trust extract ran, but what the host\'s Python trusts (/etc/pki/tls/certs/ca-bundle.crt) '
        'does not show the change: acme not in it and old still in it. Look for the same CA in another anchor file, '
        'a blocklist, or a bundle the update does not write')


def test_a_failing_update_says_its_exit_code_and_last_line(tmp_path):
    root = root_of(tmp_path, 'rhel')
    with pytest.raises(store.StoreError) as caught:
        settle(root, StubUpdate(root, works=False, rc=2, err='p11-kit: trust: command not found\nstopped\n'),
               ['created'], [('acme', 'present', cert('acme'))])
    assert str(caught.value) == '/usr/bin/update-ca-trust extract failed (exit 2): stopped'


def test_no_change_and_a_bundle_that_agrees_runs_nothing(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, RHEL_BUNDLE, ca_pki.pem('acme'))
    stub = StubUpdate(root)
    update, stale, proof, located = settle(root, stub, [], [('acme', 'present', cert('acme'))])
    assert (update, stale, stub.commands, proof.in_bundle) == ('not_needed', False, [], dict(acme=True))


def test_a_stale_bundle_runs_the_update(tmp_path):
    root = root_of(tmp_path, 'rhel')
    write(root, RHEL_BUNDLE, b'')
    write(root, store.RHEL.anchors + '/acme.pem', store.render_anchor('acme', cert('acme')))
    stub = StubUpdate(root)
    update, stale, proof, located = settle(root, stub, [], [('acme', 'present', cert('acme'))])
    assert (update, stale, len(stub.commands), proof.in_bundle) == ('ran', True, 1, dict(acme=True))


def test_a_stale_debian_bundle_is_rebuilt_with_fresh(tmp_path):
    root = root_of(tmp_path, 'debian')
    commands = []
    with pytest.raises(store.StoreError):
        store.settle(lambda argv: commands.append(argv) or (0, '', ''), store.DEBIAN, [],
                     lambda: hostfiles.HostFiles(root), lambda files: store.locate(files, store.DEBIAN, []),
                     [('acme', 'present', cert('acme'))])
    assert commands == [['/usr/sbin/update-ca-certificates', '--fresh']]


# --- Debian's own tool, with every path inside a throw-away folder ------------------------------

TOOL = '/usr/sbin/update-ca-certificates'


def debian_tool_runs_in_a_folder():
    try:
        with open(TOOL, 'rb') as handle:
            text = handle.read()
    except IOError:
        return False
    return all(option in text for option in (b'--localcertsdir', b'--etccertsdir', b'--hooksdir', b'--certsconf'))


@pytest.mark.skipif(not debian_tool_runs_in_a_folder(), reason='no update-ca-certificates that takes its folders')
def test_debian_update_ca_certificates_reads_our_files_and_the_proof_sees_it(tmp_path):
    root = root_of(tmp_path, 'debian')
    # the Debian family inside the tree, read without root: the tool's links name the tree's real paths
    family = store.Family('debian', 'Debian in a folder', TOOL, [], '--fresh', root + store.DEBIAN.anchors, '.crt',
                          root + store.DEBIAN.bundle, root + store.DEBIAN.hashed)
    os.makedirs(family.hashed)
    write(root, '/etc/ca-certificates.conf', b'# no distribution CA\n')
    os.makedirs(root + '/usr/share/ca-certificates')

    def run(argv):
        # every folder the tool reads or writes is the tree's, never the machine's
        folders = ['--certsconf', root + '/etc/ca-certificates.conf', '--certsdir', root + '/usr/share/ca-certificates',
                   '--localcertsdir', family.anchors, '--etccertsdir', family.hashed,
                   '--hooksdir', root + '/etc/ca-certificates/update.d']
        process = subprocess.Popen([TOOL] + argv[1:] + folders, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=dict(PATH=os.environ.get('PATH', '/usr/bin:/bin'), TMPDIR=root, LC_ALL='C'))
        out, err = process.communicate()
        return process.returncode, out.decode('utf-8', 'replace'), err.decode('utf-8', 'replace')

    def step(items):
        plans = store.plan_anchors(hostfiles.HostFiles(), family, items)
        for item in plans:
            if item.new is not None:
                write('/', item.path, item.new, 0o644)
            elif item.old is not None:
                os.unlink(item.path)
        return store.settle(run, family, [item.action for item in plans if item.content_changed], hostfiles.HostFiles,
                            lambda files: ([store.Group(None, None, family.hashed, family.hashed, [])], 'test'),
                            [(item.request.name, item.request.state, item.certificate) for item in plans])

    assert step([request('acme')])[2].in_bundle == dict(acme=True)
    assert read(family.bundle).startswith(store.MARKER)  # the tool copies the file whole, marker included
    # a CA of the same subject added, then the old one removed on its own: only --fresh keeps the new one seen
    assert step([request('new', certificate='rekeyed', index=1)])[2].in_bundle == dict(new=True)
    update, stale, proof, located = step([request('acme', 'absent', 'acme'), request('new', certificate='rekeyed', index=1)])
    assert (update, proof.in_bundle) == ('ran', dict(acme=False, new=True))
    assert os.listdir(root + '/etc') == ['ca-certificates.conf', 'ssl']
