# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The operating system's trust store as ca_trust writes to it: the two families, which one a host
is (from what is on it, never from a variable), the anchor file this module writes and how it is
recognised, the plan of every anchor file of a call, the update command, and the proof that the
CAs the host's Python trusts show the change.

The anchor file is one marker comment line, one comment line with the item's name and the SHA-256
fingerprint, then the certificate as PEM. Both tools read past text before the PEM block: p11-kit,
behind ``update-ca-trust``, looks for the ``-----BEGIN`` line (its common/pem.c), and Debian's
``update-ca-certificates`` copies each ``.crt`` file whole into ``ca-certificates.crt`` and links it
for ``openssl rehash``, whose PEM reader skips such text (run on Debian 12, ca-certificates
20230311). The comment lines hold nothing taken from the certificate but its fingerprint: a
subject may contain ``-----BEGIN``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._write import plan as writeplan
from ansible_collections.pep493.https.plugins.module_utils._trust import x509

PlanError = writeplan.PlanError
MARKER = b'# Managed by pep493.https.ca_trust; edits here are overwritten.'
ANCHOR_MODE = 0o644
MAX_ANCHOR_SIZE = 64 * 1024     # one certificate is a few KiB: a larger file is not one of ours
MAX_HASH_LINKS = 100            # <hash>.0 ... as OpenSSL tries them, for one subject


class Family(object):
    """One kind of trust store: the update ``tool`` and its ``arguments`` (``rebuild``: the one
    more that makes it start over, or None), the ``anchors`` folder and the ``suffix`` of a file
    there, the ``bundle`` file the update writes, and the ``hashed`` folder of ``<subject hash>.N``
    links it keeps (None when it keeps none)."""

    __slots__ = ('name', 'label', 'tool', 'arguments', 'rebuild', 'anchors', 'suffix', 'bundle', 'hashed')

    def __init__(self, name, label, tool, arguments, rebuild, anchors, suffix, bundle, hashed):
        self.name = name
        self.label = label
        self.tool = tool
        self.arguments = arguments
        self.rebuild = rebuild
        self.anchors = anchors
        self.suffix = suffix
        self.bundle = bundle
        self.hashed = hashed


RHEL = Family('rhel', 'RHEL/CentOS 7 - 9', '/usr/bin/update-ca-trust', ['extract'], None,
              '/etc/pki/ca-trust/source/anchors', '.pem', '/etc/pki/tls/certs/ca-bundle.crt', None)
DEBIAN = Family('debian', 'Debian/Ubuntu', '/usr/sbin/update-ca-certificates', [], '--fresh',
                '/usr/local/share/ca-certificates', '.crt', '/etc/ssl/certs/ca-certificates.crt', '/etc/ssl/certs')
FAMILIES = (RHEL, DEBIAN)


class StoreError(Exception):
    """The trust store cannot be used or updated as asked; the message is for the operator."""


def detect(files):
    """The Family of the host (or tree) ``files`` reads: the one whose update tool and anchor
    folder both exist. StoreError naming what was looked for when none or both do."""
    found = []
    partial = []
    for family in FAMILIES:
        tool, folder = files.exists(family.tool) and not files.is_dir(family.tool), files.is_dir(family.anchors)
        if tool and folder:
            found.append(family)
        elif tool or folder:
            partial.append('%s but not %s' % ((files.show(family.tool), files.show(family.anchors)) if tool
                                              else (files.show(family.anchors), files.show(family.tool))))
    if len(found) == 1:
        return found[0]
    looked = ' and '.join('%s with the folder %s (%s)' % (files.show(f.tool), files.show(f.anchors), f.label)
                          for f in FAMILIES)
    if found:
        raise StoreError('Nothing was changed: this host has two trust stores, %s; which one its programs use cannot be '
                         'told, so no CA is written' % looked)
    seen = '; found %s' % ', '.join(partial) if partial else ''
    raise StoreError('Nothing was changed: no trust store found: looked for %s, and found neither pair%s. Install the '
                     'ca-certificates package, or give as root a tree that has it' % (looked, seen))


def anchor_path(family, name):
    return '%s/%s%s' % (family.anchors, name, family.suffix)


def render_anchor(name, certificate):
    """The bytes of the anchor file of ``certificate`` named ``name``: the same bytes for the same CA
    and name whatever form it was given in (PEM line length, CRLF), so a re-run changes nothing."""
    encoded = base64.b64encode(certificate.der)
    lines = [encoded[start:start + 64] for start in range(0, len(encoded), 64)]
    about = ('# ca_trust name: %s, SHA-256 %s' % (name, certificate.sha256_fingerprint)).encode('ascii')
    return b'\n'.join([MARKER, about, b'-----BEGIN CERTIFICATE-----'] + lines + [b'-----END CERTIFICATE-----', b''])


def is_ours(data):
    """Whether the anchor file ``data`` was written by this module (its first line is the marker)."""
    return data is not None and data.split(b'\n', 1)[0].rstrip(b'\r') == MARKER


def certificate_in(data):
    """The one certificate of an anchor file, or None (no file, or edited past reading)."""
    try:
        found = x509.load_certificates(data) if data else []
    except x509.CertificateError:
        return None
    return found[0] if len(found) == 1 else None


class AnchorPlan(writeplan.FilePlan):
    """What happens to one anchor file (FilePlan), with ``certificate``: the CA it is about (for a
    removal given without content, the one read from the file; None when there is neither)."""

    __slots__ = ('certificate',)
    MODE = ANCHOR_MODE

    def __init__(self, request, path, host, old):
        super(AnchorPlan, self).__init__(request, path, host, old)
        self.certificate = request.certificate

    @property
    def content_changed(self):
        """Whether the update must run: the bytes change (a mode or owner put right does not count)."""
        return self.changed and self.old != self.new


def plan_anchor(files, family, request, euid=0):
    """The AnchorPlan of one CaRequest; PlanError (the message names the item) when refused."""
    where = '%s (%s)' % (request.label, request.name)
    try:
        resolved = files.resolve(anchor_path(family, request.name), follow=False, folder_follow=False)
        old = files.read_at(resolved, MAX_ANCHOR_SIZE)
    except hostfiles.HostFileError as exc:
        raise PlanError('%s: %s' % (where, exc))
    item = AnchorPlan(request, resolved.real, resolved.host, old)
    if old is not None and not is_ours(old):
        raise PlanError('%s: %s exists but was not written by this module (its first line is not "%s"); it was left '
                        'alone. Move it away, or choose another name' % (where, resolved.real, MARKER.decode('ascii')))
    held = certificate_in(old)
    if request.state == 'absent':
        if request.certificate is not None and held is not None and \
                held.sha256_fingerprint != request.certificate.sha256_fingerprint:
            raise PlanError("%s: %s holds '%s', not the CA of %s.content ('%s'; their SHA-256 fingerprints differ), so "
                            "it was not removed. Check the name, or leave content out to remove the CA this module put "
                            "there" % (where, resolved.real, held.subject, request.label, request.certificate.subject))
        item.certificate = request.certificate or held
        item.action = 'removed' if old is not None else 'unchanged'
        return item
    unsafe = writeplan.unsafe_folder(os.path.dirname(resolved.real), euid)
    if unsafe:
        raise PlanError('%s: the folder %s is %s: whoever can write it could add a CA every program on the host '
                        'trusts, so nothing is written into it. Make it root:root 0755 (chown root:root; chmod 0755) and '
                        'run again' % (where, os.path.dirname(resolved.real), unsafe))
    try:
        clash = link_clash(files, family, request.name, resolved.host)
    except hostfiles.HostFileError as exc:
        raise PlanError('%s: %s' % (where, exc))
    if clash:
        raise PlanError('%s: %s' % (where, clash))
    item.new = render_anchor(request.name, request.certificate)
    if old is not None and resolved.exists:
        info = os.stat(resolved.real)
        item.old_mode = stat.S_IMODE(info.st_mode)
        item.old_owner = (info.st_uid, info.st_gid)
    if old is None:
        item.action = 'created'
    elif old != item.new or item.wrong_mode() or item.foreign_owner(euid):
        item.action = 'updated'
    return item


def link_clash(files, family, name, host):
    """Why Debian's ``update-ca-certificates`` would replace another file with its link
    ``/etc/ssl/certs/<name>.pem`` to this anchor (``ln -sf``), or None."""
    if family.hashed is None:
        return None
    link = '%s/%s.pem' % (family.hashed, name)
    kind, target = files.entry(family.hashed, name + '.pem')
    if kind is None or (kind == 'link' and target == host):
        return None
    what = 'a link to %s' % target if kind == 'link' else 'a %s' % kind
    return ('%s exists (%s), and update-ca-certificates would replace it with its link to %s; choose another name'
            % (files.show(link), what, files.show(host)))


def plan_anchors(files, family, requests, euid=0):
    """[AnchorPlan] of every request; PlanError listing every refused item."""
    plans = []
    errors = []
    for request in requests:
        try:
            plans.append(plan_anchor(files, family, request, euid))
        except PlanError as exc:
            errors.append(str(exc))
    if errors:
        raise PlanError('Nothing was changed: %s' % '; '.join(errors), errors)
    return plans


def update_command(family, actions, stale=False):
    """The argv of the update. Debian's tool, run plainly, neither rehashes after a removal nor
    after a file changed in place, and a dangling ``<hash>.0`` link hides the next ``<hash>.1``
    from OpenSSL: anything but new files (or a stale bundle) gets ``--fresh``."""
    argv = [family.tool] + list(family.arguments)
    if family.rebuild and (stale or set(actions) - set(['created'])):
        argv.append(family.rebuild)
    return argv


# --- the proof: where the host's Python looks, and what it finds there ---------------------------

class Group(object):
    """The CA ``file`` and ``folder`` (host paths, None when missing) some of the host's interpreters
    (``readers``) load by default, with the paths they resolve to (``file_real``, ``folder_real``)."""

    __slots__ = ('file', 'file_real', 'folder', 'folder_real', 'readers')

    def __init__(self, file_path, file_real, folder, folder_real, readers):
        self.file = file_path
        self.file_real = file_real
        self.folder = folder
        self.folder_real = folder_real
        self.readers = readers

    def public(self):
        return dict(file=self.file, file_real=self.file_real, folder=self.folder, folder_real=self.folder_real,
                    interpreters=self.readers)

    def describe(self):
        parts = []
        for path, real, kind in ((self.file, self.file_real, ''), (self.folder, self.folder_real, ' (<hash>.N links)')):
            if path:
                parts.append(path + (' -> %s' % real if real != path else '') + kind)
        readers = ' (read by %s)' % ', '.join(self.readers) if self.readers else ''
        return ' and '.join(parts) + readers


def _existing(files, path, folder):
    if not path:
        return None
    try:
        resolved = files.resolve(path, file_path=not folder)
    except hostfiles.HostFileError:
        return None
    if not resolved.exists or files.is_dir(resolved.host) != folder:
        return None
    return resolved.host


def groups_from_probe(files, results):
    """[Group] of the interpreters' answers (``interpreters.probe_verify_paths``): one per distinct
    pair of existing file and folder, in the order first seen; [] when none answered with one."""
    groups = []
    for result in results:
        if result.get('error'):
            continue
        file_real, folder_real = _existing(files, result.get('cafile'), False), _existing(files, result.get('capath'), True)
        if file_real is None and folder_real is None:
            continue
        for group in groups:
            if (group.file_real, group.folder_real) == (file_real, folder_real):
                group.readers.append(result['path'])
                break
        else:
            groups.append(Group(result['cafile'] if file_real else None, file_real,
                                result['capath'] if folder_real else None, folder_real, [result['path']]))
    return groups


def known_group(files, family):
    """The Group of the family's own bundle and hashed folder, read when no interpreter answered."""
    file_real, folder_real = _existing(files, family.bundle, False), _existing(files, family.hashed, True)
    return Group(family.bundle if file_real else None, file_real, family.hashed if folder_real else None, folder_real, [])


def locate(files, family, probed):
    """([Group], how they were found): where the probed interpreters (``probed``: the answers of
    ``interpreters.probe_verify_paths``) say OpenSSL looks (``probe``), or the family's own bundle
    and folder when none of them answered with a file or folder that exists (``known_paths``)."""
    groups = groups_from_probe(files, probed)
    if groups:
        return groups, 'probe'
    return [known_group(files, family)], 'known_paths'


class Proof(object):
    """What the bundle shows: ``in_bundle`` {name: True/False, or None when the CA is not known},
    ``wrong`` (names whose state the bundle contradicts), ``split`` {name: [Group not agreeing]}."""

    __slots__ = ('in_bundle', 'wrong', 'split')

    def __init__(self):
        self.in_bundle = {}
        self.wrong = []
        self.split = {}


def _in_folder(files, folder, certificate, cache):
    """Whether ``certificate`` is among the ``<subject hash>.N`` files of ``folder``, looked up as
    OpenSSL does: N from 0 up to the first name that is missing or leads nowhere."""
    prefix = x509.subject_hash(certificate)
    for index in range(MAX_HASH_LINKS):
        path = '%s/%s.%d' % (folder, prefix, index)
        if path not in cache:
            try:
                data = files.read(path, MAX_ANCHOR_SIZE)
            except hostfiles.HostFileError:
                data = None
            cache[path] = x509.fingerprints_in_bundle(data)[0] if data is not None else None
        if cache[path] is None:
            return False
        if certificate.sha256_fingerprint in cache[path]:
            return True
    return False


def prove(files, groups, wanted):
    """The Proof of ``wanted`` [(name, state, certificate or None)] in ``groups``: a CA is in the
    bundle when the file or the folder of any group holds it (by SHA-256 fingerprint)."""
    proof = Proof()
    cache = {}
    prints = []
    for group in groups:
        try:
            data = files.read(group.file_real) if group.file_real else None
        except hostfiles.HostFileError as exc:
            raise StoreError('cannot read the CA bundle: %s' % exc)
        prints.append(x509.fingerprints_in_bundle(data)[0] if data else set())
    for name, state, certificate in wanted:
        if certificate is None:
            proof.in_bundle[name] = None
            continue
        trusted = [certificate.sha256_fingerprint in found or
                   (group.folder_real is not None and _in_folder(files, group.folder_real, certificate, cache))
                   for group, found in zip(groups, prints)]
        proof.in_bundle[name] = any(trusted)
        if proof.in_bundle[name] != (state == 'present'):
            proof.wrong.append(name)
        if any(trusted) and not all(trusted):
            proof.split[name] = [group for group, seen in zip(groups, trusted) if seen != (state == 'present')]
    return proof


def shown(command):
    return ' '.join(command)


def proof_failure(command, proof, wanted, groups):
    """The message of a proof that does not show what the anchors say, after the update ran."""
    states = dict((name, state) for name, state, certificate in wanted)
    where = '; '.join(group.describe() for group in groups) or 'no CA file or folder'
    missing = [name for name in proof.wrong if states[name] == 'present']
    kept = [name for name in proof.wrong if states[name] == 'absent']
    parts = []
    if missing:
        parts.append('%s not in it' % ', '.join(missing))
    if kept:
        parts.append('%s still in it' % ', '.join(kept))
    return ('%s ran, but what the host\'s Python trusts (%s) does not show the change: %s. Look for the same CA in '
            'another anchor file, a blocklist, or a bundle the update does not write'
            % (shown(command), where, ' and '.join(parts)))


def settle(run_command, family, actions, open_files, find_groups, wanted):
    """Run the update and prove its result: (``update``, ``stale``, Proof, ([Group], found_by)).
    The update runs when anchor bytes changed (``actions``: the actions of those files), or when
    the bundle does not show what the anchors already say (a stale bundle: an earlier run's update
    failed or was left pending). ``run_command(argv)`` -> (rc, out, err); ``open_files()`` -> a
    new HostFiles (the update rewrites files a HostFiles keeps); ``find_groups(files)`` -> what
    ``locate`` returns. StoreError when the update fails or the bundle does not show the change
    after it."""
    stale = False
    if not actions:
        files = open_files()
        located = find_groups(files)
        proof = prove(files, located[0], wanted)
        if not proof.wrong:
            return 'not_needed', False, proof, located
        stale = True
    command = update_command(family, actions, stale)
    rc, out, err = run_command(command)
    if rc != 0:
        said = (err or out or '').strip().splitlines()
        raise StoreError('%s failed (exit %d): %s' % (shown(command), rc, said[-1] if said else 'no output'))
    files = open_files()
    located = find_groups(files)
    proof = prove(files, located[0], wanted)
    if proof.wrong:
        raise StoreError(proof_failure(command, proof, wanted, located[0]))
    return 'ran', stale, proof, located
