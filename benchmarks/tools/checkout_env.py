# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The environment of tools/env for a benchmark's own Ansible runs: ANSIBLE_HOME and the
collections path inside the checkout, and the temp folder of modules run on the controller
itself (remote_tmp, ~/.ansible/tmp of the real home unless told) inside ANSIBLE_HOME too."""

import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def checkout_env(**extra):
    """os.environ as tools/env leaves it, plus ANSIBLE_REMOTE_TMP and ``extra``."""
    out = subprocess.check_output(['bash', '-c', '. "$1" && env -0', '-', os.path.join(REPO, 'tools', 'env')])
    env = dict(item.split('=', 1) for item in out.decode().split('\0') if '=' in item)
    env['ANSIBLE_REMOTE_TMP'] = os.path.join(env['ANSIBLE_HOME'], 'tmp')
    env.update(extra)
    return env
