"""The audit playbook's fleet report, checked on real output.

PEP493_REPORT_DIRS names the folders (separated by ":") that an audit run wrote report.json and
report.html into; tests/report/run makes them from a fleet of containers. Each report.json must
match report.schema.json and agree with itself; each report.html, rendered by a real headless
Chromium, must show the per-host table with one row per host of report.json, in its state.
"""

import html.parser
import json
import os
import shutil
import subprocess

import jsonschema
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "report.schema.json")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]


def report_dirs():
    value = os.environ.get("PEP493_REPORT_DIRS", "")
    dirs = [d for d in value.split(":") if d]
    if not dirs:
        raise RuntimeError("PEP493_REPORT_DIRS is not set: run tests/report/run, which makes the reports")
    return dirs


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("chromium is not installed (apt-get install chromium); tests/report/run installs it")


@pytest.fixture(params=report_dirs(), ids=os.path.basename)
def report_dir(request):
    return request.param


def load(report_dir):
    with open(os.path.join(report_dir, "report.json")) as handle:
        return json.load(handle)


def test_schema_is_valid_draft_2020_12():
    with open(SCHEMA) as handle:
        jsonschema.Draft202012Validator.check_schema(json.load(handle))


def test_report_matches_schema(report_dir):
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(load(report_dir)), key=str)
    assert not errors, "\n".join("%s at %s" % (e.message, "/".join(map(str, e.path))) for e in errors[:10])


def test_report_agrees_with_itself(report_dir):
    report = load(report_dir)
    assert report["host_count"] == len(report["hosts"]) > 0
    assert sum(report["totals"].values()) == report["host_count"]
    for state in report["states"]:
        assert report["totals"][state] == sum(1 for h in report["hosts"] if h["state"] == state)
    assert report["compliant"] == all(h["compliant"] for h in report["hosts"])
    assert len(set(h["host"] for h in report["hosts"])) == report["host_count"]
    for host in report["hosts"]:
        for key in ("exceptions", "expired", "ineffective", "pending_restart"):
            assert host["counts"][key] == len(host[key]), (host["host"], key)


class HostTable(html.parser.HTMLParser):
    """Rows of <table id="hosts"> in the rendered DOM: (data-host, data-state, cell texts)."""

    def __init__(self):
        html.parser.HTMLParser.__init__(self)
        self.rows, self.in_table, self.in_body, self.cell = [], False, False, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == "hosts":
            self.in_table = True
        elif self.in_table and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr":
            self.rows.append((attrs.get("data-host"), attrs.get("data-state"), []))
        elif self.in_body and tag == "td" and self.rows:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table" and self.in_table:
            self.in_table = self.in_body = False
        elif tag == "td" and self.cell is not None:
            self.rows[-1][2].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def render(report_dir, *extra, fragment=""):
    page = "file://" + os.path.join(os.path.abspath(report_dir), "report.html") + fragment
    proc = subprocess.run([chromium()] + CHROMIUM_FLAGS + list(extra) + [page], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_html_is_self_contained(report_dir):
    with open(os.path.join(report_dir, "report.html")) as handle:
        text = handle.read()
    for needle in ('src="http', "src='http", 'href="http', "@import", "url(http"):
        assert needle not in text


def test_browser_shows_one_row_per_host(report_dir):
    report = load(report_dir)
    table = HostTable()
    table.feed(render(report_dir, "--dump-dom"))
    assert len(table.rows) == report["host_count"]
    assert [(r[0], r[1]) for r in table.rows] == [(h["host"], h["state"]) for h in report["hosts"]]
    for (host, dummy, cells), entry in zip(table.rows, report["hosts"]):
        assert cells[0] == host
        assert [int(c) for c in cells[4:8]] == [entry["counts"][k] for k in
                                                ("exceptions", "expired", "ineffective", "pending_restart")]


def rendered_rows(report_dir, fragment):
    table = HostTable()
    table.feed(render(report_dir, "--dump-dom", fragment=fragment))
    return table.rows


def test_browser_sorts_the_host_table(report_dir):
    """The table's own script sorts it (report.html#sort=N opens it sorted by column N)."""
    report = load(report_dir)
    ranks = [report["states"].index(state) for host, state, cells in rendered_rows(report_dir, "#sort=1")]
    assert ranks == sorted(ranks)
    hosts = [host for host, state, cells in rendered_rows(report_dir, "#sort=0-desc")]
    assert hosts == sorted((h["host"] for h in report["hosts"]), key=str.lower, reverse=True)
    counts = [int(cells[4]) for host, state, cells in rendered_rows(report_dir, "#sort=4-desc")]
    assert counts == sorted(counts, reverse=True)
    assert sorted(counts) == sorted(h["counts"]["exceptions"] for h in report["hosts"])


def test_browser_screenshot(report_dir):
    shot = os.path.join(report_dir, "report.png")
    if os.path.exists(shot):
        os.unlink(shot)
    render(report_dir, "--window-size=1280,1100", "--screenshot=" + shot, "--hide-scrollbars")
    with open(shot, "rb") as handle:
        data = handle.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    # a blank page compresses to a few kilobytes; the report's table and bars do not
    assert len(data) > 30000, len(data)
