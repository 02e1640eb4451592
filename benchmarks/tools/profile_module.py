# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Profile a module inside a bench container from an exploded AnsiballZ payload.

    python3 profile_module.py DEBUG_DIR MODULE_FQN [LINES]

DEBUG_DIR is what `python3 AnsiballZ_<module>.py explode` leaves (ANSIBLE_KEEP_REMOTE_FILES=1,
ANSIBLE_PIPELINING=0). Prints the wall time of the imports and of the module run, then the
functions with the most cumulative time. Runs on the target's Python (3.6+).
"""

from __future__ import absolute_import, division, print_function

import cProfile
import io
import os
import pstats
import sys
import time


def main():
    debug_dir, fqn = sys.argv[1], sys.argv[2]
    lines = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    sys.path.insert(0, debug_dir)
    with open(os.path.join(debug_dir, 'args'), 'rb') as f:
        params = f.read()
    t0 = time.time()
    from ansible.module_utils._internal._ansiballz import _loader
    t1 = time.time()
    prof = cProfile.Profile()
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()
    try:
        prof.runcall(_loader.run_module, json_params=params, profile='legacy', module_fqn=fqn,
                     modlib_path=debug_dir, extensions={})
    except SystemExit:
        pass
    t2 = time.time()
    result_size = len(sys.stdout.getvalue())
    sys.stdout = real_stdout
    print('loader import %.3fs, module run %.3fs, result %d bytes' % (t1 - t0, t2 - t1, result_size))
    pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats('cumulative').print_stats(lines)


main()
