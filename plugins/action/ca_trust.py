# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action of pep493.https.ca_trust: its arguments checked on the controller, the module run by
ansible-core's own payload or, where that cannot run on the target's Python, by the collection runner."""

from __future__ import annotations

from ansible_collections.pep493.https.plugins.plugin_utils.module_action import ModuleAction


class ActionModule(ModuleAction):
    MODULE = 'ca_trust'
