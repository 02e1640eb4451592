# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Throw-away file trees for tests: write files under a root, read them, snapshot them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat


def write(root, path, content, mode=None):
    """Write ``content`` (bytes) at ``path`` under ``root``, creating folders; returns the full path."""
    full = os.path.join(str(root), path.lstrip('/'))
    if not os.path.isdir(os.path.dirname(full)):
        os.makedirs(os.path.dirname(full))
    with open(full, 'wb') as handle:
        handle.write(content)
    if mode is not None:
        os.chmod(full, mode)
    return full


def write_tree(root, files):
    """Write each {path: content} of ``files`` under ``root``; returns the root as a string."""
    for path, content in files.items():
        write(root, path, content)
    return str(root)


def read(path):
    with open(path, 'rb') as handle:
        return handle.read()


def snapshot(root):
    """Every path under root with its mode, mtime and content, to prove nothing changed."""
    seen = {}
    for folder, dirs, files in os.walk(str(root)):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            content = read(path) if stat.S_ISREG(info.st_mode) else None
            seen[path] = (info.st_mode, info.st_mtime, content)
    return seen


def fake_proc(folder, processes):
    """A /proc stand-in: ``processes`` is {pid: (cgroup path, parent pid, environ dict or None)}
    (None: an environ that cannot be read). Returns the folder."""
    folder = str(folder)
    for pid, (cgroup, ppid, environ) in processes.items():
        base = os.path.join(folder, str(pid))
        os.makedirs(base)
        with open(os.path.join(base, 'cgroup'), 'wb') as handle:
            handle.write(('0::%s\n' % cgroup).encode('utf-8'))
        with open(os.path.join(base, 'stat'), 'wb') as handle:
            handle.write(('%d (some (odd) name) S %d 1 1 0\n' % (pid, ppid)).encode('utf-8'))
        if environ is None:
            os.makedirs(os.path.join(base, 'environ'))      # reading a folder fails like an unreadable file
        else:
            with open(os.path.join(base, 'environ'), 'wb') as handle:
                handle.write(b''.join(('%s=%s' % item).encode('utf-8') + b'\0' for item in sorted(environ.items())))
    return folder
