# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's file methods, as ansible-core 2.16's AnsibleModule has them: the common file
arguments, setting SELinux context, owner, group, mode and chattr attributes when they differ
(with the same ``diff`` entries and messages), the atomic move that keeps an existing file's
mode, owner and context, and the facts about a result's ``path``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import grp
import os
import pwd
import shutil
import stat
import sys
import tempfile
import traceback

from ansible_collections.pep493.https.plugins.module_utils._runner import modes
from ansible_collections.pep493.https.plugins.module_utils._runner.results import to_bytes, to_native, to_text

NEW_FILE_BITS = 0o666
# rename() errors that a copy through a temp file beside the destination may get around
RENAME_WORKAROUND = (errno.EPERM, errno.EXDEV, errno.EACCES, errno.ETXTBSY, errno.EBUSY)


def _selinux():
    """The ``selinux`` binding, or None: its absence means no context is handled."""
    try:
        import selinux
    except ImportError:
        return None
    return selinux


class FileMethods(object):
    """Mixed into the runner's module; needs ``check_mode``, ``fail_json``, ``run_command``,
    ``get_bin_path`` and ``_selinux_special_fs``."""

    _selinux_state = None

    # --- SELinux -----------------------------------------------------------------------------
    def _selinux_flags(self):
        if self._selinux_state is None:
            binding = _selinux()
            self._selinux_state = (binding is not None and binding.is_selinux_enabled() == 1,
                                   binding is not None and binding.is_selinux_mls_enabled() == 1)
        return self._selinux_state

    def selinux_enabled(self):
        return self._selinux_flags()[0]

    def selinux_mls_enabled(self):
        return self._selinux_flags()[1]

    def selinux_initial_context(self):
        return [None, None, None, None] if self.selinux_mls_enabled() else [None, None, None]

    def selinux_default_context(self, path, mode=0):
        context = self.selinux_initial_context()
        if not self.selinux_enabled():
            return context
        try:
            found = _selinux().matchpathcon(to_native(path), mode)
        except OSError:
            return context
        if found[0] == -1:
            return context
        return found[1].split(':', 3)  # the level, last, may hold ":"

    def selinux_context(self, path):
        context = self.selinux_initial_context()
        if not self.selinux_enabled():
            return context
        try:
            found = _selinux().lgetfilecon_raw(to_native(path))
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                self.fail_json(path=path, msg='path %s does not exist' % path)
            self.fail_json(path=path, msg='failed to retrieve selinux context')
        if found[0] == -1:
            return context
        return found[1].split(':', 3)

    def find_mount_point(self, path):
        current = os.path.realpath(to_bytes(os.path.expanduser(os.path.expandvars(path))))
        while not os.path.ismount(current):
            current = os.path.dirname(current)
        return to_text(current)

    def is_special_selinux_path(self, path):
        """(True, the mount's context) on a file system SELinux labels as a whole (NFS, FUSE ...)."""
        try:
            with open('/proc/mounts', 'r') as handle:
                mounts = handle.readlines()
        except Exception:
            return False, None
        mount_point = self.find_mount_point(path)
        for line in mounts:
            fields = line.split(' ', 4)
            if to_bytes(mount_point) == to_bytes(fields[1]):
                for kind in self._selinux_special_fs:
                    if kind in fields[2]:
                        return True, self.selinux_context(mount_point)
        return False, None

    def set_context_if_different(self, path, context, changed, diff=None):
        if not self.selinux_enabled():
            return changed
        if self.check_file_absent_if_check_mode(path):
            return True
        current = self.selinux_context(path)
        wanted = list(current)
        special, special_context = self.is_special_selinux_path(path)
        if special:
            wanted = special_context
        else:
            for index in range(len(current)):
                if len(context) > index:
                    if context[index] is not None and context[index] != current[index]:
                        wanted[index] = context[index]
                    elif context[index] is None:
                        wanted[index] = current[index]
        if current != wanted:
            _record(diff, 'secontext', current, wanted)
            try:
                if self.check_mode:
                    return True
                code = _selinux().lsetfilecon(to_native(path), ':'.join(wanted))
            except OSError as exc:
                self.fail_json(path=path, msg='invalid selinux context: %s' % to_native(exc),
                               new_context=wanted, cur_context=current, input_was=context)
            if code != 0:
                self.fail_json(path=path, msg='set selinux context failed')
            changed = True
        return changed

    # --- owner, group, mode, attributes ------------------------------------------------------
    def check_file_absent_if_check_mode(self, path):
        return self.check_mode and not os.path.exists(path)

    def user_and_group(self, path, expand=True):
        b_path = _expanded(path, expand)
        info = os.lstat(b_path)
        return info.st_uid, info.st_gid

    def set_owner_if_different(self, path, owner, changed, diff=None, expand=True):
        if owner is None:
            return changed
        b_path = _expanded(path, expand)
        if self.check_file_absent_if_check_mode(b_path):
            return True
        old_uid = self.user_and_group(b_path, expand)[0]
        try:
            uid = int(owner)
        except ValueError:
            try:
                uid = pwd.getpwnam(owner).pw_uid
            except KeyError:
                self.fail_json(path=to_text(b_path), msg='chown failed: failed to look up user %s' % owner)
        if old_uid != uid:
            _record(diff, 'owner', old_uid, uid)
            if self.check_mode:
                return True
            try:
                os.lchown(b_path, uid, -1)
            except (IOError, OSError) as exc:
                self.fail_json(path=to_text(b_path), msg='chown failed: %s' % to_text(exc))
            changed = True
        return changed

    def set_group_if_different(self, path, group, changed, diff=None, expand=True):
        if group is None:
            return changed
        b_path = _expanded(path, expand)
        if self.check_file_absent_if_check_mode(b_path):
            return True
        old_gid = self.user_and_group(b_path, expand)[1]
        try:
            gid = int(group)
        except ValueError:
            try:
                gid = grp.getgrnam(group).gr_gid
            except KeyError:
                self.fail_json(path=to_text(b_path), msg='chgrp failed: failed to look up group %s' % group)
        if old_gid != gid:
            _record(diff, 'group', old_gid, gid)
            if self.check_mode:
                return True
            try:
                os.lchown(b_path, -1, gid)
            except OSError:
                self.fail_json(path=to_text(b_path), msg='chgrp failed')
            changed = True
        return changed

    @classmethod
    def _symbolic_mode_to_octal(cls, path_stat, symbolic_mode):
        return modes.symbolic_to_octal(path_stat, symbolic_mode)

    def set_mode_if_different(self, path, mode, changed, diff=None, expand=True):
        if mode is None:
            return changed
        b_path = _expanded(path, expand)
        if self.check_file_absent_if_check_mode(b_path):
            return True
        path_stat = os.lstat(b_path)
        if not isinstance(mode, int):
            try:
                mode = int(mode, 8)
            except Exception:
                try:
                    mode = self._symbolic_mode_to_octal(path_stat, mode)
                except Exception as exc:
                    self.fail_json(path=to_text(b_path), msg='mode must be in octal or symbolic form',
                                   details=to_native(exc))
                if mode != stat.S_IMODE(mode):
                    self.fail_json(path=to_text(b_path), msg='Invalid mode supplied, only permission info is allowed',
                                   details=mode)
        old_mode = stat.S_IMODE(path_stat.st_mode)
        if old_mode == mode:
            return changed
        _record(diff, 'mode', '0%03o' % old_mode, '0%03o' % mode)
        if self.check_mode:
            return True
        try:
            _chmod_no_follow(b_path, mode)
        except OSError as exc:
            ignorable = (errno.EACCES, errno.EPERM, errno.EROFS)
            if not (os.path.islink(b_path) and exc.errno in ignorable) and exc.errno not in (errno.ENOENT, errno.ELOOP):
                raise
        except Exception as exc:
            self.fail_json(path=to_text(b_path), msg='chmod failed', details=to_native(exc),
                           exception=traceback.format_exc())
        if stat.S_IMODE(os.lstat(b_path).st_mode) != old_mode:
            changed = True
        return changed

    def get_file_attributes(self, path, include_version=True):
        found = {}
        lsattr = self.get_bin_path('lsattr', False)
        if lsattr:
            try:
                code, out, err = self.run_command([lsattr, '-vd' if include_version else '-d', path])
                if code == 0:
                    fields = out.split()
                    if include_version:
                        found['version'] = fields[0].strip()
                    found['attr_flags'] = fields[1 if include_version else 0].replace('-', '').strip()
                    found['attributes'] = [ATTRIBUTE_NAMES[flag] for flag in found['attr_flags'] if flag in ATTRIBUTE_NAMES]
            except Exception:
                pass
        return found

    def set_attributes_if_different(self, path, attributes, changed, diff=None, expand=True):
        if attributes is None:
            return changed
        b_path = _expanded(path, expand)
        if self.check_file_absent_if_check_mode(b_path):
            return True
        existing = self.get_file_attributes(b_path, include_version=False)
        operator = '='
        if attributes.startswith(('-', '+')):
            operator, attributes = attributes[0], attributes[1:]
        if existing.get('attr_flags', '') != attributes or operator == '-':
            chattr = self.get_bin_path('chattr')
            if chattr:
                changed = True
                if diff is not None:
                    diff.setdefault('before', {})['attributes'] = existing.get('attr_flags')
                    diff.setdefault('after', {})['attributes'] = '%s%s' % (operator, attributes)
                if not self.check_mode:
                    try:
                        code, out, err = self.run_command([chattr, '%s%s' % (operator, attributes), b_path])
                        if code != 0 or err:
                            raise Exception('Error while setting attributes: %s' % (out + err))
                    except Exception as exc:
                        self.fail_json(path=to_text(b_path), msg='chattr failed', details=to_native(exc),
                                       exception=traceback.format_exc())
        return changed

    def set_fs_attributes_if_different(self, file_args, changed, diff=None, expand=True):
        path = file_args['path']
        changed = self.set_context_if_different(path, file_args['secontext'], changed, diff)
        changed = self.set_owner_if_different(path, file_args['owner'], changed, diff, expand)
        changed = self.set_group_if_different(path, file_args['group'], changed, diff, expand)
        changed = self.set_mode_if_different(path, file_args['mode'], changed, diff, expand)
        return self.set_attributes_if_different(path, file_args['attributes'], changed, diff, expand)

    def load_file_common_arguments(self, params, path=None):
        if path is None:
            path = params.get('path', params.get('dest', None))
        if path is None:
            return {}
        path = os.path.expanduser(os.path.expandvars(path))
        if params.get('follow', False) and os.path.islink(to_bytes(path)):
            path = to_native(os.path.realpath(to_bytes(path)))
        context = [params.get('seuser'), params.get('serole'), params.get('setype')]
        if self.selinux_mls_enabled():
            context.append(params.get('selevel'))
        default = self.selinux_default_context(path)
        for index in range(len(default)):
            if context[index] == '_default':
                context[index] = default[index]
        return dict(path=path, mode=params.get('mode'), owner=params.get('owner'), group=params.get('group'),
                    seuser=params.get('seuser'), serole=params.get('serole'), setype=params.get('setype'),
                    selevel=params.get('selevel'), secontext=context, attributes=params.get('attributes'))

    # --- moving a file into place ------------------------------------------------------------
    def atomic_move(self, src, dest, unsafe_writes=False):
        """rename() ``src`` over ``dest``, the new file taking the old one's mode, owner and
        context; a new file gets 0666 less the umask and the euid's (or the setgid folder's) group."""
        context = None
        dest_stat = None
        b_src, b_dest = to_bytes(src), to_bytes(dest)
        if os.path.exists(b_dest):
            try:
                dest_stat = os.stat(b_dest)
                os.chmod(b_src, dest_stat.st_mode & modes.PERMISSION_BITS)
                os.chown(b_src, dest_stat.st_uid, dest_stat.st_gid)
                if hasattr(os, 'chflags') and hasattr(dest_stat, 'st_flags'):
                    _copy_flags(b_src, dest_stat.st_flags)
            except OSError as exc:
                if exc.errno != errno.EPERM:
                    raise
            if self.selinux_enabled():
                context = self.selinux_context(dest)
        elif self.selinux_enabled():
            context = self.selinux_default_context(dest)
        creating = not os.path.exists(b_dest)
        try:
            os.rename(b_src, b_dest)
        except (IOError, OSError) as exc:
            if exc.errno not in RENAME_WORKAROUND:
                self.fail_json(msg='Could not replace file: %s to %s: %s' % (src, dest, to_native(exc)),
                               exception=traceback.format_exc())
            self._move_through_temp(src, dest, b_src, b_dest, dest_stat, context, unsafe_writes)
        if creating:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(b_dest, NEW_FILE_BITS & ~umask)
            folder = os.stat(os.path.dirname(b_dest))
            try:
                os.chown(b_dest, os.geteuid(), folder.st_gid if folder.st_mode & stat.S_ISGID else os.getegid())
            except OSError:
                pass  # only root (or a generous system) may give a file away
        if self.selinux_enabled():
            self.set_context_if_different(dest, context, False)

    def _move_through_temp(self, src, dest, b_src, b_dest, dest_stat, context, unsafe_writes):
        """rename() refused (another device, a busy or protected target): copy beside ``dest``, then rename."""
        folder = os.path.dirname(b_dest)
        try:
            handle, b_tmp = tempfile.mkstemp(prefix=b'.ansible_tmp', dir=folder, suffix=os.path.basename(b_dest))
        except (OSError, IOError) as exc:
            message = 'The destination directory (%s) is not writable by the current user. Error was: %s' % (
                os.path.dirname(dest), to_native(exc))
            if unsafe_writes:
                return self._unsafe_writes(b_src, b_dest)
            self.fail_json(msg=message, exception=traceback.format_exc())
        try:
            try:
                os.close(handle)
                try:
                    shutil.move(b_src, b_tmp)
                except OSError:
                    shutil.copy2(b_src, b_tmp)
                if self.selinux_enabled():
                    self.set_context_if_different(b_tmp, context, False)
                try:
                    tmp_stat = os.stat(b_tmp)
                    if dest_stat and (tmp_stat.st_uid != dest_stat.st_uid or tmp_stat.st_gid != dest_stat.st_gid):
                        os.chown(b_tmp, dest_stat.st_uid, dest_stat.st_gid)
                except OSError as exc:
                    if exc.errno != errno.EPERM:
                        raise
                try:
                    os.rename(b_tmp, b_dest)
                except (shutil.Error, OSError, IOError) as exc:
                    if unsafe_writes and exc.errno == errno.EBUSY:
                        self._unsafe_writes(b_tmp, b_dest)
                    else:
                        self.fail_json(msg='Unable to make %s into to %s, failed final rename from %s: %s'
                                       % (src, dest, b_tmp, to_native(exc)), exception=traceback.format_exc())
            except (shutil.Error, OSError, IOError) as exc:
                if unsafe_writes:
                    self._unsafe_writes(b_src, b_dest)
                else:
                    self.fail_json(msg='Failed to replace file: %s to %s: %s' % (src, dest, to_native(exc)),
                                   exception=traceback.format_exc())
        finally:
            self.cleanup(b_tmp)

    def _unsafe_writes(self, src, dest):
        try:
            with open(dest, 'wb') as out:
                with open(src, 'rb') as source:
                    shutil.copyfileobj(source, out)
        except (shutil.Error, OSError, IOError) as exc:
            self.fail_json(msg='Could not write data to file (%s) from (%s): %s' % (dest, src, to_native(exc)),
                           exception=traceback.format_exc())

    def cleanup(self, path):
        if os.path.exists(path):
            try:
                os.unlink(path)
            except OSError as exc:
                sys.stderr.write('could not cleanup %s: %s' % (path, to_native(exc)))

    # --- the facts a result about a path gets -------------------------------------------------
    def add_path_info(self, result):
        path = result.get('path', result.get('dest', None))
        if path is None:
            return result
        b_path = to_bytes(path)
        if not os.path.exists(b_path):
            return result
        uid, gid = self.user_and_group(path)
        result['uid'], result['gid'] = uid, gid
        try:
            result['owner'] = pwd.getpwuid(uid)[0]
        except KeyError:
            result['owner'] = str(uid)
        try:
            result['group'] = grp.getgrgid(gid)[0]
        except KeyError:
            result['group'] = str(gid)
        info = os.lstat(b_path)
        result['mode'] = '0%03o' % stat.S_IMODE(info.st_mode)
        if os.path.islink(b_path):
            result['state'] = 'link'
        elif os.path.isdir(b_path):
            result['state'] = 'directory'
        elif os.stat(b_path).st_nlink > 1:
            result['state'] = 'hard'
        else:
            result['state'] = 'file'
        if self.selinux_enabled():
            result['secontext'] = ':'.join(self.selinux_context(path))
        result['size'] = info.st_size
        return result


# chattr's letters and the names lsattr's long form gives them
ATTRIBUTE_NAMES = {
    'A': 'noatime', 'a': 'append', 'c': 'compressed', 'C': 'nocow', 'd': 'nodump', 'D': 'dirsync',
    'e': 'extents', 'E': 'encrypted', 'h': 'blocksize', 'i': 'immutable', 'I': 'indexed',
    'j': 'journalled', 'N': 'inline', 's': 'zero', 'S': 'synchronous', 't': 'notail',
    'T': 'blockroot', 'u': 'undelete', 'X': 'compressedraw', 'Z': 'compresseddirty',
}


def _expanded(path, expand):
    b_path = to_bytes(path)
    return os.path.expanduser(os.path.expandvars(b_path)) if expand else b_path


def _record(diff, key, before, after):
    if diff is not None:
        diff.setdefault('before', {})[key] = before
        diff.setdefault('after', {})[key] = after


def _copy_flags(b_src, flags):
    try:
        os.chflags(b_src, flags)
    except OSError as exc:
        if exc.errno not in [getattr(errno, name) for name in ('EOPNOTSUPP', 'ENOTSUP') if hasattr(errno, name)]:
            raise


def _chmod_no_follow(b_path, mode):
    """chmod the path itself, never a link's target (Linux has no lchmod: a link is left alone)."""
    if hasattr(os, 'lchmod'):
        os.lchmod(b_path, mode)
    elif not os.path.islink(b_path):
        os.chmod(b_path, mode)
    else:
        target = os.stat(b_path)
        os.chmod(b_path, mode)
        if os.stat(b_path).st_mode != target.st_mode:
            os.chmod(b_path, stat.S_IMODE(target.st_mode))
