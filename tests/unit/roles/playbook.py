# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the policy role through ``ansible-playbook`` on localhost, with everything Ansible keeps
(its home, the remote temp folder) under the test's own folder."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

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


def run(tmp_path, play, *options):
    """Run one play (a dict) with the local connection; returns the process (stdout and stderr
    together in ``stdout``)."""
    playbook = tmp_path / 'play.yml'
    playbook.write_text(yaml.safe_dump([play], sort_keys=False))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS_ROOT, ANSIBLE_HOME=str(tmp_path / 'ansible-home'),
               ANSIBLE_NOCOLOR='1', ANSIBLE_DEPRECATION_WARNINGS='0', ANSIBLE_LOCALHOST_WARNING='0',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='0')
    extra = ['-e', 'ansible_python_interpreter=%s' % sys.executable,
             '-e', 'ansible_remote_tmp=%s' % (tmp_path / 'remote-tmp')]
    return subprocess.run([sys.executable, '-m', 'ansible.cli.playbook', '-i', 'localhost,'] + extra
                          + list(options) + [str(playbook)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300, check=False)
