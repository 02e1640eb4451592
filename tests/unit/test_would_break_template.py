# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's "would break" section, rendered from the facts the forecast leaves."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import jinja2

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'playbooks', 'templates')


def render(hostvars):
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False)
    return environment.get_template('sections/would_break.html.j2').render(
        ansible_play_hosts_all=sorted(hostvars), hostvars=hostvars)


BREAK = dict(service='legacy.service', endpoint='10.0.0.7:636', result='untrusted',
             issuer='commonName=<Corp> CA', error='x', advice='trust its CA or this certificate')


def test_one_row_per_break_with_host_service_endpoint_result_issuer_and_advice():
    html = render({
        'web1': dict(pep493_https_forecast_result=dict(breaks=[BREAK], granted=[])),
        'web2': dict(pep493_https_forecast_result=dict(
            breaks=[dict(BREAK, service=None, result='expired', issuer=None, advice='renew the certificate')],
            granted=[])),
        'db1': dict(pep493_https_forecast_result=dict(breaks=[], granted=[])),
    })
    assert 'Would break once verification is on (2)' in html
    assert 'From the forecast of 3 host(s)' in html
    assert html.count('<tr><td') == 2
    assert '<td class="mono nowrap">web1</td><td class="mono">legacy.service</td>' in html
    assert 'commonName=&lt;Corp&gt; CA' in html          # escaped
    assert 'host-wide script' in html and 'renew the certificate' in html


def test_an_automatic_exception_is_shown_with_its_date():
    html = render({'web1': dict(pep493_https_forecast_result=dict(
        breaks=[BREAK], granted=[dict(name='legacy.service', verify=False, reason='forecast: ...',
                                      expires='2026-07-01')]))})
    assert 'or keep its automatic exception until 2026-07-01' in html


def test_no_forecast_no_section():
    assert 'would-break' not in render({'web1': {}})
    assert 'No service would break.' in render({'web1': dict(pep493_https_forecast_result=dict(breaks=[]))})


def test_the_fleet_report_includes_the_section_once():
    with open(os.path.join(TEMPLATES, 'report.html.j2')) as handle:
        assert handle.read().count("{% include 'sections/would_break.html.j2' %}") == 1
