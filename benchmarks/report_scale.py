"""The fleet report at 1,000 and 10,000 hosts: how long it takes to write and to open.

    benchmarks/report_scale.py [--hosts 1000,10000] [--out DIR]

For each fleet size: tests/report/fleet.py generates the audit results (no host is touched);
tests/report/render.yml writes report.json and report.html with the audit playbook's own tasks
(timed: wall and CPU seconds of ansible-playbook, its peak memory); then headless Chromium opens
report.html in a frame, and the page's own clock measures the time to its load event, and how long
the state filter and the search box take to redraw the host table. Prints a Markdown table;
benchmarks/report_scale.md keeps a recorded run. Run it from the checkout (it sources tools/env).
"""

import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import time

from tools.checkout_env import checkout_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Chromium's profile, caches and dconf settings: inside the checkout, not the real home
CHROMIUM_HOME = os.path.join(ROOT, ".cache", "chromium-home")
PAGE = """<!DOCTYPE html><html><body><script>
var started = performance.now(), out = {};
var frame = document.createElement('iframe');
frame.style.cssText = 'width: 1280px; height: 900px; border: 0';
frame.addEventListener('load', function () {
  out.load_ms = performance.now() - started;
  var doc = frame.contentWindow.document, select = doc.getElementById('host-filter');
  var search = doc.getElementById('host-search'), t = performance.now();
  select.value = 'non_compliant';
  select.dispatchEvent(new Event('change'));
  doc.body.offsetHeight;
  out.filter_ms = performance.now() - t;
  t = performance.now();
  search.value = '7';
  search.dispatchEvent(new Event('input'));
  doc.body.offsetHeight;
  out.search_ms = performance.now() - t;
  out.shown = doc.getElementById('host-shown').textContent;
  var pre = document.createElement('pre');
  pre.id = 'timing';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
frame.src = 'report.html';
document.body.appendChild(frame);
</script></body></html>
"""


def run(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.time() - start, cpu, after.ru_maxrss // 1024


def open_in_chromium(folder):
    page = os.path.join(folder, "timing.html")
    with open(page, "w") as handle:
        handle.write(PAGE)
    start = time.time()
    proc = subprocess.run([shutil.which("chromium") or "chromium-browser", "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", "--disable-dev-shm-usage", "--allow-file-access-from-files",
                           "--dump-dom", "file://" + page], capture_output=True, text=True, check=True, timeout=600,
                          env=dict(os.environ, HOME=CHROMIUM_HOME, XDG_CACHE_HOME=os.path.join(CHROMIUM_HOME, ".cache"),
                                   XDG_CONFIG_HOME=os.path.join(CHROMIUM_HOME, ".config")))
    wall = time.time() - start
    text = proc.stdout
    begin = text.index('<pre id="timing">') + len('<pre id="timing">')
    return wall, json.loads(text[begin:text.index("</pre>", begin)].replace("&quot;", '"'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="1000,10000")
    parser.add_argument("--out", default=os.path.join(ROOT, ".cache", "report-scale"))
    args = parser.parse_args()
    env = checkout_env(ANSIBLE_NOCOLOR="1")
    python, playbook = sys.executable, os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    today = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    for count in [int(n) for n in args.hosts.split(",")]:
        folder = os.path.join(args.out, str(count))
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        fleet = os.path.join(folder, "fleet.json")
        subprocess.run([python, os.path.join(ROOT, "tests", "report", "fleet.py"), str(count),
                        today.strftime("%Y-%m-%d"), fleet], check=True)
        wall, cpu, rss = run([playbook, os.path.join(ROOT, "tests", "report", "render.yml"), "-e", "fleet=" + fleet,
                              "-e", "out=" + folder, "-e", "generated=" + today.strftime("%Y-%m-%dT%H:%M:%SZ")], env)
        browser_wall, timing = open_in_chromium(folder)
        size = dict((name, os.path.getsize(os.path.join(folder, name))) for name in ("report.json", "report.html"))
        rows.append((count, wall, cpu, rss, size, browser_wall, timing))
    print("| hosts | write: wall s | write: CPU s | write: peak MB | report.json MB | report.html MB "
          "| Chromium run s | page load ms | state filter ms | search ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for count, wall, cpu, rss, size, browser_wall, timing in rows:
        print("| %d | %.1f | %.1f | %d | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f |" % (
            count, wall, cpu, rss, size["report.json"] / 1e6, size["report.html"] / 1e6, browser_wall,
            timing["load_ms"], timing["filter_ms"], timing["search_ms"]))
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = float(last[0]) / first[0]
        print("\n%dx the hosts: write %.2fx the wall time (%.2fx per host), page load %.2fx (%.2fx per host), "
              "report.html %.2fx the size" % (scale, last[1] / first[1], last[1] / first[1] / scale,
                                              last[6]["load_ms"] / first[6]["load_ms"],
                                              last[6]["load_ms"] / first[6]["load_ms"] / scale,
                                              float(last[4]["report.html"]) / first[4]["report.html"]))


if __name__ == "__main__":
    main()
