# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's stand-in for the part of AnsibleModule the collection's backends use, behaving
as ansible-core 2.16's does on the same host: parameters (checked on the controller; paths and
environment fallbacks completed here, on the target), check and diff mode, warnings, the
invocation log, cleanup files, and the result JSON with its exit code."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import locale
import os
import re
import sys
import tempfile
import traceback

from ansible_collections.pep493.https.plugins.module_utils._runner.commands import CommandMethods
from ansible_collections.pep493.https.plugins.module_utils._runner.files import FileMethods
from ansible_collections.pep493.https.plugins.module_utils._runner.results import (
    PY2, STRINGS, jsonify, native_strings, no_log_strings, remove_values, to_native, to_text)

# A parameter named like a password whose spec does not say no_log: not logged, and warned about
PASSWORD_NAME = re.compile(r'^(?:.+[-_\s])?pass(?:[-_\s]?(?:word|phrase|wrd|wd)?)(?:[-_\s].+)?$', re.I)
# What a locale that does not exist is replaced with, best first
PARSABLE_LOCALES = ['C.utf8', 'C.UTF-8', 'en_US.utf8', 'en_US.UTF-8', 'C', 'POSIX']
TRUE_WORDS = ('y', 'yes', 'on', '1', 'true', 't', '1.0')
FALSE_WORDS = ('n', 'no', 'off', '0', 'false', 'f', '0.0')


class RunnerModule(FileMethods, CommandMethods):
    """Built from the request the controller sent; ``params`` are the validated parameters."""

    def __init__(self, request):
        internal = request['internal']
        self._name = to_native(internal['module_name'])
        self.check_mode = bool(internal['check_mode'])
        self._diff = bool(internal['diff'])
        self.no_log = bool(internal['no_log'])
        self._debug = bool(internal['debug'])
        self._verbosity = internal['verbosity']
        self._selinux_special_fs = internal['selinux_special_fs']
        self._syslog_facility = to_native(internal['syslog_facility'])
        self._shell = internal['shell_executable']
        self.cleanup_files = []
        self._warnings = []
        self._deprecations = [dict(item) for item in request['deprecations']]
        self.no_log_values = set(to_native(value) for value in request['no_log_values'])
        self.params = native_strings(request['params'])
        self._no_log_flags = request['no_log_flags']
        self.aliases = request['aliases']
        self._check_locale()
        self._complete_params(request)
        # the checks' own warnings (an option given with its alias), made on the controller: not logged
        self._warnings.extend(to_native(warning) for warning in request['warnings'])
        if self.check_mode and not request['supports_check_mode']:
            self.exit_json(skipped=True, msg='remote module (%s) does not support check mode' % self._name)
        if not self.no_log:
            self._log_invocation()
        self._set_cwd()

    # --- parameters ----------------------------------------------------------------------------
    def _complete_params(self, request):
        """What the controller must leave to the target: ``~`` and ``$VAR`` in path options, and
        options whose default comes from the target's environment."""
        for place in request['paths']:
            _expand_at(self.params, place)
        for name, variables, kind, no_log in request['env_fallbacks']:
            for variable in variables:
                if variable in os.environ:
                    value = os.environ[variable]
                    try:
                        self.params[to_native(name)] = _convert(value, kind)
                    except TypeError as exc:
                        self.fail_json(msg="argument '%s' is of type %s and we were unable to convert to %s: %s"
                                       % (name, type(value), kind, to_native(exc)))
                    if no_log:
                        self.no_log_values.update(no_log_strings(value))
                    break

    def boolean(self, value):
        if value is None or isinstance(value, bool):
            return value
        try:
            return _convert(value, 'bool')
        except TypeError as exc:
            self.fail_json(msg=to_native(exc))

    # --- what the module says ------------------------------------------------------------------
    def warn(self, warning):
        if not isinstance(warning, STRINGS):
            raise TypeError('warn requires a string not a %s' % type(warning))
        self._warnings.append(warning)
        self.log('[WARNING] %s' % warning)

    def deprecate(self, msg, version=None, date=None, collection_name=None):
        if not isinstance(msg, STRINGS):
            raise TypeError('deprecate requires a string not a %s' % type(msg))
        entry = dict(msg=msg, collection_name=collection_name)
        entry.update(dict(date=date) if date is not None else dict(version=version))
        self._deprecations.append(entry)
        self.log('[DEPRECATION WARNING] %s %s' % (msg, date if date is not None else version))

    def debug(self, msg):
        if self._debug:
            self.log('[debug] %s' % msg)

    def log(self, msg, log_args=None):
        """To the target's journal (or syslog), as ansible-core's modules log; never with no_log."""
        if self.no_log:
            return
        text = to_text(msg, errors='surrogate_then_replace')
        for secret in self.no_log_values:
            text = text.replace(to_text(secret), u'********')
        identity = 'ansible-%s' % self._name
        try:
            from systemd import journal
        except ImportError:
            journal = None
        if journal is not None and hasattr(journal, 'send'):
            try:
                fields = dict(('_%s' % k.upper() if k.upper() in _JOURNAL_RESERVED else k.upper(), str(v))
                              for k, v in (log_args or {}).items())
                journal.send(MESSAGE=u'%s %s' % (identity, text), MODULE=self._name, **fields)
                return
            except IOError:
                pass
        try:
            import syslog
            syslog.openlog(str(identity), 0, getattr(syslog, self._syslog_facility, syslog.LOG_USER))
            syslog.syslog(syslog.LOG_INFO, text.encode('utf-8', 'replace') if PY2 else text)
        except (ImportError, TypeError):
            pass

    def _log_invocation(self):
        shown = {}
        for name in self.params:
            canonical = self.aliases.get(name, name)
            no_log = self._no_log_flags.get(canonical)
            if no_log is None and PASSWORD_NAME.search(name):
                shown[name] = 'NOT_LOGGING_PASSWORD'
                self.warn('Module did not set no_log for %s' % name)
            elif self.boolean(no_log):
                shown[name] = 'NOT_LOGGING_PARAMETER'
            else:
                shown[name] = to_native(self.params[name]) if isinstance(self.params[name], STRINGS) else str(self.params[name])
        words = ' '.join('%s=%s' % (to_native(k), to_native(v)) for k, v in shown.items())
        self.log('Invoked with %s' % words if words else 'Invoked', log_args=shown)

    # --- cleanup and the result ----------------------------------------------------------------
    def add_cleanup_file(self, path):
        if path not in self.cleanup_files:
            self.cleanup_files.append(path)

    def do_cleanup_files(self):
        for path in self.cleanup_files:
            self.cleanup(path)

    def exit_json(self, **kwargs):
        self.do_cleanup_files()
        self._print_result(kwargs)
        sys.exit(0)  # pylint: disable=ansible-bad-function

    def fail_json(self, msg, **kwargs):
        kwargs['failed'] = True
        kwargs['msg'] = msg
        if 'exception' not in kwargs and sys.exc_info()[2] and (self._debug or self._verbosity >= 3):
            trace = ''.join(traceback.format_tb(sys.exc_info()[2]))
            if PY2:  # Python 2 keeps the last exception even once it was handled
                trace = 'WARNING: The below traceback may *not* be related to the actual failure.\n' + trace
            kwargs['exception'] = trace
        self.do_cleanup_files()
        self._print_result(kwargs)
        sys.exit(1)  # pylint: disable=ansible-bad-function

    def _print_result(self, result):
        self.add_path_info(result)
        if 'invocation' not in result:
            result['invocation'] = {'module_args': self.params}
        if 'warnings' in result:
            given = result['warnings']
            for warning in (given if isinstance(given, list) else [given]):
                self.warn(warning)
        if self._warnings:
            result['warnings'] = tuple(self._warnings)
        if 'deprecations' in result:
            given = result['deprecations']
            for item in (given if isinstance(given, list) else [given]):
                if isinstance(item, dict):
                    self.deprecate(item['msg'], version=item.get('version'), date=item.get('date'),
                                   collection_name=item.get('collection_name'))
                elif isinstance(item, (list, tuple)) and len(item) == 2:
                    self.deprecate(item[0], version=item[1])
                else:
                    self.deprecate(item)  # pylint: disable=ansible-deprecated-no-version
        if self._deprecations:
            result['deprecations'] = tuple(self._deprecations)
        kept = dict((k, v) for k, v in result.items() if v is None or isinstance(v, bool))
        result = remove_values(result, self.no_log_values)
        result.update(kept)
        # the module's one line of output, as AnsibleModule prints it
        print('\n%s' % jsonify(result))  # pylint: disable=ansible-bad-function

    # --- the process ---------------------------------------------------------------------------
    def _check_locale(self):
        """A locale the host does not have falls back to one that parses (C.UTF-8 first), as ansible-core does."""
        try:
            locale.setlocale(locale.LC_ALL, '')
        except locale.Error:
            best = 'C'
            program = self.get_bin_path('locale')
            if program:
                code, out, err = self.run_command([program, '-a'])
                available = out.strip().splitlines() if code == 0 and out else []
                best = next((name for name in PARSABLE_LOCALES if name in available), 'C')
            locale.setlocale(locale.LC_ALL, best)
            for variable in ('LANG', 'LC_ALL', 'LC_MESSAGES'):
                os.environ[variable] = best
        except Exception as exc:
            self.fail_json(msg='An unknown error was encountered while attempting to validate the locale: %s'
                           % to_native(exc), exception=traceback.format_exc())

    def _set_cwd(self):
        """A working folder this user may read (become can leave it in one it may not)."""
        try:
            cwd = os.getcwd()
            if os.access(cwd, os.F_OK | os.R_OK):
                return cwd
        except Exception:
            pass
        for cwd in (os.path.expandvars('$HOME'), tempfile.gettempdir()):
            try:
                if os.access(cwd, os.F_OK | os.R_OK):
                    os.chdir(cwd)
                    return cwd
            except Exception:
                pass
        return None


_JOURNAL_RESERVED = ('PRIORITY', 'MESSAGE', 'MESSAGE_ID', 'CODE_FILE', 'CODE_LINE', 'CODE_FUNC',
                     'SYSLOG_FACILITY', 'SYSLOG_IDENTIFIER', 'SYSLOG_PID')


def _expand_at(params, place):
    """Expand ``~`` and ``$VAR`` at ``place``, a list of keys where "*" stands for every element."""
    if not place:
        return
    key, rest = place[0], place[1:]
    if key == '*':
        items = params if isinstance(params, list) else []
        for index, item in enumerate(items):
            if rest:
                _expand_at(item, rest)
            elif isinstance(item, STRINGS):
                items[index] = os.path.expanduser(os.path.expandvars(item))
        return
    key = to_native(key)
    if not isinstance(params, dict) or params.get(key) is None:
        return
    if rest:
        _expand_at(params[key], rest)
    elif isinstance(params[key], STRINGS):
        params[key] = os.path.expanduser(os.path.expandvars(params[key]))


def _convert(value, kind):
    """An environment value as the option's type (the types a fallback may have here)."""
    if kind in ('str', 'raw'):
        return value
    if kind == 'path':
        return os.path.expanduser(os.path.expandvars(value))
    if kind == 'bool':
        word = to_native(value).lower().strip()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise TypeError("The value '%s' is not a valid boolean.  Valid booleans include: %s"
                        % (to_native(value), ', '.join(repr(w) for w in sorted(TRUE_WORDS + FALSE_WORDS))))
    try:
        return {'int': int, 'float': float}[kind](value)
    except KeyError:
        raise TypeError('no conversion to %s here' % kind)
    except ValueError:
        raise TypeError('%s cannot be converted to %s' % (type(value), kind))
