# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's "would break" section, rendered from a report of the facts the forecast leaves."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.pep493.https.plugins.plugin_utils import fleet_report
from ansible_collections.pep493.https.tests.unit import report_page
from ansible_collections.pep493.https.tests.unit.plugins.policy_data import info, status


def render(hostvars):
    """The section, rendered from the report of hosts with these variables (each a compliant audit)."""
    hostvars = dict((host, dict(found, inventory_hostname=host, pep493_https_status=status(info(), 'compliant')))
                    for host, found in hostvars.items())
    report = fleet_report.fleet_report(sorted(hostvars), hostvars, '2026-06-15T00:00:00Z')
    return report_page.render(report, 'sections/would_break.html.j2')


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
    assert 'from the forecast of 3 host(s)' in html
    assert html.count('<tr><td') == 2
    assert '<td class="mono value">web1</td><td class="mono value">legacy.service</td>' in html
    assert 'commonName=&lt;Corp&gt; CA' in html          # escaped
    assert 'host-wide script' in html and 'renew the certificate' in html


def test_an_automatic_exception_is_shown_with_its_date():
    html = render({'web1': dict(pep493_https_forecast_result=dict(
        breaks=[BREAK], granted=[dict(name='legacy.service', verify=False, reason='forecast: ...',
                                      expires='2026-07-01')]))})
    assert 'or keep its automatic exception until <span class="value">2026-07-01</span>' in html


def test_no_forecast_no_section():
    assert 'would-break' not in render({'web1': {}})
    assert 'No service would break.' in render({'web1': dict(pep493_https_forecast_result=dict(breaks=[]))})


def test_the_fleet_report_includes_the_section_once():
    with open(os.path.join(report_page.TEMPLATES, 'report.html.j2')) as handle:
        assert handle.read().count("{% include 'sections/would_break.html.j2' %}") == 1


def test_what_a_ca_of_the_policy_fixes_and_what_it_does_not_are_both_shown():
    unfixed = '; trusting acme-root (it names the issuer, issuer name only) does not fix it: untrusted: <self signed>'
    html = render({'web1': dict(pep493_https_forecast_result=dict(
        breaks=[dict(BREAK, unfixed=unfixed)], granted=[],
        fixed=[dict(service='agent.service', fixed_by=['acme-root'], endpoints=['10.0.0.8:8440', '10.0.0.9:443']),
               dict(service=None, fixed_by=['acme-root', 'O = Acme, CN = Acme Issuing'], endpoints=['repo:443'])]))})
    assert 'Would break once verification is on (1)' in html
    assert ('trust its CA or this certificate; trusting acme-root (it names the issuer, issuer name only) does not fix '
            'it: untrusted: &lt;self signed&gt;</td>') in html
    assert 'Fixed by trusting a CA of the policy (2)' in html
    assert ('<td class="mono value">web1</td><td class="mono value">agent.service</td>\n'
            '        <td>fixed by trusting acme-root</td>') in html
    assert '<span class="value">10.0.0.8:8440</span>, <span class="value">10.0.0.9:443</span>' in html
    assert 'fixed by trusting acme-root, O = Acme, CN = Acme Issuing' in html and 'host-wide scripts' in html


def test_no_fix_no_fixed_table():
    html = render({'web1': dict(pep493_https_forecast_result=dict(breaks=[BREAK], granted=[], fixed=[]))})
    assert 'fixed-by-ca' not in html and 'Would break once verification is on (1)' in html
