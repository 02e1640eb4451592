"""The audit playbook's fleet report, checked on real output.

PEP493_REPORT_DIRS names the folders (separated by ":") that an audit run wrote report.json and
report.html into; tests/report/run makes them from a fleet of containers. Each report.json must
match report.schema.json and agree with itself; each report.html, rendered by a real headless
Chromium, must show the per-host table with one row per host of report.json, in its state.
"""

import datetime
import html
import html.parser
import json
import math
import os
import re
import shutil
import subprocess

import jsonschema
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "report.schema.json")
PROBE = os.path.join(HERE, "probe.html")
COUNT_COLUMNS = {"exceptions": 5, "expiring": 6, "expired": 7, "ineffective": 8, "pending_restart": 9}
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]
# Chromium keeps a profile, caches and dconf's settings under the home directory: give it one
# inside the checkout, so that the test leaves the real home as it was.
CHROMIUM_HOME = os.path.join(os.path.dirname(os.path.dirname(HERE)), ".cache", "chromium-home")


def chromium_env():
    return dict(os.environ, HOME=CHROMIUM_HOME, XDG_CACHE_HOME=os.path.join(CHROMIUM_HOME, ".cache"),
                XDG_CONFIG_HOME=os.path.join(CHROMIUM_HOME, ".config"))


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
        assert host["counts"]["expiring"] == len(expiring_soon(report, host))


def report_day(report):
    return datetime.date.fromisoformat(report["generated"][:10])


def expiring_soon(report, host):
    """The host's exceptions in effect that end within the report's warning window, by the calendar."""
    found = []
    for row in host["exceptions"]:
        if row["expires"] is None:
            assert row["days_left"] is None
            continue
        days = (datetime.date.fromisoformat(row["expires"]) - report_day(report)).days
        assert row["days_left"] == days, (host["host"], row)
        if not row["expired"] and 0 <= days <= report["expiry_warning_days"]:
            found.append(row)
    return found


WORST_FIRST = ["non_compliant", "unreachable", "pending_restart", "compliant_with_exceptions", "compliant"]


def rank_of(report, host):
    """The rank of risk the report's rule gives, from the host entry itself."""
    if host["unverified"]:
        return 1
    if host["would_break"]:
        return 2
    return 3 if expiring_soon(report, host) else 4


def test_hosts_are_ranked_by_risk_then_by_state(report_dir):
    report = load(report_dir)
    for host in report["hosts"]:
        assert host["risk"]["rank"] == rank_of(report, host), host["host"]
    order = [(h["risk"]["rank"], WORST_FIRST.index(h["state"])) for h in report["hosts"]]
    assert order == sorted(order)


def test_some_report_has_every_rank_of_risk():
    """The generated fleet has hosts of every rank: the ranking is not checked on one rank only."""
    assert set(h["risk"]["rank"] for rep in map(load, report_dirs()) for h in rep["hosts"]) == {1, 2, 3, 4}


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
                          text=True, timeout=120, check=False, env=chromium_env())
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
        assert dict((k, int(cells[c])) for k, c in COUNT_COLUMNS.items()) == entry["counts"]


def rendered_rows(report_dir, fragment):
    table = HostTable()
    table.feed(render(report_dir, "--dump-dom", fragment=fragment))
    return table.rows


PAGE = 500  # rows the host table lays out before "Show all"
NARROW = 390  # a phone's width, in CSS pixels


def words(report):
    """Search words: a part of a host name from the middle of the report, a word of a reason
    (upper case: the search ignores case), and a word found nowhere."""
    return [report["hosts"][len(report["hosts"]) // 2]["host"].split("-")[-1], "EXPIRED", "no-such-host-anywhere"]


def searched(word):
    """The hosts whose name, or the text of whose "Why" cell (risk and reasons), has ``word``."""
    word = word.lower()
    return lambda h: word in h["host"].lower() or any(word in r.lower() for r in h["reasons"]) or (
        h["risk"]["rank"] < 4 and word in h["risk"]["why"].lower())


def filters(report):
    """fragment -> the hosts of report.json the table must show when opened with it."""
    wanted = {"": lambda h: True, "#state=expiring": lambda h: h["counts"]["expiring"] > 0,
              "#state=unverified": lambda h: h["risk"]["rank"] == 1, "#state=would_break": lambda h: bool(h["would_break"])}
    for state in ("non_compliant", "pending_restart", "unreachable"):
        wanted["#state=" + state] = lambda h, state=state: h["state"] == state
    for word in words(report):
        wanted["#q=" + word] = searched(word)
    first = words(report)[0]
    wanted["#state=non_compliant&q=" + first] = lambda h: h["state"] == "non_compliant" and searched(first)(h)
    return wanted


def test_browser_filters_and_searches_the_host_table(report_dir, probed):
    """Each filter shows the hosts of report.json it should, in their order (the first PAGE of
    them), and no other; the counter says how many match; "Show all" is there when more do."""
    report = load(report_dir)
    for fragment, wanted in sorted(filters(report).items()):
        seen = probed(report_dir)["frames"][fragment]
        expected = [h["host"] for h in report["hosts"] if wanted(h)]
        assert seen["visible"] == expected[:PAGE], fragment
        assert seen["moreHidden"] is (len(expected) <= PAGE), fragment
        if len(expected) > PAGE:
            assert seen["shown"] == "%d of %d matching hosts shown" % (PAGE, len(expected))
        else:
            assert seen["shown"] == "%d of %d hosts shown" % (len(expected), report["host_count"]), fragment
    assert any(searched(words(report)[0])(h) for h in report["hosts"]), "the search word matches no host"


def test_large_sections_start_collapsed(report_dir, probed):
    report = load(report_dir)
    hosts = report["hosts"]
    rows = {
        "expiring": sum(h["counts"]["expiring"] for h in hosts),
        "exceptions": sum(1 for h in hosts for r in h["exceptions"] if not r["expired"]),
        "expired": sum(h["counts"]["expired"] for h in hosts),
        "ineffective": sum(h["counts"]["ineffective"] for h in hosts),
        "pending": sum(h["counts"]["pending_restart"] for h in hosts),
        "findings": sum(len(h["findings"]) + len(h["warnings"]) for h in hosts),
    }
    sections = probed(report_dir)["frames"][""]["sections"]
    assert dict((name, sections[name]) for name in rows) == dict((name, n <= 50) for name, n in rows.items())


def test_browser_sorts_the_host_table(report_dir):
    """The table's own script sorts it (report.html#sort=N opens it sorted by column N)."""
    report = load(report_dir)
    ranks = [report["states"].index(state) for host, state, cells in rendered_rows(report_dir, "#sort=2")]
    assert ranks == sorted(ranks)
    by_host = dict((h["host"], h["risk"]["rank"]) for h in report["hosts"])
    risks = [by_host[host] for host, state, cells in rendered_rows(report_dir, "#sort=1-desc")]
    assert risks == sorted(risks, reverse=True)
    hosts = [host for host, state, cells in rendered_rows(report_dir, "#sort=0-desc")]
    assert hosts == sorted((h["host"] for h in report["hosts"]), key=str.lower, reverse=True)
    counts = [int(cells[5]) for host, state, cells in rendered_rows(report_dir, "#sort=5-desc")]
    assert counts == sorted(counts, reverse=True)
    assert sorted(counts) == sorted(h["counts"]["exceptions"] for h in report["hosts"])


@pytest.mark.parametrize("name,width", [("report.png", 1280), ("report-390px.png", 390)])
def test_browser_screenshot(report_dir, name, width):
    shot = os.path.join(report_dir, name)
    if os.path.exists(shot):
        os.unlink(shot)
    render(report_dir, "--window-size=%d,1100" % width, "--screenshot=" + shot, "--hide-scrollbars")
    with open(shot, "rb") as handle:
        data = handle.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == width
    # a blank page compresses to a few kilobytes; the report's table and bars do not
    assert len(data) > 30000, len(data)


def probe(report_dir, fragment=""):
    """What Chromium lays out at 390 px (a phone) and at 1280 px (tests/report/probe.html), and the host
    table with each filter of filters(report)."""
    with open(PROBE) as handle:
        page = handle.read().replace("{fragment}", html.escape(fragment, quote=True))
    page = page.replace("{fragments}", json.dumps(sorted(filters(load(report_dir)))).replace("<", "\\u003c"))
    path = os.path.join(report_dir, "probe.html")
    with open(path, "w") as handle:
        handle.write(page)
    proc = subprocess.run([chromium()] + CHROMIUM_FLAGS + ["--allow-file-access-from-files", "--dump-dom",
                                                           "file://" + os.path.abspath(path)],
                          capture_output=True, text=True, timeout=300, check=False, env=chromium_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    start = proc.stdout.index('<pre id="probe">') + len('<pre id="probe">')
    return json.loads(html.unescape(proc.stdout[start:proc.stdout.index("</pre>", start)]))


@pytest.fixture(scope="module")
def probed():
    cache = {}

    def get(report_dir, fragment=""):
        if (report_dir, fragment) not in cache:
            cache[report_dir, fragment] = probe(report_dir, fragment)
        return cache[report_dir, fragment]
    return get


def luminance(css):
    """WCAG relative luminance of an rgb()/rgba() colour as getComputedStyle gives it."""
    parts = [float(p) for p in css[css.index("(") + 1:css.index(")")].replace("/", ",").split(",")]
    assert len(parts) == 3 or parts[3] == 1, "a see-through colour: %s" % css
    linear = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first, second):
    light, dark = sorted([luminance(first), luminance(second)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def lab(css):
    """CIE L*a*b* (D65) of an rgb() colour, to tell how far apart two colours look."""
    parts = [float(p) / 255 for p in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
    r, g, b = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in parts]
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = [t ** (1 / 3.0) if t > 0.008856 else 7.787 * t + 16 / 116.0 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def test_contrast_ratio_of_every_badge(report_dir, probed):
    for width in ("narrow", "wide"):
        pills = probed(report_dir)[width]["pills"]
        assert len(pills) > len(load(report_dir)["states"])
        low = [(p["cls"], p["text"], round(contrast(p["color"], p["background"]), 2)) for p in pills
               if contrast(p["color"], p["background"]) < 4.5]
        assert not low, low


def test_the_two_greens_look_different(report_dir, probed):
    colours = dict((p["cls"], p["background"]) for p in probed(report_dir)["wide"]["pills"])
    first, second = lab(colours["pill s-compliant"]), lab(colours["pill s-compliant_with_exceptions"])
    # CIE76 distance: about 2.3 is just noticeable; 20 and more reads as another colour at a glance
    assert sum((a - b) ** 2 for a, b in zip(first, second)) ** 0.5 >= 20
    # and a light green beside a dark one is not enough: their hues differ by 30 degrees or more
    hues = [math.degrees(math.atan2(b, a)) % 360 for dummy, a, b in (first, second)]
    assert min(abs(hues[0] - hues[1]), 360 - abs(hues[0] - hues[1])) >= 30, hues


@pytest.mark.parametrize("width", ["narrow", "wide"])
def test_no_sideways_scroll_and_readable_host_names(report_dir, probed, width):
    seen = probed(report_dir)[width]
    assert seen["width"] == (NARROW if width == "narrow" else 1280)
    assert seen["scrollWidth"] <= seen["clientWidth"], "the page scrolls sideways at %d px" % seen["width"]
    assert seen["hostCells"], "no host row laid out"
    for cell in seen["hostCells"]:
        # no name is broken into a column of letters: a line per 12 characters at most, a wide cell
        assert 1 <= cell["lines"] <= -(-len(cell["host"]) // 12), cell
        assert cell["width"] >= 120, cell
    if width == "narrow":
        assert seen["theadHeight"] == 0, "column headers shown above a card layout"


@pytest.mark.parametrize("width", ["narrow", "wide"])
def test_every_table_scrolls_in_its_own_box_and_every_value_is_whole(report_dir, probed, width):
    """With every section open (a long one starts collapsed): no table makes the page scroll
    sideways, each sits in a box that scrolls, and no value (platform_default, a result, a state,
    a rank of risk) is broken across lines or spills out of its cell."""
    seen = probed(report_dir)[width]["opened"]
    assert seen["scrollWidth"] <= seen["clientWidth"], "a table makes the page scroll sideways"
    unboxed = [table["section"] for table in seen["tables"] if not table["scrolls"]]
    assert not unboxed, "tables without a scrolling box: %s" % unboxed
    assert seen["values"]["count"] > 0
    assert seen["values"]["bad"] == []


def test_some_report_shows_platform_default_and_would_break_rows():
    """The generated fleet has both: the check above does not pass on their absence."""
    reports = [load(d) for d in report_dirs()]
    assert any(h["verify"] == "platform_default" for rep in reports for h in rep["hosts"])
    assert any(h["would_break"] for rep in reports for h in rep["hosts"])


def long_reasons(report):
    """Reasons of the first PAGE hosts that are more than one short line (a raw SSH error)."""
    firsts = [(r, (r.splitlines() or [""])[0]) for h in report["hosts"][:PAGE] for r in h["reasons"]]
    return [" ".join(r.split()) for r, first in firsts if len(first) > 140 or first != r]


def test_long_reasons_take_one_line_with_the_full_text_on_demand(report_dir, probed):
    expected = long_reasons(load(report_dir))
    for width in ("narrow", "wide"):
        seen = probed(report_dir)[width]["longReasons"]
        assert len(seen) == len(expected), width
        for reason, shown in zip(expected, seen):
            assert not shown["open"] and shown["summaryLines"] == 1, (width, shown)
            assert reason in shown["text"], (width, reason)


def test_exceptions_in_effect_leave_out_expired_ones(report_dir, probed):
    report = load(report_dir)
    expected = sorted([h["host"], r["unit"]] for h in report["hosts"] for r in h["exceptions"] if not r["expired"])
    assert sorted(probed(report_dir)["wide"]["inEffect"]) == expected


def test_some_report_has_long_reasons():
    assert any(long_reasons(load(d)) for d in report_dirs())


def test_some_report_has_exceptions_expiring_soon():
    """The generated fleet has them: the expiring-soon checks are not run on empty sections only."""
    assert any(expiring_soon(report, host) for report in map(load, report_dirs()) for host in report["hosts"])


def test_expiring_soon_section(report_dir, probed):
    report = load(report_dir)
    expected = sorted(((h["host"], r["unit"], r["days_left"], r["expires"]) for h in report["hosts"]
                       for r in expiring_soon(report, h)), key=lambda row: row[2])
    for width in ("narrow", "wide"):
        shown = [(cells[0], cells[1], int(cells[2]), cells[3]) for cells in probed(report_dir)[width]["expiring"]]
        assert [row[2] for row in shown] == sorted(row[2] for row in shown)
        assert sorted(shown) == sorted(expected)


def merged_and_slices():
    value = os.environ.get("PEP493_MERGED", "")
    if not value:
        raise RuntimeError("PEP493_MERGED is not set: run tests/report/run, which merges three slices")
    merged, *slices = value.split(":")
    return merged, slices


def comparable(entry):
    """A host entry without what a merge counts again (days left, expiring, risk) or adds (source)."""
    entry = dict((k, v) for k, v in entry.items() if k not in ("source", "audited", "counts", "risk"))
    for key in ("exceptions", "expired", "ineffective"):
        entry[key] = [dict((k, v) for k, v in row.items() if k != "days_left") for row in entry[key]]
    return entry


def test_merge_of_three_slices_keeps_the_newest_result_per_host():
    merged_dir, slices = merged_and_slices()
    merged = load(merged_dir)
    reports = [(path, load(os.path.dirname(path))) for path in slices]
    assert len(reports) == 3
    assert merged["sources"] == [dict(source=path, generated=r["generated"], host_count=r["host_count"],
                                      hosts_used=sum(1 for h in merged["hosts"] if h["source"] == path))
                                 for path, r in reports]
    newest = {}
    for path, report in reports:
        for entry in report["hosts"]:
            rank = (entry["state"] != "unreachable", report["generated"])
            if entry["host"] not in newest or rank > newest[entry["host"]][0]:
                newest[entry["host"]] = (rank, path, report["generated"], entry)
    assert sorted(h["host"] for h in merged["hosts"]) == sorted(newest)
    for entry in merged["hosts"]:
        rank, path, made, expected = newest[entry["host"]]
        assert (entry["source"], entry["audited"]) == (path, made), entry["host"]
        assert comparable(entry) == comparable(expected), entry["host"]
    # the slices overlap, and the overlap decides something: some host has another state in an older slice
    seen = {}
    for path, report in reports:
        for entry in report["hosts"]:
            seen.setdefault(entry["host"], set()).add(entry["state"])
    assert any(len(states) > 1 for states in seen.values())


def table_rows(report_dir, section):
    """The <tr> elements of one section of report.html, as their text (tags dropped)."""
    with open(os.path.join(report_dir, "report.html")) as handle:
        text = handle.read()
    part = text.split('<section id="%s">' % section, 1)[1].split("</section>", 1)[0]
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split())
            for row in part.split("<tr>")[1:]]


def test_never_deployed_and_hand_made_overrides_are_listed(report_dir):
    report = load(report_dir)
    never = [(h["host"], r) for h in report["hosts"] for r in h["expired"] if r.get("deployed") is False]
    rows = table_rows(report_dir, "expired")
    for host, r in never:
        assert any(row.startswith("%s %s %s" % (host, r["unit"], r["expires"])) and r["reason"] in row
                   and "no drop-in on the host" in row for row in rows), (host, r["unit"])
    # the section of exceptions in effect: an expired one is in the section above
    foreign = [(h["host"], r) for h in report["hosts"] for r in h["exceptions"] if r.get("foreign") and not r["expired"]]
    rows = table_rows(report_dir, "exceptions")
    for host, r in foreign:
        assert any(row.startswith("%s %s" % (host, r["unit"])) and "pep493.https" in row
                   and all(path in row for path in r["foreign"]) for row in rows), (host, r["unit"])


def test_some_report_has_never_deployed_exceptions_and_hand_made_overrides():
    """The generated fleet has both: the check above is not run on empty lists only."""
    reports = [load(d) for d in report_dirs()]
    assert any(r.get("deployed") is False for rep in reports for h in rep["hosts"] for r in h["expired"])
    assert any(r.get("foreign") for rep in reports for h in rep["hosts"] for r in h["exceptions"])
