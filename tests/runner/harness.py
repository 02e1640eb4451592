# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The differential check of the collection runner (tests/runner/run; controller Python 3.10+).

For each controller (ansible-core 2.16, 2.19, 2.20, 2.21; 2.17 and 2.18 when asked), target Python
(2.7, 3.6, 3.12; 3.7 and 3.8 when asked) and mode (MODES: pipelining on and off, become through su
with and without pipelining, -vvv with tracebacks, ANSIBLE_KEEP_REMOTE_FILES, interpreter discovery,
async), scenarios.yml runs every module, as a user's task runs it (through the runner; async through
ansible-core's own payload where that runs), with the local connection against a fresh throw-away tree:
normal calls, check mode, diff, bad arguments, warnings, no_log, the task's environment. Each task's
result (as the callbacks get it), the warnings it shows and the tree left behind are compared with
what ansible-core 2.16's own payload gives on the same target in the same mode (the reference run
``2.16-own``: PEP493_HTTPS_RUNNER=never); only what must
differ is normalised (NORMALISED below). Every run must also leave no temp file behind (remote and
local temp folders, the modules' TMPDIR) and put no module argument on a command line the connection
runs (the callback wraps the local connection and records them). Exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get('PEP493_ROOT') or os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
HERE = os.path.join(ROOT, 'tests', 'runner')
CONTROLLERS = {
    '2.16': os.environ.get('PEP493_VENV_LEGACY', os.path.join(ROOT, '.venv-legacy')),
    # the reference: 2.16 with every call through ansible-core's own payload (PEP493_HTTPS_RUNNER=never)
    '2.16-own': os.environ.get('PEP493_VENV_LEGACY', os.path.join(ROOT, '.venv-legacy')),
    '2.19': os.path.join(ROOT, '.cache', 'venv-2.19.14'),
    '2.20': os.path.join(ROOT, '.cache', 'venv-2.20.10'),
    '2.21': os.environ.get('PEP493_VENV', os.path.join(ROOT, '.venv')),
    # not run by default (--controllers 2.17,2.18): past their end of life, between the two ends tested
    '2.17': os.path.join(ROOT, '.cache', 'venv-2.17.14'),
    '2.18': os.path.join(ROOT, '.cache', 'venv-2.18.12'),
}
DEFAULT_CONTROLLERS = ('2.16', '2.19', '2.20', '2.21')
# X.Y=interpreter,... (tests/runner/run finds real ones with tools/find-python)
TARGETS = dict(item.split('=', 1) for item in os.environ.get('PEP493_RUNNER_TARGETS', '').split(',') if item) or dict(
    (version, os.path.join(ROOT, '.cache', 'pybin', 'python' + version)) for version in ('2.7', '3.6', '3.12'))
MODES = {
    'pipelining': dict(env={'ANSIBLE_PIPELINING': 'True'}),
    'no-pipelining': dict(env={'ANSIBLE_PIPELINING': 'False'}),
    'become': dict(env={'ANSIBLE_PIPELINING': 'True', 'ANSIBLE_BECOME': 'True', 'ANSIBLE_BECOME_METHOD': 'su'}),
    'become-no-pipelining': dict(env={'ANSIBLE_PIPELINING': 'False', 'ANSIBLE_BECOME': 'True', 'ANSIBLE_BECOME_METHOD': 'su'}),
    # 2.19+ keep a module's traceback out of the result unless asked (2.16 ignores the setting)
    'verbose': dict(env={'ANSIBLE_PIPELINING': 'True', 'ANSIBLE_DISPLAY_TRACEBACK': 'error'}, args=['-vvv']),
    # the payloads stay in the remote temp folder (checked), the results are the same
    'keep-remote-files': dict(env={'ANSIBLE_PIPELINING': 'True', 'ANSIBLE_KEEP_REMOTE_FILES': '1'}),
    # no interpreter set: discovery, on a host whose only Python is python2.7 (the wrapped
    # connection hides every other name discovery asks for; PATH leads python2.7 to the target's
    # interpreter, whatever its version)
    'discovery': dict(env={'ANSIBLE_PIPELINING': 'True', 'ANSIBLE_PYTHON_INTERPRETER': 'auto',
                           'PEP493_RUNNER_ONLY_PYTHON': 'python2.7'}, discovery=True),
    # not compared: ansible-core's own payload runs async, the runner refuses it clearly (async_outcome)
    'async': dict(env={'ANSIBLE_PIPELINING': 'True'}, playbook='async.yml'),
}
# Strings only module arguments contain: none may appear on a command line the connection runs
ARGUMENT_MARKERS = ('runner-marker-7d1f', 'CHG-4711', 'ambari.example.com', 'no-such-user-pep493', 'colour', 'u=rwz')
BASELINE = '2.16-own'

JUNK_CFG = b'verify=disable\n[https]\nverify=enable\nthis line is junk\n'
UNITS = {
    'usr/lib/systemd/system/legacy-agent.service': b'[Service]\nExecStart=/usr/bin/python2 /opt/agent/agent.py\n',
    'usr/lib/systemd/system/worker@.service': b'[Service]\nExecStart=/usr/bin/python2.7 /opt/worker.py %i\n',
    'usr/lib/systemd/system/other.service': b'[Service]\nExecStart=/usr/bin/env python2 /opt/other.py\n',
    'usr/lib/systemd/system/new-agent.service': b'[Service]\nExecStart=/usr/bin/python3 /opt/new.py\n',
}


# t/ is laid out as a RHEL host's trust store (its update tool and anchor folder), for ca_trust
TRUST_STORE = {'t/usr/bin/update-ca-trust': b'#!/bin/sh\nexit 0\n'}
TRUST_ANCHORS = 't/etc/pki/ca-trust/source/anchors'
CA_FILE = 'ca.pem'


def make_ca(folder):
    """The PEM bytes of a CA made by the openssl CLI in ``folder``: once per check, so that every run
    trusts the very same CA (its fingerprint and dates are in the results compared)."""
    os.makedirs(folder, exist_ok=True)
    key, pem = os.path.join(folder, 'ca.key'), os.path.join(folder, CA_FILE)
    subprocess.run(['openssl', 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key],
                   check=True, capture_output=True)
    subprocess.run(['openssl', 'req', '-x509', '-new', '-key', key, '-subj', '/O=Runner Check/CN=Runner Check Root',
                    '-days', '3650', '-addext', 'basicConstraints=critical,CA:TRUE',
                    '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', pem], check=True, capture_output=True)
    with open(pem, 'rb') as handle:
        return handle.read()


def make_tree(root, ca):
    for folder in ('a/etc', 'b/etc', 'junk/etc/python', 's/etc/systemd/system', 's/usr/bin', TRUST_ANCHORS, 't/usr/bin'):
        os.makedirs(os.path.join(root, folder))
    for path, content in TRUST_STORE.items():
        with open(os.path.join(root, path), 'wb') as handle:
            handle.write(content)
        os.chmod(os.path.join(root, path), 0o755)
    with open(os.path.join(root, CA_FILE), 'wb') as handle:
        handle.write(ca)
    with open(os.path.join(root, 'junk/etc/python/cert-verification.cfg'), 'wb') as handle:
        handle.write(JUNK_CFG)
    for path, content in UNITS.items():
        full = os.path.join(root, 's', path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'wb') as handle:
            handle.write(content)


def tree_state(root):
    """Every path under ``root``: type, mode, owner, size, content digest, chattr flags."""
    state = {}
    flags = {}
    listing = subprocess.run(['lsattr', '-R', '-a', root], capture_output=True, text=True, check=False).stdout
    for line in listing.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[1].startswith(root):
            flags[os.path.relpath(parts[1], root)] = parts[0].replace('-', '')
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            relative = normalise_text(os.path.relpath(path, root))
            entry = dict(mode='%o' % info.st_mode, uid=info.st_uid, gid=info.st_gid,
                         flags=flags.get(os.path.relpath(path, root)))
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, 'rb') as handle:
                    content = STAMP.sub(b'<time>', handle.read())
                entry['sha256'] = hashlib.sha256(content).hexdigest()
            state[relative] = entry
    return state


# NORMALISED: what must differ between two runs of the same calls, and nothing else.
#  - the run's own work folder (each run has its own throw-away tree) and a backup's pid and time;
#  - keys ansible-core itself adds to every result for its callbacks (_ansible_*);
#  - a traceback's file paths (the runner's sources come from its payload, 2.16's from its zip)
#    and the frames inside AnsibleModule itself (the runner's stand-in has its own);
#  - Python's type names in the controller's argument checks: ansible-core 2.19+ says "str"
#    where 2.16 said "<class 'str'>" (the controller's own validator, as for its own modules), and
#    the list of valid booleans, a set printed in no set order (it differs from run to run on 2.16 too);
#  - the "(traceback unavailable)" or "(traceback missing)" exception ansible-core 2.19+ give every
#    failure without a traceback from the target (2.21: a failure of the action itself too), and the
#    controller's frames they chain after it;
#  - time stamps written into a file (the record of a file before its first change, the UTC record
#    of its backups, which also names each backup by its pid and local time) and into a result (when
#    the verdict and the forecast were made: `audited`, `forecasted`);
#  - where verification_policy's facts go: ansible-core 2.21 registers them itself (the verdict
#    and the forecast as cacheable facts, what was applied for the play), so its result's
#    `ansible_facts` holds them all; 2.16 - 2.20 get only the cacheable ones there and the role
#    keeps the rest with set_fact. The facts themselves are compared: they are in the result too;
#  - where ansible-core's own payload ran on both sides (PEP493_HTTPS_RUNNER=never), the tracebacks each
#    version's own AnsibleModule captures (2.19+ capture one for every failure when asked to);
#  - in the module results verification_policy keeps (it runs the modules itself), the keys
#    ansible-core 2.19+ writes into every module result it hands an action, whichever payload ran
#    (`deprecations: []`, `failed: false`), a warning given twice in one task's result, which
#    2.19+ keep once, and the `warnings` of those nested results: 2.21 puts into each every warning
#    the task has captured so far (those of the modules run before it too), 2.16 - 2.20 none; the
#    task's own warnings are compared, and must be shown.
# ANSIBLE_INJECT_INVOCATION=True asks ansible-core 2.21's own payload to put `invocation` in its
# results, as 2.16 always did (the runner always does); the other versions do not know it.
BACKUP = re.compile(r'\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d(?=[.~])')
STAMP = re.compile(rb'\d{4}-\d\d-\d\d@\d\d:\d\d:\d\dZ|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z'
                   rb'|\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d(?=[.~])')
ISO_TIME = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z')
BOOLEANS = re.compile(r'(is not a valid boolean\.)\s+Valid booleans include: .*')
TYPE_NAME = re.compile(r"<(?:type|class) '([a-z]+)'>")
WORK = re.compile(r'/work/[^\s"\']*?/\.cache/runner-diff/[^/\s"\']+/[^/\s"\']+/[^/\s"\']+')


def normalise_text(text):
    text = WORK.sub('<work>', text)
    text = ISO_TIME.sub('<time>', text)
    text = BACKUP.sub('.<pid>.<time>', text)
    text = BOOLEANS.sub(r'\1 Valid booleans include: <the set, in no set order>', text)
    return TYPE_NAME.sub(r'\1', text)


def normalise_traceback(text):
    """Only the collection's own frames, by file and function (None: no traceback from the target).
    What ansible-core 2.19+ chain after it (the controller's own frames, for a failure the target
    or the action itself reported) is each version's own."""
    text = re.split(r'\n\nThe above (?:target|action) exception was the direct cause', text)[0]
    if text.strip() in ('(traceback missing)', '(traceback unavailable)'):
        return None
    frames = re.findall(r'File "[^"]*?(ansible_collections/pep493/[^"]+)", line \d+, in (\S+)', text)
    return [list(frame) for frame in frames if '/_runner/' not in frame[0]]


def normalise(value, key=None, nested=False):
    if isinstance(value, dict) and isinstance(value.get('exception'), str) and normalise_traceback(value['exception']) is None:
        # ansible-core 2.19+ gives every failed result an exception, with no traceback from the target
        value = dict((k, v) for k, v in value.items() if k != 'exception')
    if isinstance(value, dict):
        return dict((k, normalise(v, k, True)) for k, v in value.items() if not k.startswith('_ansible_')
                    and not (k == 'deprecations' and v == []) and not (k == 'failed' and v is False)
                    and not (k == 'warnings' and nested))
    if isinstance(value, list):
        if key == 'warnings':
            value = [v for i, v in enumerate(value) if v not in value[:i]]
        return [normalise(v, None, nested) for v in value]
    if isinstance(value, str):
        if key == 'exception':
            return dict(traceback=normalise_traceback(value))
        return normalise_text(value)
    return value


def squeezed(text):
    """``text`` without whitespace: ansible-core 2.16 wraps a warning (also after a hyphen)."""
    return ''.join(text.split())


def shown(warning, output):
    """Whether ``output`` shows ``warning`` as a warning (ansible-core 2.16 wraps it over lines)."""
    return '[WARNING]:' + squeezed(warning) in squeezed(output)


def one_run(controller, target, mode, work, ca):
    """Run scenarios.yml (``ca``: the PEM of the CA its ca_trust calls trust); returns the run's facts
    and its own problems (temp files, command lines)."""
    if os.path.exists(work):
        shutil.rmtree(work)
    tree = os.path.join(work, 'tree')
    for folder in ('rtmp', 'ltmp', 'tmp', 'home'):
        os.makedirs(os.path.join(work, folder))
    make_tree(tree, ca)
    settings = MODES[mode]
    env = dict(os.environ)
    env.update(settings['env'])
    env['PEP493_HTTPS_RUNNER'] = 'never' if controller == BASELINE else 'auto'
    interpreter = ['-e', 'ansible_python_interpreter=%s' % TARGETS[target]]
    if settings.get('discovery'):
        os.makedirs(os.path.join(work, 'bin'))
        os.symlink(os.path.realpath(TARGETS[target]), os.path.join(work, 'bin', 'python2.7'))
        env['PATH'] = '%s:/usr/bin:/bin' % os.path.join(work, 'bin')
        interpreter = []
    env.update(
        ANSIBLE_STDOUT_CALLBACK='runner_record', ANSIBLE_CALLBACK_PLUGINS=os.path.join(HERE, 'callback_plugins'),
        ANSIBLE_LOCAL_TEMP=os.path.join(work, 'ltmp'), ANSIBLE_REMOTE_TEMP=os.path.join(work, 'rtmp'),
        TMPDIR=os.path.join(work, 'tmp'), HOME=os.path.join(work, 'home'), ANSIBLE_ASYNC_DIR=os.path.join(work, 'async'), ANSIBLE_NOCOLOR='1', COLUMNS='2000',
        ANSIBLE_RETRY_FILES_ENABLED='False', ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, '.cache', 'self'),
        PEP493_RUNNER_RECORD=os.path.join(work, 'record.jsonl'), PEP493_RUNNER_TRACE=os.path.join(work, 'trace.jsonl'),
        PYTHONWARNINGS='ignore', ANSIBLE_INJECT_INVOCATION='True')
    command = [os.path.join(CONTROLLERS[controller], 'bin', 'ansible-playbook'), '-i', 'target,',
               os.path.join(HERE, settings.get('playbook', 'scenarios.yml')), '-e', 'pep493_root=%s' % tree,
               '-e', 'ansible_connection=local'] + interpreter + settings.get('args', [])
    started = time.time()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, check=False)
    output = done.stdout + done.stderr
    with open(os.path.join(work, 'output.log'), 'w', encoding='utf-8') as handle:
        handle.write(output)
    problems = []
    records = []
    if os.path.exists(env['PEP493_RUNNER_RECORD']):
        with open(env['PEP493_RUNNER_RECORD'], encoding='utf-8') as handle:
            records = [json.loads(line) for line in handle]
    if not records:
        problems.append('no task result recorded (exit %d): %s' % (done.returncode, output[-2000:]))
    kept = env.get('ANSIBLE_KEEP_REMOTE_FILES') == '1'
    for _second in range(20):  # ansible-core's async wrapper removes its folder after it answered
        if kept or not os.listdir(os.path.join(work, 'rtmp')):
            break
        time.sleep(1)
    for folder in ('rtmp', 'tmp'):
        left = os.listdir(os.path.join(work, folder))
        if left and not (kept and folder == 'rtmp'):
            problems.append('left behind in %s: %s' % (folder, ', '.join(sorted(left))))
    if kept:
        files = [name for _folder, _dirs, names in os.walk(os.path.join(work, 'rtmp')) for name in names]
        if not files:
            problems.append('ANSIBLE_KEEP_REMOTE_FILES: no payload kept')
    if [name for name in os.listdir(os.path.join(work, 'ltmp')) if os.listdir(os.path.join(work, 'ltmp', name))]:
        problems.append('left behind in the local temp folder: %s' % os.listdir(os.path.join(work, 'ltmp')))
    commands = []
    if os.path.exists(env['PEP493_RUNNER_TRACE']):
        with open(env['PEP493_RUNNER_TRACE'], encoding='utf-8') as handle:
            commands = [json.loads(line) for line in handle]
    for entry in commands:
        text = entry.get('cmd') or entry.get('dest') or ''
        for marker in ARGUMENT_MARKERS:
            if marker in text:
                problems.append('a module argument (%s) on a command line: %s' % (marker, text[:300]))
    for record in records:
        for warning in record['result'].get('warnings') or []:
            if not shown(str(warning), output):
                problems.append('%s: warning not shown: %s' % (record['task'], warning))
    return dict(records=records, tree=tree_state(tree), commands=len(commands), seconds=time.time() - started,
                runner_runs=sum(1 for c in commands if c.get('runner'))), problems


def async_outcome(controller, target, facts):
    """ansible-core's own payload runs async; the runner refuses it, saying why (ASYNC_REFUSAL)."""
    problems = []
    for record in facts['records']:
        refused = 'cannot run asynchronously' in str(record['result'].get('msg', ''))
        # an async task runs through ansible-core's own payload where that runs (2.16 everywhere), else it is refused
        runner_target = controller not in (BASELINE, '2.16') and target in ('2.7', '3.6')
        if record['task'].startswith('async'):
            if runner_target and not (record['status'] == 'failed' and refused):
                problems.append('%s: not refused clearly: %s' % (record['task'], record['result'].get('msg')))
            if not runner_target and record['status'] not in ('ok', 'changed'):
                problems.append('%s: %s: %s' % (record['task'], record['status'], record['result'].get('msg')))
        elif record['status'] not in ('ok', 'changed'):
            problems.append('%s: %s: %s' % (record['task'], record['status'], record['result'].get('msg')))
    return problems


def without_discovery_warnings(result):
    """Interpreter discovery's own warnings are the controller's words, in each version its own."""
    kept = [w for w in result.get('warnings') or [] if 'interpreter' not in str(w)]
    result = dict(result)
    result.pop('warnings', None)
    if kept:
        result['warnings'] = kept
    return result


def compare(base, other, mode):
    """The differences between two runs of the same calls, after NORMALISED."""
    differences = []
    own_payload = not other['runner_runs']
    if len(base['records']) != len(other['records']):
        differences.append('%d task results, against %d' % (len(other['records']), len(base['records'])))
    for left, right in zip(base['records'], other['records']):
        if left['task'] != right['task']:
            differences.append('task order: %s against %s' % (right['task'], left['task']))
            continue
        if left['status'] != right['status']:
            differences.append('%s: %s against %s' % (left['task'], right['status'], left['status']))
        a, b = normalise(left['result']), normalise(right['result'])
        if left['task'].startswith('policy '):
            a.pop('ansible_facts', None)
            b.pop('ansible_facts', None)
        if MODES[mode].get('discovery'):
            a, b = without_discovery_warnings(a), without_discovery_warnings(b)
        if own_payload:  # ansible-core's own AnsibleModule on both sides: each version its own tracebacks
            a.pop('exception', None)
            b.pop('exception', None)
        for key in sorted(set(a) | set(b)):
            if a.get(key, '<absent>') != b.get(key, '<absent>'):
                differences.append('%s: %s is %s, against %s' % (left['task'], key, json.dumps(b.get(key, '<absent>'))[:600],
                                                                 json.dumps(a.get(key, '<absent>'))[:600]))
    a, b = base['tree'], other['tree']
    for path in sorted(set(a) | set(b)):
        if a.get(path) != b.get(path):
            differences.append('tree: %s is %s, against %s' % (path, b.get(path), a.get(path)))
    return differences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--controllers', default=','.join(DEFAULT_CONTROLLERS))
    parser.add_argument('--targets', default=','.join(TARGETS))
    parser.add_argument('--modes', default=','.join(MODES))
    parser.add_argument('--work', default=os.path.join(ROOT, '.cache', 'runner-diff'))
    options = parser.parse_args()
    controllers = options.controllers.split(',')
    if BASELINE not in controllers:
        controllers.insert(0, BASELINE)
    failed = False
    summary = []
    ca = make_ca(os.path.join(options.work, 'ca'))
    for target in options.targets.split(','):
        for mode in options.modes.split(','):
            runs = {}
            for controller in controllers:
                facts, problems = one_run(controller, target, mode, os.path.join(options.work, controller, target, mode), ca)
                runs[controller] = facts
                print('%s on Python %s, %s: %d task results, %d commands (%d through the runner), %.0f s%s'
                      % (controller, target, mode, len(facts['records']), facts['commands'], facts['runner_runs'],
                         facts['seconds'], '' if not problems else ': %d PROBLEMS' % len(problems)), flush=True)
                for problem in problems:
                    print('    ' + problem)
                failed = failed or bool(problems)
            for controller in controllers:
                if mode == 'async':
                    problems = async_outcome(controller, target, runs[controller])
                    for problem in problems:
                        print('  %s on Python %s, async: %s' % (controller, target, problem))
                    failed = failed or bool(problems)
                    summary.append((controller, target, mode, len(runs[controller]['records']),
                                    runs[controller]['runner_runs'], len(problems)))
                    continue
                if controller == BASELINE:
                    continue
                differences = compare(runs[BASELINE], runs[controller], mode)
                summary.append((controller, target, mode, len(runs[controller]['records']), runs[controller]['runner_runs'],
                                len(differences)))
                if differences:
                    failed = True
                    print('  %s against %s on Python %s, %s: %d differences' % (controller, BASELINE, target, mode, len(differences)))
                    for difference in differences:
                        print('    ' + difference)
    print('\ncontroller  target  mode                  calls  through the runner  differences')
    for controller, target, mode, calls, runner, differences in summary:
        print('%-10s  %-6s  %-20s  %5d  %18d  %11d' % (controller, target, mode, calls, runner, differences))
    print('compared: %d calls in %d runs against ansible-core 2.16\'s own payload; %s'
          % (sum(row[3] for row in summary), len(summary), 'DIFFERENCES' if failed else 'no difference'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
