# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's page, rendered from report data (no playbook, no browser), is usable on a
phone: every table scrolls in a box of its own, every long section starts collapsed, and values
such as ``platform_default`` are never broken inside the word. tests/report/test_report.py checks
the same in a real browser at 390 px."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html.parser
import re

import pytest

from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report
from ansible_collections.pep493.https.tests.unit import report_page
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import info, status, svc

BREAK = dict(service='legacy-agent.service', endpoint='ldap.corp.example:636', result='hostname_mismatch', issuer=None,
             error='x', advice='fix the certificate or the name the service connects to')


def report(breaks=1, hosts=3):
    """A report of ``hosts`` hosts, the first one's cfg file saying platform_default, each with an
    exception and a forecast; ``breaks`` predicted breaks on the first host."""
    names = ['web-%d' % n for n in range(hosts)]
    audits = dict((name, status(info(services=[svc('legacy-agent.service', reason='vendor CA', expires='2026-07-01')]),
                                'compliant_with_exceptions')) for name in names)
    audits[names[0]] = status(info(verify='platform_default'), 'non_compliant')
    audits[names[0]]['compliance'].update(compliant=False, reasons=['cfg says platform_default'])
    forecasts = dict((name, dict(breaks=[], granted=[])) for name in names)
    forecasts[names[0]] = dict(breaks=[dict(BREAK, endpoint='ldap%d.corp.example:636' % n) for n in range(breaks)],
                               fixed=[dict(service='agent.service', fixed_by=['acme-root-2026'],
                                           endpoints=['ambari.corp.example:8440'])])
    return fleet_report.fleet_report(names, audits, '2026-06-15T00:00:00Z', 30, forecasts)


class Page(html.parser.HTMLParser):
    """The elements of the page as (tag, attributes, parent's (tag, attributes), section id), and
    the text of every element with the class "value"."""

    def __init__(self, text):
        html.parser.HTMLParser.__init__(self)
        self.stack, self.elements, self.values, self.in_value = [], [], [], 0
        self.feed(text)

    VOID = ('meta', 'input', 'col', 'br')

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        parent = self.stack[-1] if self.stack else (None, {})
        section = next((a.get('id') for t, a in reversed(self.stack) if t == 'section'), None)
        self.elements.append((tag, attrs, parent, section))
        if tag not in self.VOID:
            self.stack.append((tag, attrs))
            if 'value' in (attrs.get('class') or '').split():
                self.in_value += 1
                self.values.append('')

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self.stack:
            found, attrs = self.stack.pop()
            if 'value' in (attrs.get('class') or '').split():
                self.in_value -= 1
            if found == tag:
                break

    def handle_data(self, data):
        if self.in_value:
            self.values[-1] += data


def classes(attrs):
    return (attrs.get('class') or '').split()


def test_every_table_scrolls_in_a_box_of_its_own():
    page = Page(report_page.render(report(breaks=2)))
    tables = [(parent, section) for tag, attrs, parent, section in page.elements if tag == 'table']
    # the breaks and what a CA of the policy fixes
    assert [section for parent, section in tables].count('would-break') == 2
    for (tag, attrs), section in tables:
        assert tag == 'div' and 'scroll' in classes(attrs), section


def starts_open(page, section):
    """Whether the section's first element is a <details> that starts open (None: no <details>)."""
    for tag, attrs, parent, found in page.elements:
        if found == section and parent[0] == 'section':
            return 'open' in attrs if tag == 'details' else None
    raise AssertionError('no section %s' % section)


@pytest.mark.parametrize('breaks, opened', [(1, True), (50, True), (51, False)])
def test_the_would_break_section_collapses_like_the_other_long_sections(breaks, opened):
    page = Page(report_page.render(report(breaks=breaks)))
    assert starts_open(page, 'would-break') is opened
    assert starts_open(page, 'expiring') is True


def test_values_are_kept_whole():
    text = report_page.render(report(breaks=1))
    page = Page(text)
    for value in ('platform_default', 'hostname_mismatch', 'legacy-agent.service', 'ldap0.corp.example:636',
                  'ambari.corp.example:8440', 'agent.service',
                  '2026-06-15T00:00:00Z', '2026-07-01'):
        assert value in page.values, value
    style = text.split('<style>', 1)[1].split('</style>', 1)[0]
    assert re.search(r'\.value[^{]*\{[^}]*white-space: nowrap', style), 'a value may be broken: .value is not nowrap'
    # nothing may let a line break anywhere inside a word of the host table
    assert 'overflow-wrap: anywhere' not in style
