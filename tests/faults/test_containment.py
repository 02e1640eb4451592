# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Containment under ``root``, with chroot semantics: an absolute link is followed inside root,
a ".." that would climb above root is refused, a link at the file or its folder needs
``follow``; nothing outside root is ever read or written. The resolver (hostfiles) is compared
with the kernel itself: a real chroot in a child process, on generated trees."""

import errno
import os
import stat

import pytest
from hypothesis import given, strategies as st

import fuzz_profiles
import harness
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import paths as hostpath

CFG = ('etc', 'python', 'cert-verification.cfg')
DROPIN = ('etc', 'systemd', 'system', 'legacy-app.service.d', 'zz-pep493-https.conf')
MODULES = {
    'cert_verification': (CFG, dict(verify='enable')),
    'service_verification': (DROPIN, dict(name='legacy-app', verify=False, reason='vendor CA')),
}


def listing(folder):
    seen = []
    for dirpath, dirs, files in os.walk(folder):
        seen.extend(os.path.join(dirpath, name) for name in dirs + files)
    return sorted(seen)


def layouts(parts):
    """(where the link is, what it points to) for every level of the path."""
    cases = []
    for level in range(1, len(parts) + 1):
        link = parts[:level]
        cases.append((link, 'absolute'))
        cases.append((link, 'dotdot'))
        cases.append((link, 'out-and-back'))
    return cases


def make_link(root, outside, link_parts, kind):
    link = os.path.join(root, *link_parts)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    real = os.path.join(outside, *link_parts[-1:])
    os.makedirs(real, exist_ok=True)
    if kind == 'absolute':
        # the host path of a folder outside root: under root it names root + that path
        os.symlink(real, link)
    elif kind == 'dotdot':
        os.symlink(os.path.relpath(real, os.path.dirname(link)), link)
    else:
        # a link to a link outside that points back inside: inside root neither exists
        inside = os.path.join(root, 'inside-target')
        os.makedirs(inside, exist_ok=True)
        hop = os.path.join(outside, 'hop')
        os.symlink(inside, hop)
        os.symlink(hop, link)
    return link


@pytest.mark.parametrize('module, follow', [('cert_verification', False), ('cert_verification', True),
                                            ('service_verification', None)])
def test_links_out_of_root_are_never_followed_out_at_any_level(tmp_path, module, follow):
    parts, args = MODULES[module]
    ran = 0
    for index, (link_parts, kind) in enumerate(layouts(parts)):
        case = tmp_path / ('case%d' % index)
        root, outside = str(case / 'root'), str(case / 'outside')
        os.makedirs(root)
        os.makedirs(outside)
        link = make_link(root, outside, link_parts, kind)
        before = listing(outside), listing(root)
        extra = dict(follow=follow) if follow is not None else {}
        run = harness.run(module, dict(args, root=root, **extra), timeout=30)
        assert run.failed, (link_parts, kind, run)
        expected = {'dotdot': 'outside root', 'absolute': 'which does not exist', 'out-and-back': 'which does not exist'}
        at_file_or_folder = len(link_parts) >= len(parts) - 1 and not follow
        assert (': refused' in run.msg) if at_file_or_folder else (expected[kind] in run.msg), (link_parts, kind, run.msg)
        assert link in run.msg, (link_parts, kind, run.msg)
        assert (listing(outside), listing(root)) == before, (link_parts, kind)
        ran += 1
    assert ran == 3 * len(parts)


def test_an_absolute_link_leads_inside_root(tmp_path):
    root = str(tmp_path / 'root')
    os.makedirs(os.path.join(root, 'srv', 'python'))
    os.makedirs(os.path.join(root, 'etc'))
    os.symlink('/srv/python', os.path.join(root, 'etc', 'python'))
    outside_before = listing(str(tmp_path))
    run = harness.run('cert_verification', dict(verify='enable', root=root, follow=True), timeout=30)
    assert run.ok, run
    assert run.result['path'] == os.path.join(os.path.realpath(root), 'srv', 'python', 'cert-verification.cfg')
    new = set(listing(str(tmp_path))) - set(outside_before)
    assert new == {os.path.join(root, 'srv', 'python', 'cert-verification.cfg')}


def test_without_root_a_symlinked_file_or_folder_needs_follow(tmp_path):
    real = tmp_path / 'real'
    real.mkdir()
    os.symlink(str(real), str(tmp_path / 'python'))
    path = str(tmp_path / 'python' / 'cert-verification.cfg')
    run = harness.run('cert_verification', dict(path=path, verify='enable'), timeout=60)
    assert run.failed and 'its folder' in run.msg and 'follow=true' in run.msg, run
    assert os.listdir(str(real)) == []
    run = harness.run('cert_verification', dict(path=path, verify='enable', follow=True), timeout=60)
    assert run.ok and run.result['path'] == str(real / 'cert-verification.cfg'), run


# --- property: the resolver against the kernel ------------------------------------------------
NAMES = ['a', 'b', 'etc', 'python']
component = st.sampled_from(NAMES + ['..', '.'])
rel_target = st.lists(component, min_size=1, max_size=4).map('/'.join)


@st.composite
def trees(draw):
    """Folders, files and links under root and beside it ("outside"), links pointing anywhere."""
    entries = []
    for dummy in range(draw(st.integers(1, 8))):
        where = draw(st.sampled_from(['root', 'outside']))
        path = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
        kind = draw(st.sampled_from(['dir', 'dir', 'file', 'rel', 'abs-root', 'abs-outside', 'abs-host']))
        target = draw(rel_target)
        entries.append((where, path, kind, target))
    query = draw(st.lists(st.sampled_from(NAMES + ['..', '.']), max_size=4)) + [draw(st.sampled_from(NAMES))]
    follow = draw(st.booleans())
    return entries, query, follow


def build(base, entries):
    root, outside = os.path.join(base, 'root'), os.path.join(base, 'outside')
    os.makedirs(root)
    os.makedirs(outside)
    for where, path, kind, target in entries:
        full = os.path.join(root if where == 'root' else outside, *path)
        parent = os.path.dirname(full)
        if os.path.lexists(full) or not os.path.isdir(os.path.realpath(parent)):
            continue
        if not os.path.realpath(parent).startswith(base + '/'):
            continue  # never create anything outside the test's folder
        link = {'rel': target, 'abs-root': os.path.join(root, target), 'abs-outside': os.path.join(outside, target),
                'abs-host': '/' + target}.get(kind)
        try:
            if kind == 'dir':
                os.mkdir(full)
            elif kind == 'file':
                with open(full, 'wb') as handle:
                    handle.write(b'x')
            else:
                os.symlink(link, full)
        except OSError:
            continue  # the parent is a dangling or looping link: nothing can be created there
    return root


def kernel_in_chroot(root, path, follow):
    """What the kernel does with ``path`` when ``root`` is ``/``: ('ok', dev, ino) of what it
    names (the link itself without ``follow``), ('created', dev, ino) where open(O_CREAT) put a
    missing file, or ('error', errno)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.chroot(root)
            os.chdir('/')
            flags = os.O_PATH | (0 if follow else os.O_NOFOLLOW)
            try:
                fd = os.open(path, flags)
                answer = 'ok'
            except OSError as exc:
                answer = 'error %d' % exc.errno
                if exc.errno == errno.ENOENT:
                    try:
                        fd = os.open(path, os.O_RDONLY | os.O_CREAT | (0 if follow else os.O_NOFOLLOW), 0o600)
                        answer = 'created'
                    except OSError as second:
                        answer = 'error %d' % second.errno
            if not answer.startswith('error'):
                info = os.fstat(fd)
                answer = '%s %d %d %d' % (answer, info.st_dev, info.st_ino, stat.S_ISLNK(info.st_mode))
            os.write(write, answer.encode('ascii'))
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    fields = b''.join(chunks).decode('ascii').split()
    if fields[0] == 'error':
        return fields[0], int(fields[1])
    return fields[0], int(fields[1]), int(fields[2]), bool(int(fields[3]))


def climbs_above_root(root, path):
    """An openat-style walk with the kernel's own primitives (lstat, readlink), one component at
    a time: does it take ".." at the root, where a chroot would silently stay?"""
    pending = [part for part in path.split('/') if part not in ('', '.')]
    stack = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part == '..':
            if not stack:
                return True
            stack.pop()
            continue
        full = os.path.join(root, *(stack + [part]))
        try:
            info = os.lstat(full)
        except OSError:
            return False
        if stat.S_ISLNK(info.st_mode):
            hops += 1
            if hops > hostpath.MAX_LINKS:
                return False
            target = os.readlink(full)
            if target.startswith('/'):
                stack = []
            pending = [p for p in target.split('/') if p not in ('', '.')] + pending
        elif stat.S_ISDIR(info.st_mode):
            stack.append(part)
        else:
            return False
    return False


PROFILE = fuzz_profiles.PROFILE  # importing it loaded the hypothesis profile


@given(trees())
def test_the_resolver_walks_as_the_kernel_does(tmp_path_factory, tree):
    entries, query, follow = tree
    base = os.path.realpath(str(tmp_path_factory.mktemp('tree')))
    root = build(base, entries)
    path = '/' + '/'.join(query)
    outside_before = listing(os.path.join(base, 'outside'))
    try:
        found = hostfiles.HostFiles(root).resolve(path, follow=follow, file_path=False)
    except hostfiles.HostFileError as exc:
        found = exc
    kernel = kernel_in_chroot(root, path, follow)
    assert listing(os.path.join(base, 'outside')) == outside_before
    if isinstance(found, hostfiles.HostFileError):
        if found.reason == 'above-root':
            assert climbs_above_root(root, path), (entries, path, str(found))
        elif found.reason == 'loop':
            assert kernel == ('error', errno.ELOOP), (entries, path, kernel)
        elif found.reason == 'not-a-folder':
            assert kernel == ('error', errno.ENOTDIR), (entries, path, kernel)
        elif found.reason == 'link-refused':
            # without follow, a link as the last name is refused: the kernel names the link itself
            assert not follow and kernel[0] == 'ok' and kernel[3], (entries, path, kernel)
        else:
            assert found.reason == 'dangling' and kernel[0] == 'error', (entries, path, str(found), kernel)
        return
    assert found.real == root or found.real.startswith(root + '/'), (entries, path, found.real)
    assert not climbs_above_root(root, path), (entries, path)
    if found.exists:
        info = os.stat(found.real)
        assert kernel[:3] == ('ok', info.st_dev, info.st_ino), (entries, path, found.real, kernel)
    elif kernel[0] == 'created':
        # a missing last name: the kernel created it exactly where the resolver said
        info = os.lstat(found.real)
        assert kernel[:3] == ('created', info.st_dev, info.st_ino), (entries, path, found.real, kernel)
    else:
        # several names missing: the writer creates the folders (mkdir -p); open() alone cannot
        assert kernel == ('error', errno.ENOENT), (entries, path, found.real, kernel)
        assert not os.path.lexists(os.path.dirname(found.real)), (entries, path, found.real)


def test_a_hard_link_is_split_not_written_through(tmp_path):
    root, outside = str(tmp_path / 'root'), str(tmp_path / 'outside.cfg')
    with open(outside, 'wb') as handle:
        handle.write(b'[https]\nverify=disable\n')
    os.makedirs(os.path.join(root, 'etc', 'python'))
    os.link(outside, os.path.join(root, *CFG))
    run = harness.run('cert_verification', dict(root=root, verify='enable'), timeout=30)
    assert run.ok, run
    with open(outside, 'rb') as handle:
        assert handle.read() == b'[https]\nverify=disable\n'
    assert os.stat(outside).st_nlink == 1
