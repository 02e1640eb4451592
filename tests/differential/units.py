# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Random unit trees for the differential check against systemd (tests/differential/run).

``units.py SEED COUNT WORK`` writes COUNT random services (a tenth of them template instances) under
WORK/tree (a tree to copy over a container's /) and WORK/units.json: the unit names and, for each, the
ExecStart= it runs and whether PYTHONHTTPSVERIFY reaches Python 2 code there. Each unit takes its
environment from a random mix of Environment=, EnvironmentFile= (plain, optional, globs, systemd's
file syntax at its edges), UnsetEnvironment=, PassEnvironment= and resets, in the unit file and in
drop-ins across /etc, /run, /usr/local/lib and /usr/lib; an ExecStopPost= records the value
systemd gave it. Some units are masked (a link to /dev/null or an empty file in /etc, over a unit
file in /usr/lib), some have an alias (a link under another name) with drop-ins of its own, and the
seed picks one system.conf.d ``DefaultEnvironment=`` (or none) for the whole manager and the
variable in PID 1's own environment (WORK/pid1.env, what ``PassEnvironment=`` passes).

About a third of the units then change while they run: WORK/changes holds the files added or
rewritten (a drop-in of their own, an environment file) and WORK/removed.txt the drop-ins removed;
the run applies them, reloads systemd, and asks whether a restart would change what each process
has (``pending_restart``) before it restarts them all to see."""

import json
import os
import random
import sys

SLEEP = '/opt/pep493-diff/sleep.py'
ENV_LINES = ['Environment=PYTHONHTTPSVERIFY=0', 'Environment=PYTHONHTTPSVERIFY=1', 'Environment=',
             'Environment="PYTHONHTTPSVERIFY=0" A=1', 'Environment=PYTHONHTTPSVERIFY=',
             "Environment='PYTHONHTTPSVERIFY=0'", 'Environment=PYTHONHTTPSVERIFY=0 PYTHONHTTPSVERIFY=1',
             'Environment=B=1', 'Environment="PYTHONHTTPSVERIFY=0 1"', 'Environment=PYTHONHTTPSVERIFY=%i',
             'Environment=PYTHONHTTPSVERIFY=\\x30', 'Environment=PYTHONHTTPSVERIFY="0"']
FILE_LINES = ['PYTHONHTTPSVERIFY=0', 'PYTHONHTTPSVERIFY=1', 'export PYTHONHTTPSVERIFY=0', 'PYTHONHTTPSVERIFY="0"',
              "PYTHONHTTPSVERIFY='0'", 'PYTHONHTTPSVERIFY = 0', '# PYTHONHTTPSVERIFY=0', '; PYTHONHTTPSVERIFY=0',
              'PYTHONHTTPSVERIFY=0 # note', 'PYTHONHTTPSVERIFY=1\\\n0', 'PYTHONHTTPSVERIFY=', 'A=1',
              'PYTHONHTTPSVERIFY="0\n1"', 'PYTHONHTTPSVERIFY=\\0', 'PYTHONHTTPSVERIFY=0""', '  PYTHONHTTPSVERIFY=0',
              'PYTHONHTTPSVERIFY=0\r', '# comment \\\nPYTHONHTTPSVERIFY=0', 'PYTHONHTTPSVERIFY="\\0"',
              "PYTHONHTTPSVERIFY='0'1", 'BAD LINE', 'PYTHONHTTPSVERIFY="a\\"b"']
OTHER_LINES = ['UnsetEnvironment=PYTHONHTTPSVERIFY', 'UnsetEnvironment=PYTHONHTTPSVERIFY=0',
               'UnsetEnvironment=PYTHONHTTPSVERIFY=1', 'PassEnvironment=PYTHONHTTPSVERIFY', 'PassEnvironment=',
               'UnsetEnvironment=']
# ExecStart=: whether the variable reaches Python 2 code (the rule of systemd.exec(5), env(1), python(1))
EXECS = {'/usr/bin/python2.7 %s' % SLEEP: True, '/usr/bin/env python2 %s' % SLEEP: True,
         '/usr/bin/env -u PYTHONHTTPSVERIFY python2.7 %s' % SLEEP: False,
         '/usr/bin/env PYTHONHTTPSVERIFY=1 /usr/bin/python2.7 %s' % SLEEP: False,
         '/usr/bin/python2.7 -E %s' % SLEEP: False, '/usr/bin/python2.7 -Es %s' % SLEEP: False,
         '/usr/bin/python2.7 -W ignore -E %s' % SLEEP: False, '/usr/bin/python3 %s' % SLEEP: False,
         '/opt/pep493-diff/py2script': True, '/opt/pep493-diff/py3script': False,
         'python2.7 %s' % SLEEP: True, '-/usr/bin/python2.7 %s' % SLEEP: True,
         '@/usr/bin/python2.7 renamed %s' % SLEEP: True}
DEFAULTS = [None, 'PYTHONHTTPSVERIFY=0', 'PYTHONHTTPSVERIFY=1', 'A=1 "PYTHONHTTPSVERIFY=0"', 'PYTHONHTTPSVERIFY=']
DIRS = ['/etc/systemd/system', '/run/systemd/system', '/usr/lib/systemd/system', '/usr/local/lib/systemd/system']
RECORD = "ExecStopPost=/bin/sh -c 'printf \"%%s\" \"$${PYTHONHTTPSVERIFY-__unset__}\" > /run/pep493-differential/%n.value'"


class Tree(object):
    def __init__(self, rng):
        self.rng = rng
        self.files = {SLEEP: 'import time\ntime.sleep(100000)\n',
                      '/opt/pep493-diff/py2script': '#!/usr/bin/python2\nimport time\ntime.sleep(100000)\n',
                      '/opt/pep493-diff/py3script': '#!/usr/bin/python3\nimport time\ntime.sleep(100000)\n'}
        self.count = 0
        self.links = {}         # path -> link target
        self.made = []          # every environment file, in the order made

    def env_file(self, path=None):
        self.count += 1
        path = path or '/etc/pep493-diff/f%04d.env' % self.count
        self.made.append(path)
        lines = [self.rng.choice(FILE_LINES) for dummy in range(self.rng.randint(1, 3))]
        self.files[path] = '\n'.join(lines) + ('\n' if self.rng.random() < 0.8 else '')
        return path

    def section(self):
        lines = []
        for dummy in range(self.rng.randint(0, 3)):
            pick = self.rng.random()
            if pick < 0.45:
                lines.append(self.rng.choice(ENV_LINES))
            elif pick < 0.6:
                lines.append('EnvironmentFile=%s%s' % ('-' if self.rng.random() < 0.7 else '', self.env_file()))
            elif pick < 0.7:
                self.count += 1
                folder = '/etc/pep493-diff/g%04d' % self.count
                for name in self.rng.sample('abc', self.rng.randint(0, 2)):
                    self.env_file('%s/%s.env' % (folder, name))
                lines.append('EnvironmentFile=-%s/*.env' % folder)
            elif pick < 0.75:
                lines.append('EnvironmentFile=')
            else:
                lines.append(self.rng.choice(OTHER_LINES))
        return lines


def main(seed, count, work):
    out = os.path.join(work, 'tree')
    rng = random.Random(seed)
    tree = Tree(rng)
    units = {}
    execs = sorted(EXECS)
    default = rng.choice(DEFAULTS)
    if default is not None:
        tree.files['/etc/systemd/system.conf.d/pep493-diff.conf'] = '[Manager]\nDefaultEnvironment=%s\n' % default
    for index in range(count):
        template = rng.random() < 0.1
        name = 'pep493-diff-%03d%s.service' % (index, '@' if template else '')
        unit = name.replace('@', '@%s' % rng.choice(['0', '1', 'x'])) if template else name
        command = rng.choice(execs)
        masked = rng.random() < 0.06
        alias = None if template or masked or rng.random() >= 0.1 else 'pep493-diff-alias-%03d.service' % index
        made = len(tree.made)
        body = ['[Unit]', 'Description=differential check %d' % index, '[Service]'] + tree.section()
        # a masked unit's file is in /usr/lib, under the mask in /etc
        folder = '/usr/lib/systemd/system' if masked else rng.choice(DIRS)
        fragment = '%s/%s' % (folder, name)
        tree.files[fragment] = '\n'.join(body + ['ExecStart=' + command, RECORD]) + '\n'
        if masked:
            path = '/etc/systemd/system/%s' % unit
            if rng.random() < 0.7:
                tree.links[path] = '/dev/null'
            else:
                tree.files[path] = ''
        if alias:
            tree.links['%s/%s' % (rng.choice(DIRS), alias)] = fragment
        dropins = []
        for dummy in range(rng.randint(0, 3)):
            owner = unit if template and rng.random() < 0.5 else name
            if alias and rng.random() < 0.4:
                owner = alias
            conf = rng.choice(['10-a.conf', '20-b.conf', '50-c.conf', 'override.conf'])
            text = '\n'.join(['[Service]'] + tree.section()) + '\n'     # first, as the seeds' trees were made
            path = '%s/%s.d/%s' % (rng.choice(DIRS), owner, conf)
            tree.files[path] = text
            dropins.append(path)
        units[unit] = dict(exec_start=command, effective=EXECS[command] and not masked, masked=masked,
                           alias=alias, dropins=sorted(set(dropins)), env_files=tree.made[made:])
    before = dict(tree.files)
    changes, removed = change_some(rng, tree, units)
    # PID 1's own environment (what PassEnvironment= passes): the container's -e, or nothing
    pid1 = rng.choice([None, '0', '1', ''])
    changed = dict((path, text) for path, text in tree.files.items() if before.get(path) != text)
    write_tree(out, before, tree.links)
    write_tree(os.path.join(work, 'changes'), changed, {})
    with open(os.path.join(work, 'pid1.env'), 'w') as handle:
        handle.write('' if pid1 is None else 'PYTHONHTTPSVERIFY=%s\n' % pid1)
    with open(os.path.join(work, 'removed.txt'), 'w') as handle:
        handle.write(''.join(path + '\n' for path in removed))
    for unit in units.values():
        del unit['dropins'], unit['env_files']
    with open(os.path.join(work, 'units.json'), 'w') as handle:
        json.dump(units, handle, indent=1, sort_keys=True)
    # the names for the run script: every unit, and those it can start (a masked unit cannot be)
    with open(os.path.join(work, 'units.txt'), 'w') as handle:
        handle.write(''.join(name + '\n' for name in sorted(units)))
    with open(os.path.join(work, 'startable.txt'), 'w') as handle:
        handle.write(''.join(name + '\n' for name in sorted(units) if not units[name]['masked']))
    print('differential: PID 1 has %s, DefaultEnvironment=%s, %d masked, %d aliased, %d changed while running (%s)'
          % ('no PYTHONHTTPSVERIFY' if pid1 is None else 'PYTHONHTTPSVERIFY=%s' % pid1,
             default if default is not None else '(none)', sum(u['masked'] for u in units.values()),
             sum(bool(u['alias']) for u in units.values()), len(changes),
             ', '.join('%d %s' % (sum(1 for kind in changes.values() if kind == wanted), wanted)
                       for wanted in sorted(set(changes.values())))))


def change_some(rng, tree, units):
    """Change about a third of the units' configuration after they started (a drop-in added or
    removed, an environment file rewritten): {unit: what changed}, [removed paths]. The files
    changed are the ones that differ in ``tree.files`` afterwards."""
    changes, removed = {}, []
    for unit in sorted(units):
        info = units[unit]
        if info['masked'] or rng.random() >= 0.35:
            continue
        kinds = ['dropin-added'] + (['dropin-removed'] if info['dropins'] else []) + (
            ['envfile-rewritten'] if info['env_files'] else [])
        kind = rng.choice(kinds)
        if kind == 'dropin-added':
            tree.files['/etc/systemd/system/%s.d/90-changed.conf' % unit] = '\n'.join(
                ['[Service]'] + tree.section() + [rng.choice(ENV_LINES + OTHER_LINES)]) + '\n'
        elif kind == 'dropin-removed':
            path = rng.choice(info['dropins'])
            removed.append(path)
            del tree.files[path]
        else:
            tree.env_file(rng.choice(info['env_files']))
        changes[unit] = kind
        info['changed'] = kind
    return changes, removed


def write_tree(out, files, links):
    for path, text in files.items():
        full = out + path
        if not os.path.isdir(os.path.dirname(full)):
            os.makedirs(os.path.dirname(full))
        with open(full, 'w') as handle:
            handle.write(text)
    for path, target in links.items():
        full = out + path
        if not os.path.isdir(os.path.dirname(full)):
            os.makedirs(os.path.dirname(full))
        if os.path.lexists(full):       # two picks for one path: the later one wins, as in a real tree
            os.remove(full)
        os.symlink(target, full)


if __name__ == '__main__':
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
