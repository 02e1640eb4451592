# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's command methods, as ansible-core 2.16's AnsibleModule has them: finding a
program (PATH, then the sbin folders) and running one, with its output read until the command
has exited and both pipes are drained (a daemon it leaves behind holding them is not waited for)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import fcntl
import os
import re
import select
import shlex
import signal
import subprocess
import traceback

from ansible_collections.pep493.https.plugins.module_utils._runner.results import (
    BYTES, PY2, TEXT, MASK, to_bytes, to_native, to_text)

SBIN_DIRS = ['/sbin', '/usr/sbin', '/usr/local/sbin']
# an argument that names a password: its value (the next argument, or after "=") is masked
PASSWORD_ARGUMENT = re.compile(r'^[-]{0,2}pass[-]?(word|wd)?')
READ_SIZE = 32768

try:
    from shlex import quote as shell_quote
except ImportError:  # Python 2
    from pipes import quote as shell_quote


def find_program(name, extra_dirs=None):
    """The first executable ``name`` in ``extra_dirs``, PATH, then /sbin, /usr/sbin and
    /usr/local/sbin; ValueError naming the folders searched when there is none."""
    dirs = [d for d in (extra_dirs or []) if d is not None and os.path.exists(d)]
    dirs += os.environ.get('PATH', '').split(os.pathsep)
    dirs += [d for d in SBIN_DIRS if d not in dirs and os.path.exists(d)]
    for folder in dirs:
        if not folder:
            continue
        path = os.path.join(folder, name)
        if os.path.exists(path) and not os.path.isdir(path) and os.stat(path).st_mode & 0o111:
            return path
    raise ValueError('Failed to find required executable "%s" in paths: %s' % (name, os.pathsep.join(dirs)))


class CommandMethods(object):
    """Mixed into the runner's module; needs ``fail_json``, ``log``, ``no_log_values`` and ``_shell``."""

    run_command_environ_update = {}

    def get_bin_path(self, arg, required=False, opt_dirs=None):
        try:
            return find_program(arg, opt_dirs)
        except ValueError as exc:
            if required:
                self.fail_json(msg=to_text(exc))
            return None

    def _clean_args(self, args):
        """The command as reported in a failure: passwords and no_log values masked."""
        if isinstance(args, (TEXT, BYTES)):
            args = shlex.split(to_native(args))
        shown = []
        hide_next = False
        for arg in (to_native(a) for a in args):
            if hide_next:
                hide_next = False
                shown.append(MASK)
                continue
            if PASSWORD_ARGUMENT.match(arg):
                if '=' in arg:
                    shown.append('%s=%s' % (arg[:arg.find('=')], MASK))
                    continue
                hide_next = True
            for secret in self.no_log_values:
                arg = arg.replace(to_native(secret), MASK)
            shown.append(arg)
        return ' '.join(shell_quote(arg) for arg in shown)

    def run_command(self, args, check_rc=False, close_fds=True, executable=None, data=None, binary_data=False,
                    path_prefix=None, cwd=None, use_unsafe_shell=False, environ_update=None, umask=None,
                    encoding='utf-8', errors='surrogate_or_strict', expand_user_and_vars=True, handle_exceptions=True):
        """(rc, stdout, stderr) of ``args``; native strings (bytes on Python 2), or bytes with ``encoding=None``."""
        if not isinstance(args, (list, BYTES, TEXT)):
            self.fail_json(rc=257, cmd=args, msg="Argument 'args' to run_command must be list or string")
        shell = False
        if use_unsafe_shell:
            if isinstance(args, list):
                args = b' '.join(to_bytes(shell_quote(to_native(a))) for a in args)
            else:
                args = to_bytes(args)
            if executable:
                args = [to_bytes(executable), b'-c', args]
            elif self._shell not in (None, '/bin/sh'):
                args = [to_bytes(self._shell), b'-c', args]
            else:
                shell = True
        else:
            if isinstance(args, (BYTES, TEXT)):
                args = shlex.split(to_bytes(args) if PY2 else to_text(args))
            if expand_user_and_vars:
                args = [to_bytes(os.path.expanduser(os.path.expandvars(a))) for a in args if a is not None]
            else:
                args = [to_bytes(a) for a in args if a is not None]

        env = os.environ.copy()
        env.update(self.run_command_environ_update or {})
        env.update(environ_update or {})
        if path_prefix:
            env['PATH'] = '%s:%s' % (path_prefix, env['PATH']) if env.get('PATH') else path_prefix
        if 'PYTHONPATH' in env:
            # ansible-core drops its own payload's entries (and empty ones) from what children get
            kept = [p for p in env['PYTHONPATH'].split(':')
                    if p and not p.endswith('/ansible_modlib.zip') and not p.endswith('/debug_dir')]
            if kept and any(kept):
                env['PYTHONPATH'] = ':'.join(kept)

        def prepare_child():
            if PY2:  # Python 2 ignores SIGPIPE, and so would the child
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            if umask:
                os.umask(umask)

        options = dict(executable=executable, shell=shell, close_fds=close_fds, stdin=subprocess.PIPE if data else None,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=prepare_child, env=env)
        if cwd:
            cwd = to_bytes(os.path.abspath(os.path.expanduser(cwd)))
            if os.path.isdir(cwd):
                options['cwd'] = cwd
        try:
            # this is run_command itself
            child = subprocess.Popen(args, **options)  # pylint: disable=ansible-bad-function
            if data:
                if not binary_data:
                    data += '\n'
                child.stdin.write(to_bytes(data))
                child.stdin.close()
            stdout, stderr = _drain(child)
            code = child.returncode
        except (OSError, IOError) as exc:
            self.log('Error Executing CMD:%s Exception:%s' % (self._clean_args(args), to_native(exc)))
            if handle_exceptions:
                self.fail_json(rc=exc.errno, stdout=b'', stderr=b'', msg=to_native(exc), cmd=self._clean_args(args))
            raise
        except Exception as exc:
            self.log('Error Executing CMD:%s Exception:%s' % (self._clean_args(args), to_native(traceback.format_exc())))
            if handle_exceptions:
                self.fail_json(rc=257, stdout=b'', stderr=b'', msg=to_native(exc), exception=traceback.format_exc(),
                               cmd=self._clean_args(args))
            raise
        if code != 0 and check_rc:
            message = to_native(stderr.rstrip())
            for secret in self.no_log_values:
                message = message.replace(to_native(secret), MASK)
            self.fail_json(cmd=self._clean_args(args), rc=code, stdout=stdout, stderr=stderr, msg=message)
        if encoding is not None:
            return code, to_native(stdout, encoding, errors), to_native(stderr, encoding, errors)
        return code, stdout, stderr


def _drain(child):
    """Read both pipes until the child has exited and they are empty or closed."""
    out_fd, err_fd = child.stdout.fileno(), child.stderr.fileno()
    output = {out_fd: [], err_fd: []}
    poller = select.poll()
    for fd in output:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        poller.register(fd, select.POLLIN | select.POLLPRI)
    open_fds = set(output)
    while True:
        events = _poll(poller)
        for fd, _event in events:
            try:
                chunk = os.read(fd, READ_SIZE)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EINTR):
                    continue
                raise
            if chunk:
                output[fd].append(chunk)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
        if (not events or not open_fds) and child.poll() is not None:
            break
        if not open_fds and child.poll() is None:
            child.wait()
            break
    child.stdout.close()
    child.stderr.close()
    return b''.join(output[out_fd]), b''.join(output[err_fd])


def _poll(poller):
    try:
        return poller.poll(1000)
    except (OSError, IOError, select.error) as exc:
        if getattr(exc, 'errno', None) == errno.EINTR or (exc.args and exc.args[0] == errno.EINTR):
            return []
        raise
