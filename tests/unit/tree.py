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
