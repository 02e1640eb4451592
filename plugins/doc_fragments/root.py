# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The root option every module of the collection takes: one rule (module_utils/_host/paths.py).
    DOCUMENTATION = r'''
options:
  root:
    description:
      - A folder that stands for C(/) (an image build tree, a chroot, a test tree). Every path the module reads
        or writes is resolved inside it as C(chroot) would - walked one name at a time, an absolute symbolic link
        leads to its target inside O(root), C(..) after a link applies to the link's target - and a C(..) that
        would climb above O(root) is refused. Every module of the collection resolves paths this same way.
      - Under O(root) nothing on the host itself is run or looked at - no interpreter is probed, no C(systemctl)
        command runs, no process is read - so services are described from their unit files and drop-ins.
      - An empty O(root) is refused (it would mean the host itself; leave O(root) unset for that), and so is one
        that is not a directory.
    type: path
'''
