# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the policy role through ``ansible-playbook`` on localhost, with everything Ansible keeps
(its home, the remote temp folder) under the test's own folder."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import yaml

COLLECTION = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
# the collection's copy under ansible_collections/pep493/https (ansible-test), else the caller's path
COLLECTIONS_ROOT = os.path.normpath(os.path.join(COLLECTION, '..', '..', '..'))
if os.path.basename(os.path.dirname(os.path.dirname(COLLECTION))) != 'ansible_collections':
    COLLECTIONS_ROOT = os.environ.get('ANSIBLE_COLLECTIONS_PATH', COLLECTIONS_ROOT)


def tree_files(root):
    """{path relative to root: content} of every file under root."""
    found = {}
    for folder, dummy, files in os.walk(str(root)):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, 'rb') as handle:
                found[os.path.relpath(path, str(root))] = handle.read()
    return found


def run(tmp_path, play, *options, **environment):
    """Run one play (a dict) with the local connection; returns the process (stdout and stderr
    together in ``stdout``)."""
    playbook = tmp_path / 'play.yml'
    playbook.write_text(yaml.safe_dump([play], sort_keys=False))
    return run_playbook(tmp_path, str(playbook), *options, **environment)


def run_playbook(tmp_path, playbook, *options, inventory='localhost,', **environment):
    """Run ``playbook`` (a path, or a playbook of a collection by name: ``pep493.https.report``)
    from ``tmp_path`` on ``inventory`` (localhost), with ``environment`` added to Ansible's;
    returns the process (stdout and stderr together in ``stdout``)."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_ROOT, ANSIBLE_HOME=str(tmp_path / 'ansible-home'),
               ANSIBLE_NOCOLOR='1', ANSIBLE_DEPRECATION_WARNINGS='0', ANSIBLE_LOCALHOST_WARNING='0',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='0', PWD=str(tmp_path), **environment)
    extra = ['-e', 'ansible_python_interpreter=%s' % sys.executable,
             '-e', 'ansible_remote_tmp=%s' % (tmp_path / 'remote-tmp')]
    return subprocess.run([sys.executable, '-m', 'ansible.cli.playbook', '-i', inventory] + extra
                          + list(options) + [playbook], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300, check=False)


def fact_cache(tmp_path):
    """The environment of a jsonfile fact cache in ``tmp_path``/facts (what AWX gives a job with
    fact storage on)."""
    return dict(ANSIBLE_CACHE_PLUGIN='jsonfile', ANSIBLE_CACHE_PLUGIN_CONNECTION=str(tmp_path / 'facts'))


def cached_facts(tmp_path, host):
    """The facts of ``host`` in the jsonfile fact cache of ``tmp_path`` ({} when there are none): a
    file named after the host (ansible-core before 2.19), or ``s1_<host>`` holding them as a payload
    whose values may carry tags (``{"value": ..., "tags": [...], "__ansible_type": ...}``)."""
    for name in (host, 's1_' + host):
        path = tmp_path / 'facts' / name
        if path.exists():
            data = json.loads(path.read_text())
            return untagged(json.loads(data['__payload__'])) if '__payload__' in data else data
    return {}


def untagged(node):
    if isinstance(node, dict):
        if '__ansible_type' in node and 'value' in node:
            return untagged(node['value'])
        return dict((key, untagged(value)) for key, value in node.items())
    if isinstance(node, list):
        return [untagged(item) for item in node]
    return node


def local_fleet(tmp_path, hosts):
    """An inventory of ``hosts`` (name -> the content of its cfg file, None: no file), each reached
    with the local connection and standing for a throw-away root of its own; its path."""
    inventory = {'all': {'hosts': {}}}
    for name, cfg in sorted(hosts.items()):
        root = tmp_path / 'roots' / name
        (root / 'etc' / 'python').mkdir(parents=True)
        if cfg is not None:
            (root / 'etc' / 'python' / 'cert-verification.cfg').write_text(cfg)
        inventory['all']['hosts'][name] = dict(ansible_connection='local', ansible_python_interpreter=sys.executable,
                                               pep493_https_root=str(root))
    path = tmp_path / 'inventory.yml'
    path.write_text(yaml.safe_dump(inventory, sort_keys=True))
    return str(path)
