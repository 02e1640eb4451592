# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One clock: on a given day the role's plan, service_verification, verification_info and the
compliance verdict agree on which exceptions are expired, whatever the host's time zone (the
UTC date decides: module_utils/_syntax/dates.py's today()). The role's filters call the same
functions (tests/unit/plugins/filter), and the fleet report copies the audit's verdict."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import datetime
import time

import pytest

from ansible_collections.pep493.https.plugins.plugin_utils import compliance as judge
from ansible_collections.pep493.https.plugins.plugin_utils import policy_plan as planning
from ansible_collections.pep493.https.plugins.module_utils._syntax import dates
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.modules import service_verification, verification_info
from ansible_collections.pep493.https.tests.unit.tree import write

UNITS = '/etc/systemd/system'
# 23:30 UTC on 2026-06-15: the local date is already 2026-06-16 east of UTC+0:30.
INSTANT = calendar.timegm((2026, 6, 15, 23, 30, 0))
LAST_DAY = '2026-06-15'      # still valid at INSTANT (valid through its expiry day, UTC)
DAY_BEFORE = '2026-06-14'    # expired at INSTANT


@pytest.fixture
def clock(monkeypatch):
    """The current time is INSTANT, in a time zone 14 hours east of UTC."""
    monkeypatch.setattr(time, 'time', lambda: INSTANT)
    monkeypatch.setenv('TZ', 'Etc/GMT-14')
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def exceptions():
    return [dict(name='current', verify=False, reason='valid through today', expires=LAST_DAY),
            dict(name='past', verify=False, reason='ended yesterday', expires=DAY_BEFORE)]


def host_tree(root):
    for item in exceptions():
        write(root, '/usr/lib/systemd/system/%s.service' % item['name'], b'[Service]\nExecStart=/usr/bin/python2.7 x\n')
        write(root, '%s/%s.service.d/%s' % (UNITS, item['name'], dropin.DEFAULT_DROPIN_NAME),
              dropin.render_dropin(False, item['reason'], dates.validate_expires(item['expires'])))
    write(root, '/etc/python/cert-verification.cfg', b'[https]\nverify=enable\n')


def expired_names(rows, key='name'):
    return sorted(row[key] for row in rows if row.get('expired'))


def test_the_clock_is_the_utc_date(clock):
    assert time.localtime(time.time()).tm_mday == 16
    assert dates.today() == datetime.date(2026, 6, 15)
    assert dates.today(0) == datetime.date(1970, 1, 1)


def test_plan_modules_and_report_agree_on_a_given_day(clock, run_module, tmp_path):
    host_tree(tmp_path)
    plan = planning.plan_policy('enable', exceptions(), expired='keep')
    assert [e['name'] for e in plan['expired']] == ['past.service']

    applied = run_module.ok(service_verification, dict(root=str(tmp_path), services=exceptions()), check_mode=True)
    assert expired_names(applied['services']) == ['past.service']
    assert [w for w in applied['warnings'] if 'expired' in w] == [
        'past.service: the exception expired on %s (reason: ended yesterday); renew it with a later expires or '
        'remove it (state=absent).' % DAY_BEFORE]

    info = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert expired_names(info['services'], 'unit') == ['past.service']

    verdict = judge.compliance(info, 'enable', plan['active'], expired='remove')
    assert verdict['reasons'] == ['past.service keeps an exception that expired on %s' % DAY_BEFORE]
