# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one writer of the collection.

Where a managed path is and what it holds now come from the host-files layer
(``hostfiles.HostFiles``: the same resolution under ``root`` as every reader uses). Here:
``write_atomic`` (temp file in the destination folder, re-read and checked, then
``atomic_move``; the old file is untouched when any step fails), folders, removal, backups.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import grp
import os
import pwd
import re
import stat
import sys
import tempfile
import time

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting


# One error type for every file problem: resolving (hostfiles) and writing (here).
SafeFileError = hostfiles.HostFileError


def make_dirs(module, path, mode=0o755):
    """Create the missing folders of ``path`` (not in check mode). Returns those created."""
    missing = []
    current = path
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if not os.path.isdir(current):
        raise SafeFileError('%s is not a directory' % current)
    created = list(reversed(missing))
    if module.check_mode:
        return created
    for folder in created:
        try:
            os.mkdir(folder, mode)
            os.chmod(folder, mode)
        except OSError as exc:
            # A run in parallel may create the same folder first; a real folder is fine.
            if exc.errno != errno.EEXIST or not _is_real_dir(folder):
                raise SafeFileError('cannot create folder %s: %s' % (folder, exc.strerror))
    return created


def _is_real_dir(path):
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


NEW_FILE_MODE = 0o644
TEMP_NAME_KEPT = 200


def write_atomic(module, dest, content, check=None, mode=None):
    """Replace ``dest`` with ``content`` through a checked temp file in the same folder.

    ``check(content_read_back)`` returns None when good, or a message; a bad read-back
    aborts the write. ``mode`` applies to a new file (default 0644; an existing file keeps
    its own). Raises SafeFileError; the destination is never left half-written.
    """
    folder = os.path.dirname(dest)
    creating = not os.path.exists(dest)
    try:
        # the name cut so that the temp file's name fits in 255 bytes whatever the file's own name
        fd, tmp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(dest)[:TEMP_NAME_KEPT], suffix='.tmp', dir=folder)
    except (IOError, OSError) as exc:
        raise SafeFileError('cannot create a temporary file in %s: %s; %s is unchanged'
                            % (folder, exc.strerror or exc, dest), 'folder-gone' if exc.errno == errno.ENOENT else None)
    module.add_cleanup_file(tmp)
    try:
        try:
            write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        with open(tmp, 'rb') as handle:
            written = handle.read()
        if written != content:
            raise SafeFileError('read-back of %s differs from what was written' % tmp)
        problem = check(written) if check else None
        if problem:
            raise SafeFileError('refusing to install %s: %s' % (dest, problem))
        if creating:
            # In place with its final mode from the rename on: a crash before the module sets
            # attributes must not leave mkstemp's 0600, which non-root Python cannot read.
            os.chmod(tmp, NEW_FILE_MODE if mode is None else mode)
    except (IOError, OSError) as exc:
        _remove(tmp)
        raise SafeFileError('cannot write %s: %s; it is unchanged' % (dest, exc.strerror or exc))
    except SafeFileError:
        _remove(tmp)
        raise
    # atomic_move chmods a file it creates to 0666 & ~umask after the rename: with 022 that
    # is 0644 whatever the caller's umask (000 left it world-writable, 077 unreadable).
    umask = os.umask(0o022)
    try:
        through_module(module, lambda cause: 'cannot replace %s: %s; it is unchanged' % (dest, cause),
                       module.atomic_move, tmp, dest, unsafe_writes=module.params.get('unsafe_writes', False))
    except SafeFileError:
        _remove(tmp)
        raise
    finally:
        os.umask(umask)
    if mode is not None and creating:
        # atomic_move gives a new file its mode from the umask, not the one asked for here.
        try:
            os.chmod(dest, mode)
        except OSError as exc:
            # Gone already: a run in parallel removed it after the rename (written, then removed,
            # is an order the two runs may take); there is nothing left to set a mode on.
            if exc.errno != errno.ENOENT:
                raise SafeFileError('cannot set mode %04o on %s: %s' % (mode, dest, exc.strerror))
    _fsync_dir(folder)


class _ModuleFailed(Exception):
    pass


def through_module(module, message, method, *args, **kwargs):
    """``method(*args, **kwargs)``, an AnsibleModule file method (atomic_move, setting
    attributes), whose failure - fail_json before ansible-core 2.19, an exception from 2.19 on -
    becomes a SafeFileError with ``message(cause)``, so the module's own error path reports it
    (what a batch wrote before it included), never a traceback."""
    causes = []

    def failed(msg='', **details):
        handled = sys.exc_info()[1]  # ansible-core calls fail_json inside "except OSError"
        cause = details.get('details') or (_root_cause(handled) if handled is not None else None)
        causes.append('%s: %s' % (msg, cause) if cause and cause not in msg else msg)
        raise _ModuleFailed(msg)
    module.fail_json = failed
    try:
        return method(*args, **kwargs)
    except _ModuleFailed:
        cause = causes[-1]
    except Exception as exc:  # ansible-core 2.19+ raises a bare Exception from the OSError
        cause = _root_cause(exc)
    finally:
        del module.fail_json     # the class's own again
    raise SafeFileError(message(cause))


def _root_cause(exc):
    seen = exc
    while seen is not None:
        if isinstance(seen, EnvironmentError) and seen.strerror:
            return seen.strerror
        seen = getattr(seen, '__cause__', None) or getattr(seen, '__context__', None)
    return str(exc)


def set_attributes(module, path, file_args, changed, diff=None):
    """set_fs_attributes_if_different through the module's own error path."""
    return through_module(module, lambda cause: 'cannot set the mode, owner, group or attributes of %s: %s'
                          % (path, cause), module.set_fs_attributes_if_different, file_args, changed, diff=diff)


def create_exclusive(path, content, mode=0o600, owner=None):
    """Create the file ``path`` with ``content`` only when nothing is there (O_CREAT|O_EXCL|
    O_NOFOLLOW: never over another file, never through a link), with ``mode`` whatever the
    umask, and fsync it and its folder; ``owner``: (uid, gid) to give it (as root). False
    (nothing written) when ``path`` exists; a failure after creation removes the partial file
    (only the one this call created) and raises SafeFileError, whose ``cause`` is the reason."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_NOFOLLOW', 0), mode)
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            return False
        raise _with_cause(SafeFileError('cannot create %s: %s' % (path, exc.strerror)), exc.strerror)
    try:
        try:
            if owner is not None and os.geteuid() == 0:
                os.fchown(fd, owner[0], owner[1])
            os.fchmod(fd, mode)
            write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        _remove(path)
        raise _with_cause(SafeFileError('cannot write %s: %s; the partial file was removed' % (path, exc.strerror)),
                          exc.strerror)
    _fsync_dir(os.path.dirname(path))
    return True


def _with_cause(error, cause):
    error.cause = cause
    return error


def write_all(fd, content):
    """Write all of ``content`` to the file descriptor ``fd`` (os.write may write less)."""
    view = memoryview(content)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


BACKUP_STAMP = '%Y-%m-%d@%H:%M:%S'
BACKUP_TRIES = 3


def backup(module, path, content=None):
    """A copy of ``path`` beside it, ``<file>.<pid>.<YYYY-mm-dd@HH:MM:SS>~`` (not in check mode),
    with the file's mode, owner and group; returns its name or None when there is no file.

    Created like every other write: exclusively (O_EXCL|O_NOFOLLOW), never over another file,
    never through a link (a planted one included); a name already taken waits for the next
    second's name, then the backup is refused. A failed backup removes only the file this run
    created. ``content``: the file's bytes when already read.
    """
    if module.check_mode:
        return None
    try:
        info = os.lstat(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise SafeFileError('cannot back up %s before changing it: %s; nothing was changed' % (path, exc.strerror))
    if content is None:
        try:
            content = hostfiles.HostFiles().read(path)
        except hostfiles.HostFileError as exc:
            raise SafeFileError('cannot back up %s before changing it: %s; nothing was changed' % (path, exc))
    taken = []
    for attempt in range(BACKUP_TRIES):
        if attempt:
            time.sleep(1.0 - time.time() % 1.0)
        name = '%s.%d.%s~' % (path, os.getpid(), time.strftime(BACKUP_STAMP, time.localtime(time.time())))
        try:
            made = create_exclusive(name, content, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))
        except SafeFileError as exc:
            raise SafeFileError('cannot back up %s before changing it: %s; nothing was changed'
                                % (path, getattr(exc, 'cause', None) or exc))
        if made:
            return name
        taken.append(name)
    raise SafeFileError('cannot back up %s before changing it: %s already exist%s (never replaced nor followed); '
                        'nothing was changed' % (path, ', '.join(taken), '' if len(taken) > 1 else 's'))


def split_hard_link(module, path, content, file_args=None):
    """Give ``path`` an inode of its own when other names share it (a hard link), before its
    mode, owner or group change: ``content`` (what it holds) is rewritten through write_atomic,
    whose rename splits the link, so the other names keep their attributes. With ``file_args``
    only when they would change something. Not in check mode. Returns whether it was split."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if module.check_mode or not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return False
    if file_args is not None and not attributes_differ(module, file_args):
        return False
    write_atomic(module, path, content, check=lambda data: None if data == content else 'its content changed')
    return True


def attributes_differ(module, file_args):
    """Whether ``file_args`` would change the file (asked in check mode: nothing is changed)."""
    saved = module.check_mode
    module.check_mode = True
    try:
        return set_attributes(module, file_args['path'], file_args, False)
    finally:
        module.check_mode = saved


# The flags chattr(1) sets (e2fsprogs), after an optional "+", "-" or "=".
ATTRIBUTE_FLAGS = 'aAcCdDeFijmPsStTux'
_ATTRIBUTES = re.compile(r'[-+=]?[%s]*\Z' % ATTRIBUTE_FLAGS)
_OCTAL = re.compile(r'[0-7]{1,4}\Z')
_NUMBER = re.compile(r'[0-9]+\Z')
_SYMBOLIC = re.compile(r'[ugoa,+=rwxXst-]+\Z')  # what chmod's symbolic modes are made of, ASCII only


class _ModeOnly(object):
    st_mode = stat.S_IFREG | NEW_FILE_MODE


def file_arg_errors(module):
    """What is wrong with the file-attribute options (mode, owner, group, attributes), found
    before anything is written, in check mode too; [] when they can all be applied."""
    params = module.params
    errors = []
    mode = params.get('mode')
    if mode is not None and not _valid_mode(module, mode):
        errors.append("mode %s is not a file mode: give an octal number in quotes ('0644') or a symbolic mode "
                      "(u=rw,g=r,o=r)" % quoting.show(str(mode)))
    owner = params.get('owner')
    if owner is not None and not _known(owner, pwd.getpwnam):
        errors.append('owner %s is not a user of this host (nor a number): no such user in its user database'
                      % quoting.show(owner))
    group = params.get('group')
    if group is not None and not _known(group, grp.getgrnam):
        errors.append('group %s is not a group of this host (nor a number): no such group in its group database'
                      % quoting.show(group))
    attributes = params.get('attributes')
    if attributes is not None and not _ATTRIBUTES.match(attributes):
        errors.append('attributes %s: only the chattr flags "%s" are known, after an optional "+", "-" or "="'
                      % (quoting.show(attributes), ATTRIBUTE_FLAGS))
    return errors


def _valid_mode(module, mode):
    if isinstance(mode, bool):
        return False
    if isinstance(mode, int):
        return 0 <= mode <= 0o7777
    mode = quoting.text(mode)
    if _OCTAL.match(mode):
        return True
    if not mode or _NUMBER.match(mode) or not _SYMBOLIC.match(mode):
        return False
    try:
        module._symbolic_mode_to_octal(_ModeOnly(), mode)
    except Exception:  # ansible-core raises ValueError, some versions a bare Exception
        return False
    return True


def _known(name, lookup):
    name = quoting.text(name)
    if _NUMBER.match(name):
        return True
    try:
        lookup(name)
    except (KeyError, TypeError, ValueError, UnicodeError):
        return False
    return True


def file_args_for(module, path, default_mode=None, exists=True):
    """The common file arguments for ``path``; a new file gets ``default_mode``."""
    file_args = module.load_file_common_arguments(module.params, path=path)
    if file_args.get('mode') is None and not exists and default_mode is not None:
        file_args['mode'] = default_mode
    return file_args


def text_for_diff(data):
    if data is None:
        return ''
    return data.decode('utf-8', 'replace')


# A diff whose before or after is larger is omitted (the result's ``diff_omitted`` says so).
DIFF_MAX = 64 * 1024


def content_diff(old, new, before_header, after_header):
    """(a before/after diff entry, None) of bytes ``old`` and ``new`` (None: no file); past
    DIFF_MAX bytes on either side, (an entry without the texts, the line ``diff_omitted``
    gets): Ansible's ``src_larger``/``dst_larger`` make the callback say it was skipped."""
    entry = dict(before_header=before_header, after_header=after_header)
    old_size, new_size = len(old or b''), len(new or b'')
    if old_size <= DIFF_MAX and new_size <= DIFF_MAX:
        entry.update(before=text_for_diff(old), after=text_for_diff(new))
        return entry, None
    entry.update(src_larger=DIFF_MAX, dst_larger=DIFF_MAX)
    return entry, ('%s: %d bytes before, %d after; diffs over %d bytes are omitted'
                   % (before_header, old_size, new_size, DIFF_MAX))


def remove_file(module, path):
    """Delete the file ``path`` (not in check mode). Returns whether it existed."""
    if not os.path.lexists(path):
        return False
    if os.path.isdir(path) and not os.path.islink(path):
        raise SafeFileError('%s is a directory, not a file: not removed' % path)
    if module.check_mode:
        return True
    try:
        os.unlink(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return False
        raise SafeFileError('cannot remove %s: %s' % (path, exc.strerror))
    _fsync_dir(os.path.dirname(path))
    return True


def remove_empty_dir(module, path, ignore=()):
    """Delete the folder ``path`` when it holds nothing but names in ``ignore`` (not in
    check mode, where those are taken as already gone). Returns whether it is (or would be) removed."""
    try:
        left = [name for name in os.listdir(path) if name not in ignore]
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return False
        raise SafeFileError('cannot read folder %s: %s' % (path, exc.strerror))
    if left or os.path.islink(path):
        return False
    if module.check_mode:
        return True
    try:
        os.rmdir(path)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
            return False
        raise SafeFileError('cannot remove folder %s: %s' % (path, exc.strerror))
    return True
