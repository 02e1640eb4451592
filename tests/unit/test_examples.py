# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The examples users copy must work as written, and must not rot.

* Every module's EXAMPLES block runs, as it is, through ``ansible-playbook`` against a throw-away
  root: the collection's modules get ``root`` from ``module_defaults``, and an example that sets
  ``root`` itself (an image tree, which must exist and says so) gets that folder inside the
  throw-away root. Every task must succeed.
* Every expiry date in the examples (modules, filters, README, docs, role READMEs) is at least a
  year ahead, so that copying one does not fail at once as expired.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import datetime
import glob
import os
import re
import subprocess
import sys

import yaml

from ansible_collections.pep493.https.tests.unit import ca_pki

COLLECTION = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
COLLECTIONS_ROOT = os.path.normpath(os.path.join(COLLECTION, '..', '..', '..'))
MODULES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(COLLECTION, 'plugins', 'modules', '*.py'))
                 if not p.endswith('__init__.py'))
# Tasks an example may use besides the collection's own modules: none of them touches the host.
HARMLESS = ('ansible.builtin.assert', 'ansible.builtin.debug', 'ansible.builtin.set_fact', 'ansible.builtin.fail')
# An example date must be at least this far ahead of today.
MIN_AHEAD = datetime.timedelta(days=365)
EXPIRES = re.compile(r'''expires\W{1,4}(\d{4}-\d{2}-\d{2})''')


def module_examples(name):
    with open(os.path.join(COLLECTION, 'plugins', 'modules', name + '.py')) as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ['EXAMPLES']:
            return ast.literal_eval(node.value)
    raise AssertionError('%s has no EXAMPLES' % name)


def action_of(task):
    keys = [k for k in task if k not in ('name', 'register', 'vars', 'when', 'loop', 'become', 'check_mode', 'tags')]
    assert len(keys) == 1, 'cannot tell the action of %r' % task
    return keys[0]


def test_there_are_modules():
    assert MODULES == ['ca_trust', 'cert_verification', 'service_verification', 'verification_forecast',
                       'verification_info', 'verification_policy']


# The files the examples read with lookup('ansible.builtin.file', ...), beside the playbook: CAs made by openssl
EXAMPLE_FILES = {'acme-internal-root.pem': 'acme', 'acme-internal-root-2026.pem': 'rekeyed', 'ambari-internal-ca.pem': 'other'}


def trust_store(folder):
    """ca_trust's examples need a host's trust store: the folder is laid out like RHEL's."""
    ca_pki.lay_out(str(folder), 'rhel')


def system_bundle(folder):
    """service_verification's example with a ca needs the system bundle its service's bundle copies."""
    bundle = os.path.join(str(folder), 'etc/ssl/certs/ca-certificates.crt')
    if not os.path.isdir(os.path.dirname(bundle)):
        os.makedirs(os.path.dirname(bundle))
    with open(bundle, 'wb') as handle:
        handle.write(ca_pki.pem('acme'))


# Set-up of a module's throw-away root (and of each root its examples name), when an empty folder will not do
PREPARE = {'ca_trust': trust_store, 'service_verification': system_bundle}


def example_play(module, root):
    """The module's EXAMPLES as one play against ``root`` (created), and its number of tasks."""
    text = module_examples(module)
    own = ['pep493.https.' + m for m in MODULES]
    for task in yaml.safe_load(text):
        action = action_of(task)
        assert action in own + list(HARMLESS), (
            '%s: the example "%s" uses %s, which this test would run against the real machine'
            % (module, task.get('name'), action))
    root.mkdir()
    # An example's own root (an image tree) goes inside the throw-away root; it must exist, and
    # the example must say so, since the module refuses a root that does not exist.
    for line in text.splitlines():
        match = re.match(r'^\s+root:\s+(/\S+)', line)
        if match:
            assert 'must exist' in line, '%s: say in the example that %s must exist: %r' % (module, match.group(1), line)
            (root / match.group(1).lstrip('/')).mkdir(parents=True, exist_ok=True)
            PREPARE.get(module, lambda folder: None)(root / match.group(1).lstrip('/'))
            text = text.replace(line, line.replace(match.group(1), str(root) + match.group(1)))
    PREPARE.get(module, lambda folder: None)(root)
    tasks = yaml.safe_load(text)
    return dict(
        name='EXAMPLES of pep493.https.%s' % module,
        hosts='localhost',
        connection='local',
        gather_facts=False,
        module_defaults=dict((name, dict(root=str(root))) for name in own),
        tasks=tasks,
    ), len(tasks)


def test_examples_run_against_a_throw_away_root(tmp_path):
    plays, count = [], 0
    for module in MODULES:
        play, tasks = example_play(module, tmp_path / module)
        plays.append(play)
        count += tasks
    playbook = tmp_path / 'examples.yml'
    playbook.write_text(yaml.safe_dump(plays, sort_keys=False))
    (tmp_path / 'files').mkdir()
    for name, certificate in EXAMPLE_FILES.items():
        (tmp_path / 'files' / name).write_bytes(ca_pki.pem(certificate))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_ROOT, ANSIBLE_HOME=str(tmp_path / 'ansible-home'),
               ANSIBLE_NOCOLOR='1', ANSIBLE_FORCE_COLOR='0', ANSIBLE_DEPRECATION_WARNINGS='0',
               ANSIBLE_LOCALHOST_WARNING='0', ANSIBLE_INVENTORY_UNPARSED_WARNING='0')
    # the local connection keeps its temp files in remote_tmp (~/.ansible/tmp unless told)
    extra = ['-e', 'ansible_python_interpreter=%s' % sys.executable, '-e', 'ansible_remote_tmp=%s' % (tmp_path / 'remote-tmp')]
    run = subprocess.run([sys.executable, '-m', 'ansible.cli.playbook', '-i', 'localhost,'] + extra + [str(playbook)],
                         cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout
    recap = re.search(r'localhost\s+:\s+ok=(\d+)\s+changed=\d+\s+unreachable=0\s+failed=0\s+skipped=(\d+)', run.stdout)
    assert recap, run.stdout
    assert (int(recap.group(1)), int(recap.group(2))) == (count, 0), run.stdout
    # the examples wrote inside their throw-away roots, nowhere else in the test's folder
    assert sorted(os.listdir(str(tmp_path))) == sorted(['ansible-home', 'examples.yml', 'files', 'remote-tmp'] + MODULES)


def example_texts():
    """(where, text) of everything a user may copy an exception from."""
    for name in MODULES:
        yield 'plugins/modules/%s.py EXAMPLES' % name, module_examples(name)
    patterns = ('plugins/filter/*.yml', 'README.md', 'docs/*.md', 'roles/*/README.md')
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(COLLECTION, pattern))):
            with open(path) as handle:
                yield os.path.relpath(path, COLLECTION), handle.read()


def real_date(text):
    try:
        return datetime.datetime.strptime(text, '%Y-%m-%d').date()
    except ValueError:
        return None  # docs/errors.md shows a date that does not exist, on purpose


def test_example_expiry_dates_are_a_year_ahead_or_more():
    today = datetime.date.today()
    found, too_soon = 0, []
    for where, text in example_texts():
        for match in EXPIRES.finditer(text):
            date = real_date(match.group(1))
            if date is None:
                continue
            found += 1
            if date - today < MIN_AHEAD:
                too_soon.append('%s: %s' % (where, match.group(1)))
    assert found >= 5, 'the examples hold no expiry date: the test looks in the wrong places'
    assert not too_soon, ('example expiry dates less than a year ahead of %s (copied, they fail as expired '
                          'soon): %s' % (today, ', '.join(too_soon)))
