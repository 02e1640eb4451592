# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write each task's wall time and the per-host counts of a play to a JSON file.

Enabled by benchmarks/run only (ANSIBLE_CALLBACKS_ENABLED=bench_timer), the file is named by
PEP493_BENCH_TIMES. A task's time runs from its start to the start of the next task (or the
end of the play): with the linear strategy that is the time until every host has finished it.
Each task also carries host_seconds, its time summed over the hosts (from the moment a worker
starts it for a host to the moment its result for that host comes back), and hosts, how many.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: bench_timer
type: aggregate
short_description: Task wall times and per-host counts for benchmarks/run
description:
  - Writes a JSON object with the keys C(tasks) (name, action, seconds of each task, and
    host_seconds, its time summed over hosts), C(stats)
    (per host counts) and C(seconds) (the whole play) to the file named by C(PEP493_BENCH_TIMES).
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
'''

import json
import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'bench_timer'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._tasks = []
        self._current = None
        self._host_started = {}
        self._started = time.time()

    def _close_current(self):
        if self._current is not None:
            self._current['seconds'] = round(time.time() - self._current.pop('_t0'), 4)
            self._current['host_seconds'] = round(self._current['host_seconds'], 4)
            self._tasks.append(self._current)
            self._current = None

    def _open(self, task, handler):
        self._close_current()
        self._current = {'name': task.get_name(), 'action': task.action, 'handler': handler, '_t0': time.time(),
                         'host_seconds': 0.0, 'hosts': 0}
        self._host_started = {}

    def v2_runner_on_start(self, host, task):
        self._host_started[host.get_name()] = time.time()

    def _host_done(self, result):
        started = self._host_started.pop(result._host.get_name(), None)
        if started is not None and self._current is not None:
            self._current['host_seconds'] += time.time() - started
            self._current['hosts'] += 1

    def v2_runner_on_ok(self, result):
        self._host_done(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._host_done(result)

    def v2_runner_on_skipped(self, result):
        self._host_done(result)

    def v2_runner_on_unreachable(self, result):
        self._host_done(result)

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._open(task, False)

    def v2_playbook_on_handler_task_start(self, task):
        self._open(task, True)

    def v2_playbook_on_stats(self, stats):
        self._close_current()
        path = os.environ.get('PEP493_BENCH_TIMES')
        if not path:
            return
        hosts = {}
        for host in sorted(stats.processed.keys()):
            summary = stats.summarize(host)
            hosts[host] = dict((k, summary.get(k, 0)) for k in ('ok', 'changed', 'failures', 'unreachable', 'skipped'))
        with open(path, 'w') as handle:
            json.dump({'tasks': self._tasks, 'stats': hosts, 'seconds': round(time.time() - self._started, 4)}, handle)
