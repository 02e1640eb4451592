# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host's files, under an optional ``root``: one reader for every module, over the one
path resolution of ``hostpath`` (chroot semantics; ``HostFileError`` and ``DEV_NULL`` are
imported from there, so callers of this module need not import both).

The reader never blocks and never truncates: only regular files are read (a FIFO, socket or
device is refused, saying which it is), opened non-blocking, and a file larger than
``MAX_FILE_SIZE`` is refused as too large instead of being half read.

An ``overlay`` ({host path: bytes, or None for a removed file}) stands for files as they will
be once a plan is applied: they are read, listed and globbed as if they were on disk.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import stat

from ansible_collections.pep493.https.plugins.module_utils._host import fileglob as hostglob
from ansible_collections.pep493.https.plugins.module_utils._host.paths import DEV_NULL, HostFileError, HostPaths

# Larger files are refused, not read in part. 16 MiB is far above any cfg file, unit file,
# drop-in or environment file (systemd 247 itself refuses environment files over 4 MiB).
MAX_FILE_SIZE = 16 * 1024 * 1024
HEAD_SIZE = 256         # what the kernel reads of an executable to find its "#!" line (BINPRM_BUF_SIZE)

_READ_FLAGS = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | getattr(os, 'O_NOCTTY', 0)
_NOFOLLOW = getattr(os, 'O_NOFOLLOW', 0)
_DIRECTORY = getattr(os, 'O_DIRECTORY', 0)
# listing an open folder (os.listdir(fd)): Python 3.3 and later
_LISTDIR_FD = bool(_NOFOLLOW and _DIRECTORY and os.listdir in getattr(os, 'supports_fd', ()))
# a listing that tells each entry's kind (os.scandir of a path or an open folder): Python 3.7 and later
_SCANDIR = hasattr(os, 'scandir') and os.scandir in getattr(os, 'supports_fd', ())
_KINDS = ((stat.S_ISFIFO, 'a FIFO'), (stat.S_ISSOCK, 'a socket'), (stat.S_ISCHR, 'a character device'),
          (stat.S_ISBLK, 'a block device'), (stat.S_ISDIR, 'a directory'), (stat.S_ISLNK, 'a symbolic link'))


def kind_of(mode):
    """'a FIFO', 'a socket', ... for a stat mode that is not a regular file."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return 'mode %o' % mode


class HostFiles(HostPaths):
    """Files of the host, or of a tree treated as ``/`` (``root``): HostPaths' resolution, and
    reading, listing and globbing over it, ``overlay`` included.

    Path resolutions and file states are kept for the life of the object (a module run reads a
    host that does not change under it); take a new one after writing.
    """

    def __init__(self, root=None, overlay=None, show_real=False):
        HostPaths.__init__(self, root, show_real)
        self._heads = {}
        self._stats = {}        # path -> os.stat result (files read keep the fstat of their reading)
        self._kinds = {}        # host path -> 'file', 'dir', 'link' or 'other', as a listing gave it
        self.overlay = {}
        for path, data in (overlay or {}).items():
            self.overlay[os.path.normpath(path)] = data

    # --- reading --------------------------------------------------------------------------------

    def read(self, path, limit=None):
        """Bytes of the file ``path`` (links followed), or None when it does not exist.

        A link to /dev/null reads as empty (a masked file, as systemd reads it). Anything but a
        regular file, a file over ``limit`` bytes, or an unreadable one raises HostFileError.
        """
        fast = self._fast_open(path)
        if fast is not None:
            fd, host = fast
            if fd is None:
                return None
            return self._read_real(self.real(host), self.show(host), MAX_FILE_SIZE if limit is None else limit, fd=fd)
        return self.read_at(self.resolve(path), limit)

    def _fast_open(self, path):
        """(fd, host path), or (None, None) for a missing file, when the folder of ``path`` is
        already walked and its last name is no link: the walk would end there. None otherwise
        (the full walk decides)."""
        if self.overlay or not _NOFOLLOW or not isinstance(path, str):
            return None
        folder, _sep, name = path.rpartition('/')
        known = self._folders.get(folder)
        if known is None or name in ('', '.', '..'):
            return None
        host = known.rstrip('/') + '/' + name
        if host == DEV_NULL:
            return None     # reads as empty, whatever is there (read_at)
        try:
            return os.open(self.real(host), _READ_FLAGS | _NOFOLLOW), host
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return None, None
            return None     # a link (ELOOP), a socket, no permission: the full walk says what it is

    def read_at(self, resolved, limit=None):
        """read() of a path already resolved (by resolve(), with its own follow rules)."""
        if resolved.is_null or resolved.host == DEV_NULL:
            return b''
        if resolved.host in self.overlay:
            return self.overlay[resolved.host]
        if not resolved.exists:
            if resolved.dangling:
                raise HostFileError('%s is a symbolic link to %s, which does not exist'
                                    % (self.show(resolved.dangling[0]), resolved.dangling[1]), 'dangling')
            return None
        return self._read_real(resolved.real, self.show(resolved.host), MAX_FILE_SIZE if limit is None else limit)

    def head(self, path, size=HEAD_SIZE):
        """The first ``size`` bytes of a regular file (an executable's "#!" line), or None when
        it cannot be read. Never blocks: a FIFO or device is None."""
        key = (path, size)
        if key not in self._heads:
            self._heads[key] = self._head(path, size)
        return self._heads[key]

    def _head(self, path, size):
        fast = self._fast_open(path)
        if fast is not None:
            fd, host = fast
            if fd is None:
                return None
            try:
                return self._read_real(self.real(host), host, None, size, fd=fd)
            except HostFileError:
                return None
        try:
            resolved = self.resolve(path)
        except HostFileError:
            return None
        if resolved.host in self.overlay:
            data = self.overlay[resolved.host]
            return data[:size] if data is not None else None
        if not resolved.exists or resolved.is_null:
            return None
        try:
            return self._read_real(resolved.real, resolved.host, None, size)
        except HostFileError:
            return None

    def _read_real(self, real, shown, limit, head=None, fd=None):
        try:
            if fd is None:
                fd = os.open(real, _READ_FLAGS)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return None
            if exc.errno == errno.EACCES:
                raise HostFileError('cannot read %s: permission denied; run as a user who may read it (become: true)'
                                    % shown, 'unreadable')
            if exc.errno == errno.EISDIR:
                raise HostFileError('%s is a directory, not a file' % shown, 'directory')
            try:
                mode = os.stat(real).st_mode
            except OSError:
                mode = stat.S_IFREG
            if not stat.S_ISREG(mode):   # a socket cannot be opened at all (ENXIO)
                raise HostFileError('%s is not a regular file (%s); remove it or point the module elsewhere'
                                    % (shown, kind_of(mode)), 'not-regular')
            raise HostFileError('cannot read %s: %s' % (shown, exc.strerror or exc), 'unreadable')
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise HostFileError('%s is a directory, not a file' % shown, 'directory')
            if not stat.S_ISREG(info.st_mode):
                raise HostFileError('%s is not a regular file (%s); remove it or point the module elsewhere'
                                    % (shown, kind_of(info.st_mode)), 'not-regular')
            if head is not None:
                return _read_upto(fd, head)
            self._stats[real] = info
            if info.st_size > limit:
                raise _too_large(shown, info.st_size, limit)
            data = _read_upto(fd, limit + 1, info.st_size)
            if len(data) > limit:
                raise _too_large(shown, len(data), limit)
            return data
        except OSError as exc:
            raise HostFileError('cannot read %s: %s' % (shown, exc.strerror or exc), 'unreadable')
        finally:
            os.close(fd)

    def read_stat(self, resolved):
        """os.fstat of a file as read_at() read it (None when it was not read from disk): its mode and
        owner then, whatever happened to the file since."""
        return self._stats.get(resolved.real)

    def stat(self, path):
        """os.stat of ``path`` (links followed), or None when missing or unreachable."""
        if path in self._stats:
            return self._stats[path]
        try:
            resolved = self.resolve(path, file_path=False)
        except HostFileError:
            return None
        info = None
        if resolved.exists and not resolved.is_null:
            info = self._stats.get(resolved.real)
            if info is None:
                try:
                    info = os.stat(resolved.real)
                except OSError:
                    info = None
        self._stats[path] = info
        return info

    def exists(self, path):
        """Whether ``path`` exists (a file of the overlay counts, a removed one does not)."""
        try:
            resolved = self.resolve(path, file_path=False)
        except HostFileError:
            return False
        if resolved.host in self.overlay:
            return self.overlay[resolved.host] is not None
        return resolved.exists or bool(self._overlay_children(resolved.host))

    def is_dir(self, path):
        try:
            resolved = self.resolve(path, file_path=False)
        except HostFileError:
            return False
        if resolved.exists and not resolved.is_null and os.path.isdir(resolved.real):
            return True
        return bool(self._overlay_children(resolved.host))

    def listdir(self, path):
        """Sorted names in folder ``path`` (overlay included), or None when it does not exist."""
        fast = self._fast_listdir(path)
        if fast is not None:
            return fast[0]
        resolved = self.resolve(path, file_path=False)
        names = None
        if resolved.exists and not resolved.is_null:
            try:
                names = set(self._names_in(resolved.real, resolved.host))
            except OSError as exc:
                if exc.errno == errno.ENOTDIR:
                    raise HostFileError('%s is not a folder' % self.show(path), 'not-a-folder')
                if exc.errno != errno.ENOENT:
                    raise HostFileError('cannot list %s: %s' % (self.show(path), exc.strerror or exc), 'unreadable')
        elif resolved.dangling:
            raise HostFileError('%s is a symbolic link to %s, which does not exist'
                                % (self.show(resolved.dangling[0]), resolved.dangling[1]), 'dangling')
        added, removed = self._overlay_children(resolved.host, with_removed=True)
        if names is None and not added:
            return None
        names = (names or set()) | added
        names -= removed
        return sorted(names)

    def _fast_listdir(self, path):
        """([sorted names] or None,) when ``path``'s parent is already walked and ``path`` is a
        folder, not a link (then it is walked too); None when the full walk must decide."""
        if self.overlay or not _LISTDIR_FD or not isinstance(path, str):
            return None
        folder, _sep, name = path.rpartition('/')
        known = self._folders.get(folder)
        if known is None or name in ('', '.', '..'):
            return None
        host = known.rstrip('/') + '/' + name
        if not self.root and self._kinds.get(host) == 'dir':
            # the parent's listing says it is a folder, no link; on the host itself (no root to
            # stay inside) it is listed by its path, with half the system calls of an open folder
            try:
                names = sorted(self._names_in(host, host))
            except OSError as exc:
                return (None,) if exc.errno == errno.ENOENT else None
            self._folders[path] = host
            return (names,)
        try:
            fd = os.open(self.real(host), os.O_RDONLY | _NOFOLLOW | _DIRECTORY)
        except OSError as exc:
            return (None,) if exc.errno == errno.ENOENT else None
        try:
            names = sorted(self._names_in(fd, host))
        except OSError:
            return None
        finally:
            os.close(fd)
        self._folders[path] = host
        return (names,)

    def _names_in(self, folder, host):
        """Names in ``folder`` (a real path or an open folder) whose host path is ``host``;
        the kind of each name is kept when the listing tells it (what entry() would lstat)."""
        if not _SCANDIR:
            return os.listdir(folder)
        prefix = host.rstrip('/') + '/'
        names = []
        for item in os.scandir(folder):
            names.append(item.name)
            try:
                if item.is_symlink():
                    kind = 'link'
                elif item.is_dir(follow_symlinks=False):
                    kind = 'dir'
                elif item.is_file(follow_symlinks=False):
                    kind = 'file'
                else:
                    kind = 'other'
            except OSError:
                continue
            self._kinds[prefix + item.name] = kind
        return names

    def entry(self, folder, name):
        """(kind, link target) of ``name`` in ``folder`` without following it: kind is 'file',
        'dir', 'link', 'other' or None (missing)."""
        host_folder = self.resolve(folder, file_path=False).host
        host = host_folder.rstrip('/') + '/' + name
        if host in self.overlay:
            return ('file', None) if self.overlay[host] is not None else (None, None)
        kind = self._kinds.get(host)
        if kind is not None and kind != 'link':
            return kind, None
        try:
            info = os.lstat(self.real(host))
        except OSError:
            return ('dir', None) if self._overlay_children(host) else (None, None)
        if stat.S_ISLNK(info.st_mode):
            try:
                return 'link', os.readlink(self.real(host))
            except OSError:
                return None, None
        if stat.S_ISDIR(info.st_mode):
            return 'dir', None
        if stat.S_ISREG(info.st_mode):
            return 'file', None
        return 'other', None

    def _overlay_children(self, folder, with_removed=False):
        prefix = folder.rstrip('/') + '/'
        added = set()
        removed = set()
        for path, data in self.overlay.items():
            if not path.startswith(prefix):
                continue
            first = path[len(prefix):].split('/', 1)
            if data is None and len(first) == 1:
                removed.add(first[0])
            elif data is not None:
                added.add(first[0])
        if with_removed:
            return added, removed - added
        return added

    # --- globbing -------------------------------------------------------------------------------

    def glob(self, pattern):
        """Host paths matching ``pattern`` as glob(3) matches them (hostglob.glob), sorted
        byte-wise; a folder that cannot be listed matches nothing."""
        return hostglob.glob(pattern, self._listdir_or_empty, self.is_dir, self._lexists)

    def _listdir_or_empty(self, path):
        try:
            return self.listdir(path) or []
        except HostFileError:
            return []

    def _lexists(self, path):
        folder, name = path.rsplit('/', 1)
        try:
            return self.entry(folder or '/', name)[0] is not None
        except HostFileError:
            return False


def _too_large(shown, size, limit):
    return HostFileError('%s is too large (%d bytes; files over %d bytes are not read)' % (shown, size, limit),
                         'too-large')


def _read_upto(fd, size, expected=None):
    """Up to ``size`` bytes of ``fd``, to its end. ``expected``: the size fstat gave; a first
    read asks one byte more, and returning exactly that size means the end was reached (a
    regular file reads short only at its end), so a small file costs one read, not two."""
    chunks = []
    left = size
    if expected is not None and expected < size:
        chunk = os.read(fd, expected + 1)
        if len(chunk) == expected:
            return chunk
        chunks.append(chunk)
        left -= len(chunk)
        if not chunk:
            return b''
    while left > 0:
        chunk = os.read(fd, min(65536, left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b''.join(chunks)
