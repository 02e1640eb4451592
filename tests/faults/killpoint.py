# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a module's main() in its own process and SIGKILL it at a chosen point (crash tests).

Usage: killpoint.py MODULE ARGS_FILE N
  N = 0          run to the end; print "killpoint-ops=<count>" (file operations seen) to stderr
  N > 0          SIGKILL the process just before its N-th file operation
  N = gate:PATH  print "ready" to stderr, wait until PATH exists, then run (simultaneous starts)
       killpoint.py MODULE serve
  Imports the module once, then for each JSON line on stdin
  {"args_file", "point", "umask", "delay", "out"} forks a child that runs main() as above
  (with "delay": the parent SIGKILLs it that many seconds after the fork) and answers one
  JSON line {"returncode", "ops"}; the child's stdout and stderr go to the file "out".
File operations are the audit events below, counted only while main() runs.
"""

import importlib
import json
import os
import signal
import sys
import time
import traceback

FILE_EVENTS = frozenset([
    'open', 'os.rename', 'os.replace', 'os.remove', 'os.rmdir', 'os.mkdir', 'os.chmod', 'os.chown',
    'os.utime', 'os.link', 'os.symlink', 'os.truncate', 'os.listdir', 'os.scandir', 'tempfile.mkstemp',
    'shutil.copyfile', 'shutil.copymode', 'shutil.copystat', 'shutil.move',
])
state = {'armed': False, 'ops': 0, 'target': -1}


def hook(event, args):
    if not state['armed'] or event not in FILE_EVENTS:
        return
    state['ops'] += 1
    if state['ops'] == state['target']:
        os.kill(os.getpid(), signal.SIGKILL)


def run_main(module, name, args_file, target):
    """main() with the kill point armed; returns the exit code."""
    from ansible.module_utils import basic
    basic._ANSIBLE_ARGS = None
    sys.argv = [name, args_file]
    state.update(armed=True, ops=0, target=target)
    code = 0
    try:
        module.main()
    except SystemExit as exc:
        code = exc.code or 0
    except BaseException:
        traceback.print_exc()
        code = 1
    state['armed'] = False
    sys.stdout.flush()
    sys.stderr.write('killpoint-ops=%d\n' % state['ops'])
    sys.stderr.flush()
    return code


def serve(module, name):
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        os.close(os.open(request['out'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        pid = os.fork()
        if pid == 0:
            fd = os.open(request['out'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            if request.get('umask') is not None:
                os.umask(request['umask'])
            os._exit(run_main(module, name, request['args_file'], request.get('point') or -1))
        if request.get('delay') is not None:
            time.sleep(request['delay'])
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        dummy, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        sys.stdout.write(json.dumps({'returncode': code}) + '\n')
        sys.stdout.flush()


def main():
    name = sys.argv[1]
    module = importlib.import_module('ansible_collections.pep493.https.plugins.modules.' + name)
    sys.addaudithook(hook)
    if sys.argv[2] == 'serve':
        serve(module, name)
        return
    args_file, point = sys.argv[2], sys.argv[3]
    if point.startswith('gate:'):
        sys.stderr.write('ready\n')
        sys.stderr.flush()
        while not os.path.exists(point[5:]):
            time.sleep(0.001)
    sys.exit(run_main(module, name, args_file, int(point) if point.isdigit() else -1))


if __name__ == '__main__':
    main()
