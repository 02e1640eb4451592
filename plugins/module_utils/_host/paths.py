# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Paths of the host, under an optional ``root``: the one path resolution every module uses,
for reading and for writing (``hostfiles`` reads through it).

``root`` has chroot semantics: a path is walked component by component as the kernel walks it
with ``root`` as ``/``. A symbolic link's target replaces the link in the walk, so ``..`` after
a link applies to the link's target; an absolute target starts again at ``root``; a link to a
regular file used as a folder is ENOTDIR; more than 40 links in one walk is a loop (the kernel's
MAXSYMLINKS). Unlike the kernel, which stops ``..`` at the root without a word, a ``..`` that
would climb above ``root`` is refused: under ``root`` nothing is ever read or written outside it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting

MAX_LINKS = 40          # the kernel's MAXSYMLINKS
DEV_NULL = '/dev/null'
# An empty root would mean the host itself: refused rather than guessed.
EMPTY_ROOT = 'root is empty (""); give the folder that stands for / (an image build tree), or leave root unset for this host'


def root_error(root):
    """What is wrong with a module's ``root`` option, or None: the one check every module makes
    (None is the host itself; "" is refused; anything else must be a folder)."""
    if root is None:
        return None
    if not root:
        return EMPTY_ROOT
    if not os.path.isdir(os.path.realpath(root)):
        return ('root %s is not a directory; give the folder that stands for / (an image build tree), or leave '
                'root unset for this host' % quoting.show(root))
    return None


class HostFileError(Exception):
    """A path or file that cannot be used, with a message meant for the operator.

    ``reason`` names the case: ``loop``, ``above-root``, ``not-a-folder``, ``dangling``,
    ``link-refused``, ``trailing-slash``, ``relative``, ``directory``, ``not-regular``,
    ``too-large``, ``unreadable``, ``root``.
    """

    def __init__(self, message, reason=None):
        super(HostFileError, self).__init__(message)
        self.reason = reason


class Resolved(object):
    """Where a host path leads: ``real`` (the path to open on this machine), ``host`` (the same
    path as seen inside ``root``), whether it ``exists``, and ``dangling`` ((link, target) when
    the walk ended at a missing name reached through a symbolic link)."""

    __slots__ = ('real', 'host', 'exists', 'dangling', 'is_null')

    def __init__(self, real, host, exists, dangling=None, is_null=False):
        self.real = real
        self.host = host
        self.exists = exists
        self.dangling = dangling
        self.is_null = is_null


class HostPaths(object):
    """Paths of the host, or of a tree treated as ``/`` (``root``).

    ``show_real``: messages name the real paths (``<root>/etc/...``, what the writing modules
    report) instead of the host paths (``/etc/...``, what the audit reports).

    Path resolutions are kept for the life of the object (a module run reads a host that does
    not change under it); take a new one after writing.
    """

    def __init__(self, root=None, show_real=False):
        error = root_error(root)
        if error:
            raise HostFileError(error, 'root')
        if root:
            real_root = os.path.realpath(root)
            # root "/" is the host itself
            self.root = real_root if real_root != '/' else None
        else:
            self.root = None
        self.show_real = show_real
        self._folders = {}      # host folder (no "." or "..") -> the folder it resolves to
        self._resolved = {}     # resolve() arguments -> Resolved: the files do not change during a run

    # --- paths ----------------------------------------------------------------------------------

    def real(self, host):
        """The real path of the host path ``host`` (no resolution)."""
        if not self.root:
            return host
        return self.root + host if host != '/' else self.root

    def host(self, real):
        """The host path of the real path ``real`` (inside root)."""
        if not self.root:
            return real
        if real == self.root:
            return '/'
        return real[len(self.root):]

    def show(self, host):
        return self.real(host) if self.show_real else host

    def resolve(self, path, follow=True, folder_follow=True, file_path=True):
        """Walk ``path`` as the kernel would under ``root``; returns a Resolved.

        ``follow``: a symbolic link as the last component is followed (else it is refused);
        ``folder_follow``: likewise for the component before it (the file's folder). Links
        further up are always followed. A missing component ends the walk (the rest is what
        would be created), except where a link pointed at it and more follows (refused: the
        kernel cannot create anything through a dangling link there).
        """
        if not isinstance(path, str) and not _is_text(path):
            raise HostFileError('path %s is not a string' % quoting.show(path), 'relative')
        if not path.startswith('/'):
            raise HostFileError('path %s must be absolute' % quoting.show(path), 'relative')
        if file_path and len(path) > 1 and path.endswith('/'):
            raise HostFileError('path %s ends with "/"; a file path must not' % quoting.show(path), 'trailing-slash')
        key = (path, follow, folder_follow, file_path)
        if key in self._resolved:
            return self._resolved[key]
        found = self._walk(path, follow, folder_follow)
        if len(self._resolved) > 50000:
            self._resolved.clear()
        self._resolved[key] = found
        return found

    def _walk(self, path, follow, folder_follow):
        given = [part for part in path.split('/') if part not in ('', '.')]
        last = len(given) - 1
        # (name, index in the given path or None, the (link, target) a name came from or None)
        pending = [(name, index, None) for index, name in enumerate(given)]
        pending.reverse()
        stack = []
        links = 0
        cacheable = follow and folder_follow and '..' not in given
        for cut in range(last + 1, 0, -1) if cacheable else ():
            # start from the longest folder of this path already walked (the whole path: nothing left to walk)
            known = self._folders.get('/' + '/'.join(given[:cut]))
            if known is not None:
                stack = [part for part in known.split('/') if part]
                pending = [(given[index], index, None) for index in range(last, cut - 1, -1)]
                break
        while pending:
            name, index, origin = pending.pop()
            if cacheable and index:
                # every name before this one is walked: the folder they name is known now
                self._folders['/' + '/'.join(given[:index])] = '/' + '/'.join(stack)
            if name == '..':
                if stack:
                    stack.pop()
                elif self.root and origin:
                    raise HostFileError('%s is a symbolic link to %s, outside root %s: refused'
                                        % (self.show(origin[0]), origin[1], self.root), 'above-root')
                elif self.root:
                    raise HostFileError('path %s climbs above root %s with "..": refused' % (quoting.show(path), self.root),
                                        'above-root')
                continue
            host = '/' + '/'.join(stack + [name])
            candidate = self.real(host)
            try:
                info = os.lstat(candidate)
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                    raise HostFileError('cannot inspect %s: %s' % (self.show(host), exc.strerror), 'unreadable')
                rest = [item[0] for item in reversed(pending)]
                if origin and rest:
                    # like mkdir -p, nothing can be created through a dangling link
                    raise HostFileError('%s is a symbolic link to %s, which does not exist'
                                        % (self.show(origin[0]), origin[1]), 'dangling')
                if '..' in rest:
                    raise HostFileError('%s does not exist, so ".." after it cannot be resolved' % self.show(host),
                                        'dangling')
                full = '/' + '/'.join(stack + [name] + rest)
                return Resolved(self.real(full), full, False, origin)
            if stat.S_ISLNK(info.st_mode):
                if index is not None and ((index == last and not follow) or (index == last - 1 and not folder_follow)):
                    what = 'the file' if index == last else 'its folder'
                    raise HostFileError('%s (%s) is a symbolic link to %s: refused'
                                        % (self.show(host), what, os.readlink(candidate)), 'link-refused')
                if not pending and not follow:
                    return Resolved(candidate, host, True)
                links += 1
                if links > MAX_LINKS:
                    where = ' under root %s' % self.root if self.root else ''
                    raise HostFileError('%s: too many levels of symbolic links%s: refused' % (self.show(host), where),
                                        'loop')
                target = os.readlink(candidate)
                if not pending and target == DEV_NULL:
                    return Resolved(DEV_NULL, DEV_NULL, True, is_null=True)
                if target.startswith('/'):
                    stack = []
                parts = [(part, None, (host, target)) for part in target.split('/') if part not in ('', '.')]
                parts.reverse()
                pending.extend(parts)
                continue
            if stat.S_ISDIR(info.st_mode):
                stack.append(name)
                if cacheable and index == last and not pending:
                    self._folders['/' + '/'.join(given)] = '/' + '/'.join(stack)
                continue
            if pending:
                through = ' (through the link %s)' % self.show(origin[0]) if origin else ''
                raise HostFileError('%s: %s%s is a file, not a folder'
                                    % (self.real(path) if self.show_real else path, self.show(host), through),
                                    'not-a-folder')
            stack.append(name)
        full = '/' + '/'.join(stack)
        return Resolved(self.real(full), full, True)


def _is_text(value):
    try:
        return isinstance(value, unicode)  # noqa: F821 - Python 2
    except NameError:
        return isinstance(value, str)
