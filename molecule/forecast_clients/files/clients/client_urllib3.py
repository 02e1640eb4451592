# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service on urllib3's PoolManager used directly,
with its defaults (see pep493_client). Its unit's PYTHONPATH chooses the version."""
import urllib3

import pep493_client as client


def attempt():
    response = urllib3.PoolManager(timeout=client.TIMEOUT, retries=False).request('GET', client.URL)
    if response.status != 200:
        raise IOError('http_error: HTTP %d' % response.status)
    return 'HTTP %d' % response.status


client.run(attempt)
