# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hypothesis profiles: "short" (make test), "long" (make fuzz), picked by PEP493_FUZZ_PROFILE.
"default" (no variable: ansible-test units) is the short one."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile('short', max_examples=200, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile('long', max_examples=5000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get('PEP493_FUZZ_PROFILE', 'short')
settings.load_profile(PROFILE)
