# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host's files, under an optional ``root``: one path resolution and one reader for every
module, for reading and for writing.

``root`` has chroot semantics: a path is walked component by component as the kernel walks it
with ``root`` as ``/``. A symbolic link's target replaces the link in the walk, so ``..`` after
a link applies to the link's target; an absolute target starts again at ``root``; a link to a
regular file used as a folder is ENOTDIR; more than 40 links in one walk is a loop (the kernel's
MAXSYMLINKS). Unlike the kernel, which stops ``..`` at the root without a word, a ``..`` that
would climb above ``root`` is refused: under ``root`` nothing is ever read or written outside it.

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

from ansible_collections.pep493.https.plugins.module_utils import hostglob
from ansible_collections.pep493.https.plugins.module_utils import quoting

# Larger files are refused, not read in part. 16 MiB is far above any cfg file, unit file,
# drop-in or environment file (systemd 247 itself refuses environment files over 4 MiB).
MAX_FILE_SIZE = 16 * 1024 * 1024
MAX_LINKS = 40          # the kernel's MAXSYMLINKS
HEAD_SIZE = 256         # what the kernel reads of an executable to find its "#!" line (BINPRM_BUF_SIZE)
DEV_NULL = '/dev/null'
# An empty root would mean the host itself: refused rather than guessed.
EMPTY_ROOT = 'root is empty (""); give the folder that stands for / (an image build tree), or leave root unset for this host'

_READ_FLAGS = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | getattr(os, 'O_NOCTTY', 0)
_NOFOLLOW = getattr(os, 'O_NOFOLLOW', 0)
_DIRECTORY = getattr(os, 'O_DIRECTORY', 0)
# listing an open folder (os.listdir(fd)): Python 3.3 and later
_LISTDIR_FD = bool(_NOFOLLOW and _DIRECTORY and os.listdir in getattr(os, 'supports_fd', ()))
# a listing that tells each entry's kind (os.scandir of a path or an open folder): Python 3.7 and later
_SCANDIR = hasattr(os, 'scandir') and os.scandir in getattr(os, 'supports_fd', ())
_KINDS = ((stat.S_ISFIFO, 'a FIFO'), (stat.S_ISSOCK, 'a socket'), (stat.S_ISCHR, 'a character device'),
          (stat.S_ISBLK, 'a block device'), (stat.S_ISDIR, 'a directory'), (stat.S_ISLNK, 'a symbolic link'))


class HostFileError(Exception):
    """A path or file that cannot be used, with a message meant for the operator.

    ``reason`` names the case: ``loop``, ``above-root``, ``not-a-folder``, ``dangling``,
    ``link-refused``, ``trailing-slash``, ``relative``, ``directory``, ``not-regular``,
    ``too-large``, ``unreadable``, ``root``.
    """

    def __init__(self, message, reason=None):
        super(HostFileError, self).__init__(message)
        self.reason = reason


def kind_of(mode):
    """'a FIFO', 'a socket', ... for a stat mode that is not a regular file."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return 'mode %o' % mode


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


class HostFiles(object):
    """Files of the host, or of a tree treated as ``/`` (``root``).

    ``show_real``: messages name the real paths (``<root>/etc/...``, what the writing modules
    report) instead of the host paths (``/etc/...``, what the audit reports).

    Path resolutions are kept for the life of the object (a module run reads a host that does
    not change under it); take a new one after writing.
    """

    def __init__(self, root=None, overlay=None, show_real=False):
        if root is not None and not root:
            raise HostFileError(EMPTY_ROOT, 'root')
        if root:
            real_root = os.path.realpath(root)
            if not os.path.isdir(real_root):
                raise HostFileError('root %s is not a directory' % quoting.show(root), 'root')
            # root "/" is the host itself
            self.root = real_root if real_root != '/' else None
        else:
            self.root = None
        self.show_real = show_real
        self._folders = {}      # host folder (no "." or "..") -> the folder it resolves to
        self._resolved = {}     # resolve() arguments -> Resolved: the files do not change during a run
        self._heads = {}
        self._stats = {}        # path -> os.stat result (files read keep the fstat of their reading)
        self._kinds = {}        # host path -> 'file', 'dir', 'link' or 'other', as a listing gave it
        self.overlay = {}
        for path, data in (overlay or {}).items():
            self.overlay[os.path.normpath(path)] = data

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
        for cut in range(last, 0, -1) if cacheable else ():
            # start from the longest folder of this path already walked
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


def _is_text(value):
    try:
        return isinstance(value, unicode)  # noqa: F821 - Python 2
    except NameError:
        return isinstance(value, str)


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
