# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one clock and the expiry dates (module_utils/_syntax/dates.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import dates


@pytest.mark.parametrize('text', ['2026-02-30', '2026-13-01', '26-01-01', '2026/01/01', 'tomorrow',
                                  '2026-01-01x', '2026-1-1', 20260101])
def test_bad_expiry_dates(text):
    with pytest.raises(dates.DateError):
        dates.validate_expires(text)


def test_good_expiry_dates():
    assert dates.validate_expires('2028-02-29') == datetime.date(2028, 2, 29)
    assert dates.validate_expires(datetime.date(2026, 1, 2)) == datetime.date(2026, 1, 2)
    assert dates.validate_expires(datetime.datetime(2026, 1, 2, 3, 4)) == datetime.date(2026, 1, 2)
    assert dates.validate_expires(None) is None


def test_is_expired_counts_the_expiry_day_as_valid():
    day = datetime.date(2026, 6, 30)
    assert not dates.is_expired(day, datetime.date(2026, 6, 29))
    assert not dates.is_expired(day, day)
    assert dates.is_expired(day, datetime.date(2026, 7, 1))
    assert dates.is_expired('2026-06-30', datetime.date(2026, 7, 1))
    assert not dates.is_expired(None, datetime.date(2999, 1, 1))


@pytest.mark.parametrize('text', [u'\uff12\uff10\uff13\uff10-\uff10\uff11-\uff10\uff11', u'\u0662030-01-01',
                                  u' 2030-1-01'])
def test_expires_is_ascii_yyyy_mm_dd_only(text):
    with pytest.raises(dates.DateError) as info:
        dates.validate_expires(text)
    assert 'is not a date of the form YYYY-MM-DD' in str(info.value) and "u'" not in str(info.value)
