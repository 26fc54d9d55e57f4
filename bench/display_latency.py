"""Latency from a coup's deciding frame to its result on the table display.

As bench/latency.py does, the bench plays the shoe into a real pty in front of the real
daemon process (display on a free port) and notes the wall-clock time right after the last
byte of each deciding frame is written. Two clients watch the display:

- an SSE client in a process of its own notes when the event carrying the result arrives;
- Debian's Chromium, headless, shows the real page; a MutationObserver installed before the
  page's own script notes `performance.timeOrigin + performance.now()` (wall clock, ms) when
  the result appears in the page.

Frames go out at a croupier's pace (`--gap`), so each result is measured on its own.

    .venv/bin/python bench/display_latency.py [--coups 100] [--gap 0.08] [--profile baden]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import select
import sys
import tempfile
import time
from multiprocessing.queues import Queue
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.latency import dealt, machine_name, report, start_table  # noqa: E402
from drivers.framing import encode  # noqa: E402
from drivers.messages import Hello  # noqa: E402
from drivers.records import next_seq  # noqa: E402
from hil.harness import display_url, stop  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

# In the page, before its script: the time each new result becomes visible.
RECORDER = """
window.__results = [];
document.addEventListener("DOMContentLoaded", () => {
  let shown = "";
  new MutationObserver(() => {
    const b = document.body;
    const key = b.dataset.outcome ? document.getElementById("shoe-no").textContent + "/" +
      b.dataset.coup : "";
    if (key && key !== shown &&
        document.getElementById("result-words").textContent) {
      window.__results.push(performance.timeOrigin + performance.now());
    }
    shown = key;
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
});
"""


def watch_stream(url: str, arrivals: Queue) -> None:
    """Note the arrival time of each event that shows a newly decided coup; runs in its own
    process so the bench's writing loop cannot delay it."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    shown = None
    while True:
        line = response.readline()
        if not line:
            return
        if not line.startswith(b"data: "):
            continue
        now = time.time()
        view = json.loads(line[6:])
        coup = view.get("coup")
        key = (view["shoe"]["number"], coup["number"]) if coup and coup["outcome"] else None
        if key is not None and key != shown:
            arrivals.put(now)
        shown = key


def run(profile: str, coups: int, gap: float, seed: int) -> tuple[list[float], list[float]]:
    messages, decide = dealt(profile, coups, seed)
    with tempfile.TemporaryDirectory(prefix="shoe-bench-") as tmp, sync_playwright() as pw:
        work = Path(tmp)
        master, slave, daemon = start_table(work, profile, (work / "daemon.log").open("w"))
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        queue: Queue = multiprocessing.get_context("spawn").Queue()
        arrivals: list[float] = []
        reader = None
        try:
            url = display_url(work, daemon)
            reader = multiprocessing.get_context("spawn").Process(
                target=watch_stream, args=(url, queue), daemon=True)
            reader.start()
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.add_init_script(RECORDER)
            page.goto(url)
            while page.evaluate("document.body.dataset.state === 'starting'"):
                time.sleep(0.02)  # wait_for_function would need eval, which the CSP forbids
            time.sleep(0.5)
            written: list[float] = []
            seq = 0
            for i, message in enumerate(messages):
                if isinstance(message, Hello):
                    seq = 0
                os.write(master, encode(seq, message))
                t = time.time()
                seq = next_seq(seq)
                written += [t] * decide.count(i)
                end = t + gap
                while (left := end - time.time()) > 0:
                    ready, _, _ = select.select([master], [], [], left)
                    if ready:
                        os.read(master, 65536)  # ACKs and LAMPs: keep the pty from filling
            deadline = time.time() + 10
            shown: list[float] = []
            while time.time() < deadline:
                while not queue.empty():
                    arrivals.append(queue.get())
                shown = page.evaluate("window.__results.map((t) => t / 1000)")
                if len(shown) >= len(written) and len(arrivals) >= len(written):
                    break
                time.sleep(0.1)
        finally:
            if reader is not None:
                reader.terminate()
            browser.close()
            stop(daemon)
            os.close(master)
            os.close(slave)
    if len(arrivals) != len(written) or len(shown) != len(written):
        raise SystemExit(f"{len(written)} results: {len(arrivals)} on the stream, "
                         f"{len(shown)} on the page")
    to_stream = [(a - w) * 1000 for a, w in zip(arrivals, written, strict=True)]
    to_page = [(s - w) * 1000 for s, w in zip(shown, written, strict=True)]
    return to_stream, to_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="baden")
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--gap", type=float, default=0.08,
                        help="seconds between frames at a croupier's pace")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    print("machine:", machine_name())
    to_stream, to_page = run(args.profile, args.coups, args.gap, args.seed)
    report("frame -> SSE event", to_stream)
    report("frame -> result on page", to_page)


if __name__ == "__main__":
    main()
