# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a module's main() and SIGKILL the process at a chosen point (crash tests).

Usage: killpoint.py MODULE ARGS_FILE N [UMASK]
  N = 0      run to the end; print "killpoint-ops=<count>" (file operations seen) to stderr
  N > 0      SIGKILL this process just before its N-th file operation
  N = ready  print "ready" to stderr once the module is imported, then run (the parent kills)
  N = gate:PATH  print "ready", wait until PATH exists, then run (simultaneous starts)
File operations are the audit events below, counted only once main() runs.
"""

import importlib
import os
import signal
import sys
import time

FILE_EVENTS = frozenset([
    'open', 'os.rename', 'os.replace', 'os.remove', 'os.rmdir', 'os.mkdir', 'os.chmod', 'os.chown',
    'os.utime', 'os.link', 'os.symlink', 'os.truncate', 'os.listdir', 'os.scandir', 'tempfile.mkstemp',
    'shutil.copyfile', 'shutil.copymode', 'shutil.copystat', 'shutil.move',
])

name, args_file, point = sys.argv[1], sys.argv[2], sys.argv[3]
if len(sys.argv) > 4:
    os.umask(int(sys.argv[4], 8))
sys.argv = [name, args_file]
module = importlib.import_module('ansible_collections.pep493.https.plugins.modules.' + name)
state = {'armed': False, 'ops': 0}


def hook(event, args):
    if not state['armed'] or event not in FILE_EVENTS:
        return
    state['ops'] += 1
    if state['ops'] == target:
        os.kill(os.getpid(), signal.SIGKILL)


target = int(point) if point.isdigit() else -1
sys.addaudithook(hook)
if not point.isdigit():
    sys.stderr.write('ready\n')
    sys.stderr.flush()
if point.startswith('gate:'):
    while not os.path.exists(point[5:]):
        time.sleep(0.001)
state['armed'] = True
try:
    module.main()
finally:
    state['armed'] = False
    sys.stderr.write('killpoint-ops=%d\n' % state['ops'])
