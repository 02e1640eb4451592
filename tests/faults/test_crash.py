# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A writer killed with SIGKILL at random points leaves the old or the new version, always
parseable, readable by all, never group- or world-writable.

Most kills land just before a randomly chosen file operation of the run (an audit hook in
killpoint.py counts them, so every step - temp file, write, chmod, rename, backup - is hit);
the rest come from outside after a random delay. Figures are printed for docs/reliability.md.
"""

import json
import os
import random
import shutil
import threading
import time

import harness
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin

KILLS = 200
LANES = 2
TIMED_SHARE = 0.25
SHIPPED = (b"# Possible values are:\n# 'enable' ...\n\n[https]\nverify=platform_default\n"
           b"[other]\nkeep=me\n")


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except IOError:
        return None


class Lane(object):
    """One throw-away root, killed over and over, checked after every kill."""

    module = 'cert_verification'

    def __init__(self, root, seed, umask):
        self.root = root
        self.rng = random.Random(seed)
        self.umask = umask
        self.path = os.path.join(root, 'etc', 'python', 'cert-verification.cfg')
        self.wipe = os.path.join(root, 'etc')
        self.kills = self.completed = self.leftovers = 0
        self.points = set()
        self.ops = {}
        self.seconds = {}
        self.server = harness.KillServer(self.module, os.path.dirname(root))
        self.problems = []

    def request(self):
        verify = self.rng.choice(cfg.VALUES + (None,))
        args = dict(root=self.root, backup=self.rng.random() < 0.3)
        if verify is None:
            args['state'] = 'absent'
        else:
            args['verify'] = verify
        return verify, args

    def expected_new(self, old, verify, args):
        if old is None:
            return cfg.new_cfg(verify) if verify else None
        return cfg.render_cfg(cfg.repair_cfg(old) if args.get('repair') else old, verify)

    def malformed_start(self):
        """Now and then start from a file that breaks "import ssl" and ask for repair."""
        if self.rng.random() >= 0.1:
            return False
        if not os.path.isdir(os.path.dirname(self.path)):
            os.makedirs(os.path.dirname(self.path))
        with open(self.path, 'wb') as handle:
            handle.write(b'oops\n' + SHIPPED + b'junk line\n')
        return True

    def one(self, timed):
        roll = self.rng.random()
        if roll < 0.15 and os.path.exists(self.path):
            os.unlink(self.path)
        elif roll < 0.25:
            shutil.rmtree(self.wipe, ignore_errors=True)
        repair = self.malformed_start()
        old = _read(self.path)
        # a kill before the repaired file was in place leaves the malformed one: repair again
        repair = repair or (old is not None and not self.parseable(old))
        verify, args = self.request()
        if repair:
            args['repair'] = True
        new = self.expected_new(old, verify, args)
        # file operations differ by case; learn each case's count from a complete run first
        case = (old is None, os.path.isdir(os.path.dirname(self.path)), args.get('backup'), repair, new == old)
        if timed and case in self.ops:
            run, ops = self.server.run(args, delay=self.rng.uniform(0, self.seconds[case]), umask=self.umask)
            point = 'timed'
        else:
            point = self.rng.randint(1, self.ops[case]) if case in self.ops else 0
            started = time.time()
            run, ops = self.server.run(args, point=point, umask=self.umask)
            if point == 0 and run.ok:
                self.ops[case] = ops
                self.seconds[case] = time.time() - started
        if run.returncode == -9:
            self.kills += 1
            self.points.add((case, point))
        elif run.ok:
            self.completed += 1
            if os.path.exists(self.path) and os.stat(self.path).st_mode & 0o777 != 0o644:
                self.problems.append(('mode after a complete run', point, oct(os.stat(self.path).st_mode)))
        else:
            self.problems.append(('run failed', point, run))
        self.check(old, new, point)

    def parseable(self, data):
        return cfg.parse_cfg(data).valid

    def check(self, old, new, point):
        now = _read(self.path)
        if now not in (old, new):
            self.problems.append(('neither old nor new', point, old, new, now))
        if now is not None and now != old:  # an old file we made malformed on purpose stays so
            if not self.parseable(now):
                self.problems.append(('unparseable', point, now))
            mode = os.stat(self.path).st_mode & 0o777
            if mode & 0o022:
                self.problems.append(('group/world-writable file', point, oct(mode), oct(self.umask)))
            if not mode & 0o004:  # Python 2 programs that are not root could not read it
                self.problems.append(('file not readable by all', point, oct(mode), oct(self.umask)))
        folder = os.path.dirname(self.path)
        self.leftovers += len(harness.temp_leftovers(folder))
        for name in harness.temp_leftovers(folder):
            os.unlink(os.path.join(folder, name))


class ServiceLane(Lane):
    """The same for service_verification's drop-in of one unit."""

    module = 'service_verification'

    def __init__(self, root, seed, umask):
        Lane.__init__(self, root, seed, umask)
        self.path = os.path.join(root, 'etc', 'systemd', 'system', 'legacy-app.service.d', 'zz-pep493-https.conf')
        self.wipe = os.path.dirname(self.path)

    def request(self):
        if self.rng.random() < 0.2:
            return None, dict(root=self.root, name='legacy-app', state='absent')
        verify = self.rng.random() < 0.5
        return verify, dict(root=self.root, name='legacy-app', verify=verify, reason='ticket %d' % self.rng.randint(1, 9),
                            expires='2030-01-%02d' % self.rng.randint(1, 28))

    def expected_new(self, old, verify, args):
        return None if verify is None else dropin.render_dropin(verify, args['reason'], args['expires'])

    def parseable(self, data):
        return dropin.parse_dropin(data) is not None

    def malformed_start(self):
        return False


def _drive(lanes):
    def drive(lane):
        try:
            while lane.kills < KILLS // len(lanes) and not lane.problems:
                lane.one(timed=lane.rng.random() < TIMED_SHARE)
        except Exception as exc:  # a broken harness must fail the test, not end a lane early
            lane.problems.append(('harness error', repr(exc)))

    threads = [threading.Thread(target=drive, args=(lane,)) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    for lane in lanes:
        lane.server.close()
    figures = dict(kills=sum(l.kills for l in lanes), completed=sum(l.completed for l in lanes),
                   distinct_kill_points=len(set().union(*[l.points for l in lanes])),
                   file_operations_per_run=sorted(set(o for l in lanes for o in l.ops.values())),
                   temp_files_left_by_kills=sum(l.leftovers for l in lanes))
    print('crash figures (%s): %s' % (lanes[0].module, json.dumps(figures, sort_keys=True)))
    problems = [p for l in lanes for p in l.problems]
    assert not problems, problems[:3]
    assert figures['kills'] == KILLS


def test_sigkill_service_verification_leaves_old_or_new_dropin(root):
    lanes = []
    for index in range(LANES):
        lane_root = os.path.join(os.path.dirname(root), 'lane%d' % index)
        os.makedirs(lane_root)
        lanes.append(ServiceLane(lane_root, 7 + index, 0o022 if index == 0 else 0o077))
    _drive(lanes)


def test_sigkill_at_random_points_leaves_old_or_new(root):
    lanes = []
    for index in range(LANES):
        lane_root = os.path.join(os.path.dirname(root), 'lane%d' % index)
        os.makedirs(os.path.join(lane_root, 'etc', 'python'))
        with open(os.path.join(lane_root, 'etc', 'python', 'cert-verification.cfg'), 'wb') as handle:
            handle.write(SHIPPED)
        # lane 1 runs with umask 000, the worst a caller may hand the module
        lanes.append(Lane(lane_root, 493 + index, 0o022 if index == 0 else 0o000))

    _drive(lanes)
    # after all that, a normal run still converges (repairing a malformed file the test left)
    for lane in lanes:
        run = harness.run('cert_verification', dict(root=lane.root, verify='enable', repair=True))
        assert run.ok, run
        assert cfg.effective_verify(_read(lane.path)) == 'enable'
