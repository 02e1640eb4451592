# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Differential harness only: the default output, plus one JSON line per task result in
$PEP493_RUNNER_RECORD (the result as the callbacks get it, warnings and exceptions as text), and
one JSON line per command the connection runs or file it transfers in $PEP493_RUNNER_TRACE
(the local connection is wrapped when this module loads, before the workers fork)."""

from __future__ import annotations

import dataclasses
import json
import os
import re

from ansible.plugins.callback.default import CallbackModule as DefaultCallback
from ansible.plugins.connection import local

DOCUMENTATION = """
name: runner_record
type: stdout
short_description: default output, plus each task result and each command run, as JSON lines (tests only)
description:
  - Used by tests/runner/run, the differential check of the collection runner against ansible-core's own payload.
extends_documentation_fragment:
  - default_callback
  - result_format_callback
"""

_exec_command = local.Connection.exec_command
_put_file = local.Connection.put_file


def _trace(entry):
    path = os.environ.get('PEP493_RUNNER_TRACE')
    if path:
        with open(path, 'a', encoding='utf-8') as handle:
            handle.write(json.dumps(entry) + '\n')


def _only_python(cmd):
    """With $PEP493_RUNNER_ONLY_PYTHON, interpreter discovery finds no other name: a host with one Python.
    (Discovery asks ``command -v 'NAME'`` for each name, shell-quoted once more inside ``sh -c '...'``.)"""
    only = os.environ.get('PEP493_RUNNER_ONLY_PYTHON')
    if not only:
        return cmd

    def hide(match):
        return match.group(0) if match.group(2) == only else 'command -v %spep493-hidden%s' % (match.group(1), match.group(1))
    return re.sub(r"""command -v ('"'"'|')([^'"]+)\1""", hide, cmd)


def _traced_exec_command(self, cmd, in_data=None, sudoable=True):
    cmd = _only_python(cmd)
    # the runner's payload names itself on its fourth line; without pipelining its file name does
    runner = b'pep493_https_runner' in (in_data or b'')[:400] or '/pep493_https_' in cmd
    _trace(dict(kind='exec', cmd=cmd, stdin=len(in_data or b''), runner=runner))
    return _exec_command(self, cmd, in_data=in_data, sudoable=sudoable)


def _traced_put_file(self, in_path, out_path):
    _trace(dict(kind='put', dest=out_path))
    return _put_file(self, in_path, out_path)


local.Connection.exec_command = _traced_exec_command
local.Connection.put_file = _traced_put_file


def plain(value):
    """A result value as plain JSON: 2.19+'s warning, deprecation and error objects as their text."""
    event = getattr(value, 'event', None)
    if event is not None and dataclasses.is_dataclass(value):
        trace = getattr(event, 'formatted_traceback', None)
        return dict(msg=str(getattr(event, 'msg', '')), traceback=trace) if trace else str(getattr(event, 'msg', ''))
    if isinstance(value, dict):
        return dict((str(k), plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return str(value)


class CallbackModule(DefaultCallback):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'runner_record'

    def _record(self, result, status):
        path = os.environ.get('PEP493_RUNNER_RECORD')
        if not path:
            return
        data = getattr(result, 'result', None)
        if not isinstance(data, dict):
            data = result._result
        entry = dict(host=result._host.get_name(), task=result._task.get_name(), status=status, result=plain(dict(data)))
        with open(path, 'a', encoding='utf-8') as handle:
            handle.write(json.dumps(entry, sort_keys=True) + '\n')

    def v2_runner_on_ok(self, result, *args, **kwargs):
        self._record(result, 'changed' if result._result.get('changed') else 'ok')
        return super().v2_runner_on_ok(result, *args, **kwargs)

    def v2_runner_on_failed(self, result, *args, **kwargs):
        self._record(result, 'failed')
        return super().v2_runner_on_failed(result, *args, **kwargs)

    def v2_runner_on_skipped(self, result, *args, **kwargs):
        self._record(result, 'skipped')
        return super().v2_runner_on_skipped(result, *args, **kwargs)

    def v2_runner_on_unreachable(self, result, *args, **kwargs):
        self._record(result, 'unreachable')
        return super().v2_runner_on_unreachable(result, *args, **kwargs)
