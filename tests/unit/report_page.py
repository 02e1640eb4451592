# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's page (playbooks/templates/report.html.j2), rendered from a report with jinja2
and ansible-core's own filters, as the template task renders it: no playbook, no browser."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import jinja2

from ansible.plugins.filter.core import FilterModule as CoreFilters
from ansible.plugins.filter.mathstuff import FilterModule as MathFilters

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'playbooks', 'templates')


def environment():
    found = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                               undefined=jinja2.StrictUndefined, extensions=['jinja2.ext.do'])
    found.filters.update(CoreFilters().filters())
    found.filters.update(MathFilters().filters())
    return found


def render(report, template='report.html.j2'):
    """The page (or one section of it, ``sections/<name>.html.j2``) of ``report``."""
    return environment().get_template(template).render(report=report, open_rows=50)
