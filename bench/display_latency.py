"""Latency from a coup's deciding frame to its result on the table display.

As bench/latency.py does, the bench plays the shoe into a real pty in front of the real
daemon process (display on a free port) and notes the wall-clock time right after the last
byte of each deciding frame is written. Clients watch the display:

- an SSE client in a process of its own notes when the first event that holds the result
  (its bead on the bead plate) arrives;
- Debian's Chromium, headless, shows the real page; a MutationObserver installed before the
  page's own script notes `performance.timeOrigin + performance.now()` (wall clock, ms) when
  the page first shows the result's bead (the page sets `data-shoe` and `data-beads` on its
  body as it renders; the result words come with the same render);
- `--sse-clients N` more screens (50 by default, `bench/sse_swarm.py`), as issue 13 asks.

A result is timed by its bead, not by the coup on screen: at line rate several coups are
decided in one batch and the page shows the state after the batch (docs/display.md, "One
view a batch"), so a coup's own result words may never be on screen, but its bead always is.
Coups cancelled or void make no bead and are not timed. The bench waits half a second before
each new shoe, as a shoe change takes minutes: a shoe's last result is never in the batch
that opens the next shoe.

`--gap` sets a croupier's pace (each result measured alone); `--baud` plays at line rate.

    .venv/bin/python bench/display_latency.py [--coups 100] [--gap 0.08] [--baud 921600]
            [--sse-clients 50] [--profile baden]
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

from bench.latency import dealt, load, machine_name, report, start_table  # noqa: E402
from bench.sse_swarm import Swarm  # noqa: E402
from drivers.framing import encode  # noqa: E402
from drivers.messages import Button, Hello, Message  # noqa: E402
from drivers.records import next_seq  # noqa: E402
from hil.harness import display_url, stop  # noqa: E402
from shoe_daemon.game.coup import CoupMachine  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

# In the page, before its script: when each (shoe, beads) is first rendered.
RECORDER = """
window.__beads = [];
document.addEventListener("DOMContentLoaded", () => {
  let shown = "";
  new MutationObserver(() => {
    const b = document.body;
    const key = (b.dataset.shoe || "") + "/" + (b.dataset.beads || "");
    if (key !== shown) {
      window.__beads.push([b.dataset.shoe || "", +(b.dataset.beads || 0),
                           performance.timeOrigin + performance.now()]);
      shown = key;
    }
  }).observe(document.body, {attributes: true});
});
"""


def bead_keys(messages: list[Message], profile: str) -> list[tuple[int, int] | None]:
    """For each coup.result in order: (shoe, beads on the plate after it), None if no bead."""
    machine = CoupMachine(get_profile(profile))
    beads: dict[int, int] = {}
    keys: list[tuple[int, int] | None] = []
    for m in messages:
        for line in machine.handle(m):
            if line["event"] != "coup.result":
                continue
            if line["outcome"] in ("banker", "punter", "egalite"):
                beads[line["shoe"]] = beads.get(line["shoe"], 0) + 1
                keys.append((line["shoe"], beads[line["shoe"]]))
            else:
                keys.append(None)
    return keys


def first_at(seen: list[tuple[int, int, float]]) -> dict[tuple[int, int], float]:
    """The first time each bead was shown: a bead counts as shown when the plate of its shoe
    first held at least that many (a batch can add several at once)."""
    out: dict[tuple[int, int], float] = {}
    for shoe, beads, t in seen:
        for n in range(1, beads + 1):
            out.setdefault((shoe, n), t)
    return out


def watch_stream(url: str, arrivals: Queue) -> None:
    """Note (shoe, beads, time) for each event; in its own process so the bench's writing
    loop cannot delay it."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    while True:
        line = response.readline()
        if not line:
            return
        if not line.startswith(b"data: "):
            continue
        now = time.time()
        view = json.loads(line[6:])
        if view.get("shoe"):
            arrivals.put((view["shoe"]["number"], len(view["history"]["bead_plate"]), now))


def run(profile: str, coups: int, gap: float, baud: int | None, seed: int,
        sse_clients: int) -> tuple[list[float], list[float], int]:
    messages, decide = dealt(profile, coups, seed)
    keys = bead_keys(messages, profile)[: len(decide)]
    with tempfile.TemporaryDirectory(prefix="shoe-bench-") as tmp, sync_playwright() as pw:
        work = Path(tmp)
        master, slave, daemon = start_table(work, profile, (work / "daemon.log").open("w"))
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        queue: Queue = multiprocessing.get_context("spawn").Queue()
        stream: list[tuple[int, int, float]] = []
        reader = swarm = None
        events = 0
        try:
            url = display_url(work, daemon)
            reader = multiprocessing.get_context("spawn").Process(
                target=watch_stream, args=(url, queue), daemon=True)
            reader.start()
            if sse_clients:
                swarm = Swarm(url, sse_clients)
                swarm.start()
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.add_init_script(RECORDER)
            page.goto(url)
            while page.evaluate("document.body.dataset.state === 'starting'"):
                time.sleep(0.02)  # wait_for_function would need eval, which the CSP forbids
            time.sleep(0.5)
            written: list[float] = []
            seq = 0
            seconds_per_byte = 10.0 / baud if baud else 0.0
            line_free = time.time()
            for i, message in enumerate(messages):
                if isinstance(message, Hello):
                    seq = 0
                if i and isinstance(message, Button) and message.name == "SHOE":
                    time.sleep(0.5)  # a new shoe takes minutes: never in the batch before it
                    line_free = time.time()
                frame = encode(seq, message)
                seq = next_seq(seq)
                if seconds_per_byte:  # the line carries the frame no faster than its baud
                    line_free = max(line_free, time.time()) + len(frame) * seconds_per_byte
                    while (left := line_free - time.time()) > 0:
                        if select.select([master], [], [], left)[0]:
                            os.read(master, 65536)
                os.write(master, frame)
                t = time.time()
                written += [t] * decide.count(i)
                end = t + gap
                while (left := end - time.time()) > 0:
                    ready, _, _ = select.select([master], [], [], left)
                    if ready:
                        os.read(master, 65536)  # ACKs and LAMPs: keep the pty from filling
            wanted = {k for k in keys if k is not None}
            deadline = time.time() + 15
            on_page: dict[tuple[int, int], float] = {}
            while time.time() < deadline:
                while not queue.empty():
                    stream.append(queue.get())
                seen = page.evaluate("window.__beads")
                on_page = first_at([(int(s), n, t / 1000) for s, n, t in seen if s])
                if wanted <= set(on_page) and wanted <= set(first_at(stream)):
                    break
                time.sleep(0.1)
        finally:
            if reader is not None:
                reader.terminate()
            if swarm is not None:
                events = swarm.events.value
                swarm.stop()
            browser.close()
            stop(daemon)
            os.close(master)
            os.close(slave)
    to_stream, to_page = [], []
    on_stream = first_at(stream)
    for key, w in zip(keys, written, strict=True):
        if key is None:
            continue
        if key not in on_stream or key not in on_page:
            raise SystemExit(f"result {key} never shown: stream {key in on_stream}, "
                             f"page {key in on_page}")
        to_stream.append((on_stream[key] - w) * 1000)
        to_page.append((on_page[key] - w) * 1000)
    return to_stream, to_page, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="baden")
    parser.add_argument("--coups", type=int, default=100)
    parser.add_argument("--gap", type=float, default=0.08,
                        help="seconds between frames at a croupier's pace")
    parser.add_argument("--baud", type=int, default=None,
                        help="play at this line rate instead (frames back to back)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--sse-clients", type=int, default=50,
                        help="more screens watching the display (0: none)")
    args = parser.parse_args()
    print("machine:", machine_name(), "| load:", load())
    gap = 0.0 if args.baud else args.gap
    to_stream, to_page, events = run(args.profile, args.coups, gap, args.baud, args.seed,
                                     args.sse_clients)
    pace = f"{args.baud} baud" if args.baud else f"{gap * 1000:.0f} ms apart"
    print(f"frames {pace}; {args.sse_clients} more SSE clients got {events} events")
    report("frame -> SSE event", to_stream)
    report("frame -> result on page", to_page)


if __name__ == "__main__":
    main()
