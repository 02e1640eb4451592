# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host-files layer: path resolution under root as the kernel walks it, the reader that
never blocks nor truncates, the overlay of planned files, and glob(3)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import socket
import threading

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host.files import HostFileError, HostFiles
from ansible_collections.pep493.https.tests.unit.tree import write


def link(root, path, target):
    full = os.path.join(str(root), path.lstrip('/'))
    if not os.path.isdir(os.path.dirname(full)):
        os.makedirs(os.path.dirname(full))
    os.symlink(target, full)
    return full


def reason(call, *args, **kwargs):
    with pytest.raises(HostFileError) as info:
        call(*args, **kwargs)
    return info.value.reason, str(info.value)


# --- resolution -----------------------------------------------------------------------------------

def test_plain_paths_and_missing_components(tmp_path):
    write(tmp_path, '/etc/python/cert-verification.cfg', b'x')
    files = HostFiles(str(tmp_path))
    found = files.resolve('/etc/python/cert-verification.cfg')
    assert found.exists and found.host == '/etc/python/cert-verification.cfg'
    assert found.real == os.path.join(os.path.realpath(str(tmp_path)), 'etc/python/cert-verification.cfg')
    missing = files.resolve('/etc/new/folder/file.conf')
    assert not missing.exists and missing.host == '/etc/new/folder/file.conf' and missing.dangling is None
    assert files.resolve('/etc/./python//cert-verification.cfg').host == '/etc/python/cert-verification.cfg'


def test_an_absolute_link_is_followed_inside_root(tmp_path):
    write(tmp_path, '/srv/conf/app.env', b'A=1\n')
    link(tmp_path, '/etc/app', '/srv/conf')
    files = HostFiles(str(tmp_path))
    assert files.resolve('/etc/app/app.env').host == '/srv/conf/app.env'
    assert files.read('/etc/app/app.env') == b'A=1\n'


def test_dotdot_after_a_link_applies_to_its_target(tmp_path):
    write(tmp_path, '/srv/deep/x', b'deep')
    write(tmp_path, '/etc/x', b'etc')
    link(tmp_path, '/etc/link', '../srv/deep/inner')
    os.makedirs(os.path.join(str(tmp_path), 'srv/deep/inner'))
    files = HostFiles(str(tmp_path))
    # lexically etc/link/../x would be etc/x; the kernel goes to srv/deep/x
    assert files.resolve('/etc/link/../x').host == '/srv/deep/x'
    assert files.read('/etc/link/../x') == b'deep'


def test_dotdot_above_root_is_refused(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'etc'))
    link(tmp_path, '/etc/up', '../../../../../../../..')
    files = HostFiles(str(tmp_path))
    why, message = reason(files.resolve, '/etc/up/passwd')
    assert why == 'above-root' and 'is a symbolic link to ../../../../../../../.., outside root' in message
    why, message = reason(files.resolve, '/../etc/passwd')
    assert why == 'above-root' and 'climbs above root' in message
    # on the host itself "/.." is "/", as for the kernel
    assert HostFiles().resolve('/../etc').host == '/etc'


def test_a_link_through_a_regular_file_is_enotdir(tmp_path):
    write(tmp_path, '/srv/plain', b'x')
    link(tmp_path, '/etc/python', '/srv/plain')
    files = HostFiles(str(tmp_path))
    why, message = reason(files.resolve, '/etc/python/cert-verification.cfg')
    assert why == 'not-a-folder'
    assert message == ('/etc/python/cert-verification.cfg: /srv/plain (through the link /etc/python) '
                       'is a file, not a folder')
    write(tmp_path, '/etc/file', b'x')
    assert reason(files.resolve, '/etc/file/x')[0] == 'not-a-folder'


def test_a_trailing_slash_on_a_file_path_is_refused(tmp_path):
    write(tmp_path, '/etc/file', b'x')
    files = HostFiles(str(tmp_path))
    assert reason(files.resolve, '/etc/file/')[0] == 'trailing-slash'
    assert files.resolve('/etc/', file_path=False).host == '/etc'


def test_relative_paths_are_refused(tmp_path):
    assert reason(HostFiles(str(tmp_path)).resolve, 'etc/x')[0] == 'relative'


def test_loops_are_refused_and_forty_links_are_not(tmp_path):
    files = HostFiles(str(tmp_path))
    link(tmp_path, '/etc/a', 'b')
    link(tmp_path, '/etc/b', 'a')
    why, message = reason(files.resolve, '/etc/a/x')
    assert why == 'loop' and 'too many levels of symbolic links under root' in message
    os.makedirs(os.path.join(str(tmp_path), 'chain'))
    for n in range(40):
        link(tmp_path, '/chain/l%d' % n, 'l%d' % (n + 1))
    write(tmp_path, '/chain/l40', b'end')
    assert files.read('/chain/l0') == b'end'
    link(tmp_path, '/chain/m', 'l0')
    assert reason(files.read, '/chain/m')[0] == 'loop'


def test_links_at_the_file_or_its_folder_are_refused_unless_followed(tmp_path):
    write(tmp_path, '/etc/real/x.cfg', b'x')
    link(tmp_path, '/etc/python', 'real')
    link(tmp_path, '/etc/real/y.cfg', 'x.cfg')
    files = HostFiles(str(tmp_path), show_real=True)
    why, message = reason(files.resolve, '/etc/python/x.cfg', follow=False, folder_follow=False)
    assert why == 'link-refused' and message.endswith('/etc/python (its folder) is a symbolic link to real: refused')
    why, message = reason(files.resolve, '/etc/real/y.cfg', follow=False, folder_follow=False)
    assert message.endswith('/etc/real/y.cfg (the file) is a symbolic link to x.cfg: refused')
    assert files.resolve('/etc/python/x.cfg').host == '/etc/real/x.cfg'


def test_dangling_links(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'etc'))
    link(tmp_path, '/etc/gone.cfg', '/srv/new.cfg')
    link(tmp_path, '/etc/gonedir', '/srv/nowhere')
    os.makedirs(os.path.join(str(tmp_path), 'srv'))
    files = HostFiles(str(tmp_path))
    final = files.resolve('/etc/gone.cfg')
    # the file itself: followed to where it would be created, as open(O_CREAT) does
    assert not final.exists and final.host == '/srv/new.cfg' and final.dangling == ('/etc/gone.cfg', '/srv/new.cfg')
    why, message = reason(files.read, '/etc/gone.cfg')
    assert message == '/etc/gone.cfg is a symbolic link to /srv/new.cfg, which does not exist'
    # a folder: nothing can be created through it
    why, message = reason(files.resolve, '/etc/gonedir/x.cfg')
    assert why == 'dangling' and message == '/etc/gonedir is a symbolic link to /srv/nowhere, which does not exist'


def test_a_link_to_dev_null_reads_as_empty(tmp_path):
    link(tmp_path, '/etc/systemd/system/masked.service', '/dev/null')
    files = HostFiles(str(tmp_path))
    assert files.read('/etc/systemd/system/masked.service') == b''
    assert HostFiles().read('/dev/null') == b''


# --- the reader -----------------------------------------------------------------------------------

def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'srv'))
    os.mkfifo(os.path.join(str(tmp_path), 'srv', 'fifo'))
    files = HostFiles(str(tmp_path))
    done = []

    def attempt():
        done.append(reason(files.read, '/srv/fifo'))
        done.append(files.head('/srv/fifo'))
    worker = threading.Thread(target=attempt)
    worker.daemon = True
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), 'reading a FIFO blocked'
    assert done[0] == ('not-regular', '/srv/fifo is not a regular file (a FIFO); remove it or point the module '
                                      'elsewhere')
    assert done[1] is None


def test_a_socket_and_a_directory_are_refused(tmp_path):
    os.makedirs(os.path.join(str(tmp_path), 'run'))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(os.path.join(str(tmp_path), 'run', 'sock'))
        files = HostFiles(str(tmp_path))
        assert 'a socket' in reason(files.read, '/run/sock')[1]
    finally:
        server.close()
    assert reason(HostFiles(str(tmp_path)).read, '/run') == ('directory', '/run is a directory, not a file')


def test_a_file_over_the_limit_is_too_large_never_half_read(tmp_path):
    write(tmp_path, '/etc/big', b'x' * 101)
    files = HostFiles(str(tmp_path))
    why, message = reason(files.read, '/etc/big', limit=100)
    assert why == 'too-large' and message == '/etc/big is too large (101 bytes; files over 100 bytes are not read)'
    assert files.read('/etc/big', limit=101) == b'x' * 101
    assert hostfiles.MAX_FILE_SIZE >= 4 * 1024 * 1024


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 300000))
def test_the_result_never_depends_on_the_size_below_the_limit(size):
    import tempfile
    import shutil
    root = tempfile.mkdtemp(prefix='pep493-hf-')
    try:
        content = (b'0123456789abcdef' * (size // 16 + 1))[:size]
        write(root, '/etc/file', content)
        assert HostFiles(root).read('/etc/file', limit=300000) == content
    finally:
        shutil.rmtree(root)


def test_unreadable_files_say_what_to_do(tmp_path):
    if os.geteuid() == 0:
        pytest.skip('root reads every file')
    write(tmp_path, '/etc/secret', b'x', 0o000)
    assert 'permission denied' in reason(HostFiles(str(tmp_path)).read, '/etc/secret')[1]


def test_missing_files_are_none(tmp_path):
    files = HostFiles(str(tmp_path))
    assert files.read('/etc/none') is None and files.stat('/etc/none') is None
    assert files.listdir('/etc/none') is None and not files.exists('/etc/none')


def test_head_reads_the_start_of_a_file(tmp_path):
    write(tmp_path, '/usr/bin/agent', b'#!/usr/bin/python2.7\n' + b'x' * 1000)
    files = HostFiles(str(tmp_path))
    assert files.head('/usr/bin/agent') == (b'#!/usr/bin/python2.7\n' + b'x' * 1000)[:256]
    assert files.head('/usr/bin/none') is None


# --- listing, the overlay, glob -------------------------------------------------------------------

def test_listdir_and_entries(tmp_path):
    write(tmp_path, '/etc/systemd/system/a.service', b'')
    os.makedirs(os.path.join(str(tmp_path), 'etc/systemd/system/a.service.d'))
    link(tmp_path, '/etc/systemd/system/b.service', '/dev/null')
    files = HostFiles(str(tmp_path))
    assert files.listdir('/etc/systemd/system') == ['a.service', 'a.service.d', 'b.service']
    assert files.entry('/etc/systemd/system', 'b.service') == ('link', '/dev/null')
    assert files.entry('/etc/systemd/system', 'a.service.d') == ('dir', None)
    assert files.entry('/etc/systemd/system', 'none') == (None, None)
    write(tmp_path, '/etc/file', b'')
    assert reason(files.listdir, '/etc/file')[1] == '/etc/file is not a folder'


def test_a_walked_folder_takes_the_short_way_with_the_same_answers(tmp_path):
    # once a folder is walked, its files are opened without following a last link; a link
    # there still takes the full walk, inside root
    write(tmp_path, '/etc/systemd/system/a.service', b'plain')
    write(tmp_path, '/srv/b.service', b'inside root')
    link(tmp_path, '/etc/systemd/system/b.service', '/srv/b.service')
    link(tmp_path, '/etc/systemd/system/c.service.d', '/srv/c.d')
    write(tmp_path, '/srv/c.d/x.conf', b'linked folder')
    write(tmp_path, '/etc/systemd/system/d.service.d/x.conf', b'real folder')
    link(tmp_path, '/etc/systemd/system/up.service', '../../../../../srv/b.service')
    os.mkfifo(os.path.join(str(tmp_path), 'etc/systemd/system/fifo.service'))
    files = HostFiles(str(tmp_path))
    names = files.listdir('/etc/systemd/system')
    assert names == ['a.service', 'b.service', 'c.service.d', 'd.service.d', 'fifo.service', 'up.service']
    assert files.read('/etc/systemd/system/a.service') == b'plain'
    assert files.read('/etc/systemd/system/b.service') == b'inside root'
    assert files.read('/etc/systemd/system/none.service') is None
    assert files.listdir('/etc/systemd/system/c.service.d') == ['x.conf']
    assert files.read('/etc/systemd/system/c.service.d/x.conf') == b'linked folder'
    assert files.listdir('/etc/systemd/system/d.service.d') == ['x.conf']
    assert files.read('/etc/systemd/system/d.service.d/x.conf') == b'real folder'
    assert files.listdir('/etc/systemd/system/none.d') is None
    assert reason(files.read, '/etc/systemd/system/up.service')[0] == 'above-root'
    assert reason(files.read, '/etc/systemd/system/fifo.service')[0] == 'not-regular'
    assert files.head('/etc/systemd/system/b.service') == b'inside root'
    # stat() after a read answers for the file read, a link followed inside root
    assert files.stat('/etc/systemd/system/b.service').st_size == len(b'inside root')
    assert files.stat('/etc/systemd/system/a.service').st_size == len(b'plain')
    assert files.stat('/etc/systemd/system/none.service') is None
    # entry() answers from the listing as it would from lstat
    fresh = HostFiles(str(tmp_path))
    for name in names + ['none']:
        assert files.entry('/etc/systemd/system', name) == fresh.entry('/etc/systemd/system', name)
    assert files.entry('/etc/systemd/system', 'fifo.service') == ('other', None)
    assert files.entry('/etc/systemd/system', 'c.service.d') == ('link', '/srv/c.d')
    # a folder already listed resolves without a new walk, to where the walk leads
    for folder in ('/etc/systemd/system/c.service.d', '/etc/systemd/system/d.service.d', '/etc/systemd/system'):
        walked, walks = files.resolve(folder, file_path=False), HostFiles(str(tmp_path)).resolve(folder, file_path=False)
        assert (walked.real, walked.host, walked.exists, walked.dangling) == (walks.real, walks.host, True, None)
    assert files.resolve('/etc/systemd/system/c.service.d', file_path=False).host == '/srv/c.d'


def test_folders_of_the_host_itself_list_alike_once_their_parent_is_listed(tmp_path):
    # without root, a folder the parent's listing calls a folder is listed by its path; a link
    # to a folder still leads to its target, and what changes after the parent's listing counts
    base = str(tmp_path)
    os.makedirs(os.path.join(base, 'units', 'a.service.d'))
    os.makedirs(os.path.join(base, 'elsewhere', 'b.d'))
    for folder, name in (('units/a.service.d', 'x.conf'), ('elsewhere/b.d', 'y.conf')):
        with open(os.path.join(base, folder, name), 'w') as handle:
            handle.write('[Service]\n')
    os.symlink(os.path.join(base, 'elsewhere', 'b.d'), os.path.join(base, 'units', 'b.service.d'))
    os.makedirs(os.path.join(base, 'units', 'gone.service.d'))
    files = HostFiles()
    assert files.listdir(base + '/units') == ['a.service.d', 'b.service.d', 'gone.service.d']
    os.rmdir(os.path.join(base, 'units', 'gone.service.d'))
    assert files.listdir(base + '/units/a.service.d') == ['x.conf']
    assert files.listdir(base + '/units/b.service.d') == ['y.conf']
    assert files.listdir(base + '/units/gone.service.d') is None
    assert files.resolve(base + '/units/a.service.d', file_path=False).host == base + '/units/a.service.d'
    assert files.resolve(base + '/units/b.service.d', file_path=False).host == base + '/elsewhere/b.d'
    assert files.read(base + '/units/a.service.d/x.conf') == b'[Service]\n'


def test_dev_null_reads_empty_also_once_its_folder_is_walked(tmp_path):
    # a unit masked by a link to /dev/null has /dev/null as its fragment: it reads as empty
    # (systemd's null_or_empty), whatever is at <root>/dev/null and however /dev was reached
    write(tmp_path, '/dev/null', b'not what /dev/null reads')
    write(tmp_path, '/dev/other', b'x')
    link(tmp_path, '/etc/devices', '/dev')
    files = HostFiles(str(tmp_path))
    assert files.listdir('/dev') == ['null', 'other'] and files.listdir('/etc/devices') == ['null', 'other']
    assert files.read('/dev/other') == b'x'
    assert files.read('/dev/null') == b''
    assert files.read('/etc/devices/null') == b''


@pytest.mark.parametrize('size', [0, 1, 255, 65535, 65536, 65537, 200000])
def test_files_are_read_whole_around_the_read_sizes(tmp_path, size):
    content = (b'0123456789abcdef' * (size // 16 + 1))[:size]
    write(tmp_path, '/etc/systemd/system/a.service', content)
    files = HostFiles(str(tmp_path))
    files.listdir('/etc/systemd/system')
    assert files.read('/etc/systemd/system/a.service') == content
    assert files.stat('/etc/systemd/system/a.service').st_size == size


def test_the_overlay_adds_changes_and_removes_files(tmp_path):
    write(tmp_path, '/etc/systemd/system/a.service.d/10-x.conf', b'old')
    write(tmp_path, '/etc/systemd/system/a.service.d/zz.conf', b'ours')
    files = HostFiles(str(tmp_path), overlay={
        '/etc/systemd/system/a.service.d/zz.conf': None,
        '/etc/systemd/system/a.service.d/10-x.conf': b'new',
        '/etc/systemd/system/b.service.d/zz.conf': b'added'})
    assert files.read('/etc/systemd/system/a.service.d/10-x.conf') == b'new'
    assert files.read('/etc/systemd/system/a.service.d/zz.conf') is None
    assert files.listdir('/etc/systemd/system/a.service.d') == ['10-x.conf']
    assert files.listdir('/etc/systemd/system') == ['a.service.d', 'b.service.d']
    assert files.listdir('/etc/systemd/system/b.service.d') == ['zz.conf']
    assert files.is_dir('/etc/systemd/system/b.service.d') and files.exists('/etc/systemd/system/b.service.d/zz.conf')
    assert files.glob('/etc/systemd/system/*.service.d/zz.conf') == ['/etc/systemd/system/b.service.d/zz.conf']


def test_glob_as_glob3(tmp_path):
    for name in ('20-b.env', '10-a.env', '.hidden.env', 'c.conf', 'x[1].env'):
        write(tmp_path, '/etc/app/' + name, b'')
    os.makedirs(os.path.join(str(tmp_path), 'etc/app/dir.env'))
    files = HostFiles(str(tmp_path))
    assert files.glob('/etc/app/*.env') == ['/etc/app/10-a.env', '/etc/app/20-b.env', '/etc/app/dir.env',
                                            '/etc/app/x[1].env']
    assert files.glob('/etc/app/.*.env') == ['/etc/app/.hidden.env']
    assert files.glob('/etc/app/[12]0-?.env') == ['/etc/app/10-a.env', '/etc/app/20-b.env']
    assert files.glob('/etc/app/[!1]*.env') == ['/etc/app/20-b.env', '/etc/app/dir.env', '/etc/app/x[1].env']
    assert files.glob('/etc/app/x\\[1\\].env') == ['/etc/app/x[1].env']
    assert files.glob('/etc/*/c.conf') == ['/etc/app/c.conf']
    assert files.glob('/etc/none/*.env') == [] and files.glob('/etc/app/none.env') == []
    assert files.glob('/etc/app/c.conf') == ['/etc/app/c.conf']


def test_root_must_be_a_folder(tmp_path):
    why, message = reason(HostFiles, str(tmp_path / 'nowhere'))
    assert why == 'root' and 'is not a directory' in message
