# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Containment under ``root``: a symlink anywhere under root that points outside it
(absolute or ../, directly or through another link) is refused, never followed, whatever
``follow`` says; nothing outside root is written. Without root, a symlinked file or folder
is refused unless ``follow``."""

import os

import pytest
from hypothesis import given, strategies as st

import fuzz_profiles
import harness
from ansible_collections.pep493.https.plugins.module_utils import safe_file

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
        os.symlink(real, link)
    elif kind == 'dotdot':
        os.symlink(os.path.relpath(real, os.path.dirname(link)), link)
    else:
        # a link to a link outside that points back inside: still a hop outside root
        inside = os.path.join(root, 'inside-target')
        os.makedirs(inside, exist_ok=True)
        hop = os.path.join(outside, 'hop')
        os.symlink(inside, hop)
        os.symlink(hop, link)
    return link


@pytest.mark.parametrize('module, follow', [('cert_verification', False), ('cert_verification', True),
                                            ('service_verification', None)])
def test_links_out_of_root_are_refused_at_every_level(tmp_path, module, follow):
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
        assert 'outside root' in run.msg and link in run.msg, (link_parts, kind, run.msg)
        assert (listing(outside), listing(root)) == before, (link_parts, kind)
        ran += 1
    assert ran == 3 * len(parts)


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


# --- property: resolve_path against the kernel ----------------------------------------------
NAMES = ['a', 'b', 'etc', 'python']
component = st.sampled_from(NAMES + ['..', '.'])
rel_target = st.lists(component, min_size=1, max_size=4).map('/'.join)


@st.composite
def trees(draw):
    """Folders and links under root and beside it ("outside"), links pointing anywhere."""
    entries = []
    for dummy in range(draw(st.integers(1, 7))):
        where = draw(st.sampled_from(['root', 'outside']))
        path = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
        kind = draw(st.sampled_from(['dir', 'rel', 'abs-root', 'abs-outside', 'abs-host']))
        target = draw(rel_target)
        entries.append((where, path, kind, target))
    query = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4))
    return entries, query


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
            else:
                os.symlink(link, full)
        except OSError:
            continue  # the parent is a dangling or looping link: nothing can be created there
    return root


def kernel_in_chroot(root, path):
    """What the path resolves to with ``root`` as the real root (the kernel clamps .. there)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.chroot(root)
            os.chdir('/')
            os.write(write, os.path.realpath(path).encode('utf-8', 'surrogateescape'))
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
    return b''.join(chunks).decode('utf-8', 'surrogateescape')


PROFILE = fuzz_profiles.PROFILE  # importing it loaded the hypothesis profile


@given(trees())
def test_resolve_path_never_leaves_root(tmp_path_factory, tree):
    entries, query = tree
    base = os.path.realpath(str(tmp_path_factory.mktemp('tree')))
    root = build(base, entries)
    path = '/' + '/'.join(query)
    host = os.path.realpath(root + path)
    chroot = os.path.normpath(root + kernel_in_chroot(root, path))
    try:
        got = safe_file.resolve_path(path, root, follow=True)
    except safe_file.SafeFileError as exc:
        assert 'outside root' in str(exc) or 'too many levels' in str(exc), exc
        return
    # accepted: where the host's kernel goes, and that is inside root
    assert got == host, (entries, path, got, host)
    assert got == root or got.startswith(root + '/'), (entries, path, got)
    # and, with no absolute link naming root's own host path, where a kernel confined to root
    # goes too (such a link means a host path: followed only while it stays inside root)
    if not any(kind == 'abs-root' for where, p, kind, t in entries):
        assert got == chroot, (entries, path, got, chroot)


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
