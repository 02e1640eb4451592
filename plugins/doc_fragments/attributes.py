# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The attributes every host module of the collection shares: each has an action plugin that runs it through
    # ansible-core's payload or the collection runner (plugins/plugin_utils/module_action.py). What check mode and
    # diff mode do differs from module to module, so each module documents those itself.
    DOCUMENTATION = r'''
attributes:
  action:
    support: full
    details:
      - An action plugin checks the arguments on the controller, then runs the module through ansible-core's own
        payload, or through the collection runner on a Python the controller's ansible-core no longer runs on
        (ansible-core 2.19 and later with Python 2.7 or 3.6 - 3.8, as on RHEL/CentOS 7).
  async:
    support: partial
    details: Not through the collection runner, which runs in the foreground only; such a task fails, saying so.
  bypass_host_loop:
    support: none
  platform:
    support: full
    platforms: posix
'''
