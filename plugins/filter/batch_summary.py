# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter ``batch_summary``: one line per host of an enforce or rollback batch
(plugins/plugin_utils/batch_summary.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.plugin_utils import batch_summary as summary


class FilterModule(object):
    def filters(self):
        return dict(batch_summary=summary.batch_summary)
