# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a service's Python program does for HTTPS, learned read-only before a forecast: which
modules it imports (``imports``) and which HTTPS stacks those are and whether PEP 493's knobs
govern them (``stacks``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
