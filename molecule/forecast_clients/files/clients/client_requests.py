# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service on requests (see pep493_client).
Its unit chooses the CA bundle: certifi's (nothing set) or REQUESTS_CA_BUNDLE."""
import requests

import pep493_client as client


def attempt():
    response = requests.get(client.URL, timeout=client.TIMEOUT)
    if response.status_code != 200:
        raise IOError('http_error: HTTP %d' % response.status_code)
    return 'HTTP %d' % response.status_code


client.run(attempt)
