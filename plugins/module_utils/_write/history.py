# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cfg file's history, and the way back (``cert_verification`` with ``state=restored``).

The history of ``<file>`` lives beside it:

* ``<file>.pep493-original``: the record of the file before its first change with ``backup``
  on - its bytes, or that there was no file at all. Created once, exclusively, never replaced
  (unless a crash left it incomplete, which its length line shows).
* ``<file>.<pid>.<YYYY-mm-dd@HH:MM:SS>~``: a backup per change (``safe_file.backup``,
  created exclusively, never through a link), named by the host's local time.
* ``<file>.pep493-backups``: the record of the backups, one line each, appended as each is
  made: its UTC time and its name. Local time moves with the time zone (a host moved from
  UTC+9 to UTC-5 names a later backup 14 hours earlier), the UTC time does not. Appended only,
  never through a link nor to a file with other names; mode 0600.
* ``<file>.<pid>.<YYYY-mm-dd@HH:MM:SS>.before-restore~``: the file a restore replaced. Kept for
  the operator, never a restore candidate, so that a second restore changes nothing.

A restore puts back the newest candidate that RHEL 7's Python can read: the backups the record
lists, newest first by its UTC times; then those it does not list (made before it began, by an
earlier version of the collection), newest first by the time in their names; then the record of
the file before its first change. A malformed one would break ``import ssl``, so it is skipped
and reported.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re
import stat
import time

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._write import safe_file

RECORD_SUFFIX = '.pep493-original'
BACKUPS_SUFFIX = '.pep493-backups'
BEFORE_RESTORE_SUFFIX = '.before-restore~'
_STAMP = '%Y-%m-%d@%H:%M:%S'
_BACKUP_TAIL = re.compile(r'\.(\d+)\.(\d{4}-\d{2}-\d{2}@\d{2}:\d{2}:\d{2})~\Z')
_RECORD_HEAD = b'# pep493.https.cert_verification: the file before its first change'
_PRESENT = re.compile(br'present (\d+)\n')
_BACKUPS_HEAD = b'# pep493.https.cert_verification: the backups of this file, as they were made: UTC time, name\n'
_BACKUPS_LINE = re.compile(br'(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z) (.+)\Z')
# a line is about 80 bytes: ten thousand backups
_BACKUPS_MAX = 1024 * 1024


class HistoryError(Exception):
    """The history cannot give a file back; the message says why and what to do."""


def record_path(dest):
    return dest + RECORD_SUFFIX


def render_record(content, stamp):
    """The record of a file before its first change: ``content`` (bytes), or None for no file."""
    head = _RECORD_HEAD + (' (recorded %s)\n' % stamp).encode('ascii')
    if content is None:
        return head + b'absent\n'
    return head + ('present %d\n' % len(content)).encode('ascii') + content


def parse_record(data):
    """``(True, bytes)`` or ``(False, None)`` (there was no file); HistoryError when ``data`` is
    not a complete record."""
    first, sep, rest = data.partition(b'\n')
    if not first.startswith(_RECORD_HEAD) or not sep:
        raise HistoryError('not a record of pep493.https.cert_verification')
    if rest == b'absent\n':
        return False, None
    match = _PRESENT.match(rest)
    if not match or len(rest) - match.end() != int(match.group(1)):
        raise HistoryError('incomplete record (its length line does not match its content)')
    return True, rest[match.end():]


def backups_path(dest):
    return dest + BACKUPS_SUFFIX


def _name_bytes(name):
    """A file name as bytes, as the file system holds it."""
    if isinstance(name, bytes):
        return name
    try:
        return os.fsencode(name)
    except AttributeError:  # Python 2, a text name: its folder was given as text
        return name.encode('utf-8')


def utc_stamp(now=None):
    """The UTC time ``now`` (seconds since the epoch; default: the clock) as the record of the backups gives it."""
    now = time.time() if now is None else now
    seconds = int(now)
    return '%s.%06dZ' % (time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(seconds)), int((now - seconds) * 1000000))


def backup(module, dest, content=None):
    """A backup of ``dest`` (``safe_file.backup``), then its line in the record of the backups; a
    backup that cannot be recorded is removed again. Its path, or None (no file, check mode)."""
    name = safe_file.backup(module, dest, content)
    if name is not None:
        try:
            note_backup(dest, name)
        except safe_file.SafeFileError:
            _remove(name)
            raise
    return name


def note_backup(dest, name, now=None):
    """Append the backup ``name`` of ``dest`` with the UTC time ``now`` to ``<dest>.pep493-backups``,
    created (mode 0600) when missing. Never through a link: a symbolic link there, a file of another
    kind or one with other names (a hard link) is refused (SafeFileError, the backup not recorded)."""
    path = backups_path(dest)
    line = b'%s %s\n' % (utc_stamp(now).encode('ascii'), _name_bytes(os.path.basename(name)))
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, 'O_NOFOLLOW', 0) | getattr(os, 'O_NONBLOCK', 0)
    try:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
            line = _BACKUPS_HEAD + line
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
            fd = os.open(path, flags)
    except OSError as exc:
        why = 'a symbolic link: refused' if exc.errno == errno.ELOOP else exc.strerror
        raise safe_file.SafeFileError('cannot record the backup %s in %s: %s; nothing was changed' % (name, path, why))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise safe_file.SafeFileError('cannot record the backup %s in %s: it is not a regular file of its own (a '
                                          'hard link, or another kind of file): refused; nothing was changed'
                                          % (name, path))
        os.fchmod(fd, 0o600)
        safe_file.write_all(fd, line)
        os.fsync(fd)
    except OSError as exc:
        raise safe_file.SafeFileError('cannot record the backup %s in %s: %s; nothing was changed'
                                      % (name, path, exc.strerror))
    finally:
        os.close(fd)


def recorded_backups(dest):
    """{backup name (bytes): (UTC time, line number)} from the record of the backups of ``dest``;
    {} when there is none. A line that is not a record line is left out; a record that cannot be
    read (a link, not a regular file, too large) is a HistoryError: it would give no order."""
    path = backups_path(dest)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise HistoryError('the record of the backups %s is a symbolic link (to %s); nothing was changed: move it '
                               'away to restore by the times in the backups\' names' % (path, os.readlink(path)))
        data = hostfiles.HostFiles().read(path, _BACKUPS_MAX)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return {}
        raise HistoryError('cannot read the record of the backups %s: %s; nothing was changed' % (path, exc.strerror))
    except hostfiles.HostFileError as exc:
        raise HistoryError('cannot read the record of the backups %s: %s; nothing was changed' % (path, exc))
    if data is None:
        return {}
    found = {}
    for number, line in enumerate(data.split(b'\n')):
        match = _BACKUPS_LINE.match(line)
        if match:
            found[match.group(2)] = (match.group(1), number)
    return found


def backup_order(names, base, recorded=None):
    """The backups of ``base`` among file ``names``, newest first: those in ``recorded`` (the
    record of the backups) by its UTC time, then its order; then the others (made before the
    record began) by the time stamp in the name, then the process id."""
    recorded = recorded or {}
    listed, older = [], []
    for name in names:
        if name.startswith(base + '.'):
            match = _BACKUP_TAIL.match(name, len(base))
            if not match:
                continue
            if _name_bytes(name) in recorded:
                listed.append((recorded[_name_bytes(name)], name))
            else:
                older.append((match.group(2), int(match.group(1)), name))
    return ([name for when, name in sorted(listed, reverse=True)]
            + [name for stamp, pid, name in sorted(older, reverse=True)])


def candidates(dest):
    """The restore candidates of ``dest``, newest first: dicts with ``path``, ``exists`` (False:
    there was no file), ``content`` and ``error`` (why it cannot be used, or None)."""
    folder, base = os.path.split(dest)
    try:
        names = os.listdir(folder)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return []
        raise safe_file.SafeFileError('cannot list %s: %s' % (folder, exc.strerror))
    order = backup_order(names, base, recorded_backups(dest))
    found = [_read_candidate(os.path.join(folder, name), False) for name in order]
    if base + RECORD_SUFFIX in names:
        found.append(_read_candidate(record_path(dest), True))
    return found


def read_file(path):
    """Bytes of the regular file ``path`` (a real path), None when it does not exist; read by the
    host-files layer's reader (never blocks, never truncates). SafeFileError otherwise."""
    try:
        return hostfiles.HostFiles().read(path, cfg.MAX_CFG_SIZE + 4096)  # a record: a header, then the file
    except hostfiles.HostFileError as exc:
        raise safe_file.SafeFileError(str(exc))


def _read_candidate(path, record):
    entry = dict(path=path, exists=True, content=None, error=None)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            entry['error'] = 'a symbolic link (to %s): refused' % os.readlink(path)
            return entry
        data = read_file(path)
    except (OSError, safe_file.SafeFileError) as exc:
        entry['error'] = str(getattr(exc, 'strerror', None) or exc)
        return entry
    if record:
        try:
            entry['exists'], data = parse_record(data)
        except HistoryError as exc:
            entry['error'] = str(exc)
            return entry
    entry['content'] = data
    return entry


def choose(found):
    """(the newest usable candidate or None, the skipped ones with their reason)."""
    skipped = []
    for entry in found:
        if entry['error']:
            skipped.append(dict(path=entry['path'], reason=entry['error']))
            continue
        if entry['exists']:
            parsed = cfg.parse_cfg(entry['content'])
            if parsed.errors:
                skipped.append(dict(path=entry['path'], reason='malformed, it would break "import ssl": %s'
                                    % cfg.format_errors(parsed.errors)))
                continue
        return entry, skipped
    return None, skipped


def value_of(content):
    """What RHEL 7's Python acts on with ``content`` (None: no file)."""
    if content is None:
        return 'missing'
    parsed = cfg.parse_cfg(content)
    return 'malformed' if parsed.errors else parsed.verify


def plan_restore(dest, old, allow_disable=False):
    """What a restore of ``dest`` (now ``old``) puts back: a dict with ``chosen`` (None when there
    is no history at all: the file was never changed with backup on, so it stays as it is),
    ``skipped``, ``new`` (bytes, None for no file) and ``changed``. HistoryError when a history
    exists but nothing in it may be restored."""
    found = candidates(dest)
    if not found:
        return dict(chosen=None, skipped=[], new=old, changed=False)
    chosen, skipped = choose(found)
    if chosen is None:
        raise HistoryError('nothing to restore %s from: %s. Nothing was changed; put a value in place instead '
                           '(verify=..., or state=absent)'
                           % (dest, '; '.join('%s: %s' % (entry['path'], entry['reason']) for entry in skipped)))
    new = chosen['content'] if chosen['exists'] else None
    if value_of(new) == 'disable' and not allow_disable:
        raise HistoryError('%s says verify=disable: restoring it turns HTTPS certificate verification off for every '
                           'Python 2 program on this host that reads %s. Nothing was changed; set allow_disable=true '
                           '(the policy role: pep493_https_allow_insecure_host_default: true) if that is really meant'
                           % (chosen['path'], dest))
    return dict(chosen=chosen, skipped=skipped, new=new, changed=new != old)


def record_original(dest, old, now=None):
    """Record ``dest`` as it is (``old``; None: no file) unless a complete record exists.
    Returns the record's path when one was written, else None. Not for check mode."""
    path = record_path(dest)
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            parse_record(read_file(path))
            return None
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise safe_file.SafeFileError('cannot read the record %s: %s; nothing was changed' % (path, exc.strerror))
    except HistoryError:
        pass  # one a crash left incomplete: the file is still as it was, record it again
    except safe_file.SafeFileError as exc:
        raise safe_file.SafeFileError('cannot read the record %s: %s; nothing was changed' % (path, exc))
    stamp = time.strftime(_STAMP, time.gmtime(time.time() if now is None else now)) + 'Z'
    tmp = '%s.%d.tmp' % (path, os.getpid())
    _remove(tmp)
    if not safe_file.create_exclusive(tmp, render_record(old, stamp), 0o600):
        raise safe_file.SafeFileError('cannot create %s: it exists; nothing was changed' % tmp)
    try:
        try:
            os.link(tmp, path)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
            os.rename(tmp, path)  # an incomplete record: the file is still the original
    except OSError as exc:
        raise safe_file.SafeFileError('cannot record %s before changing it: %s; nothing was changed'
                                      % (dest, exc.strerror))
    finally:
        _remove(tmp)
    return path


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def discard(path):
    """Remove a record this run wrote (``path``; nothing when None) after a failed change."""
    if path:
        _remove(path)


def keep_before_restore(dest, old, now=None):
    """A copy of the file a restore replaces, created exclusively beside it; its path."""
    mode = stat.S_IMODE(os.lstat(dest).st_mode)
    stamp = time.strftime(_STAMP, time.localtime(time.time() if now is None else now))
    path = '%s.%d.%s%s' % (dest, os.getpid(), stamp, BEFORE_RESTORE_SUFFIX)
    if not safe_file.create_exclusive(path, old, mode):
        raise safe_file.SafeFileError('cannot keep a copy of %s before restoring it: %s exists; nothing was changed'
                                      % (dest, path))
    return path


def restore(module, dest, old, allow_disable=False):
    """Put ``dest`` back as the history says (see plan_restore), through the collection's writer,
    after keeping the current file. Returns the result fields; raises HistoryError/SafeFileError."""
    plan = plan_restore(dest, old, allow_disable)
    result = dict(changed=plan['changed'], previous=value_of(old), verify=value_of(plan['new']), path=dest,
                  restored_from=plan['chosen']['path'] if plan['chosen'] else None, skipped_backups=plan['skipped'],
                  created=False,
                  msg=restore_message(dest, plan, module.check_mode))
    if plan['changed']:
        result['diff'], omitted = safe_file.content_diff(old, plan['new'], dest,
                                                         dest if plan['new'] is not None else '/dev/null')
        if omitted:
            result['diff_omitted'] = [omitted]
    if not plan['changed'] or module.check_mode:
        result['created'] = old is None and plan['new'] is not None
        return result
    if old is not None:
        result['backup_file'] = keep_before_restore(dest, old)
    if plan['new'] is None:
        safe_file.remove_file(module, dest)
        return result
    safe_file.make_dirs(module, os.path.dirname(dest))
    safe_file.write_atomic(module, dest, plan['new'], check=_reads_back_as(plan['new']))
    result['created'] = old is None
    return result


def restore_message(dest, plan, check_mode):
    if plan['chosen'] is None:
        return ('%s has no backup (%s.<pid>.<date>~) and no record (%s): it was never changed with backup on, and '
                'is left as it is.' % (dest, dest, record_path(dest)))
    source = plan['chosen']['path']
    if not plan['changed']:
        return '%s is already as in %s.' % (dest, source)
    verb = 'would be ' if check_mode else ''
    if plan['new'] is None:
        return '%s %sremoved: there was no file before its first change (%s).' % (dest, verb, source)
    return '%s %srestored from %s.' % (dest, verb, source)


def _reads_back_as(wanted):
    def check(content):
        if content != wanted:
            return 'the new content differs from the backup'
        parsed = cfg.parse_cfg(content)
        return 'the new content would be malformed: %s' % cfg.format_errors(parsed.errors) if parsed.errors else None
    return check
