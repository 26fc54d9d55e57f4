"""A week of shoes at line rate with the table display open: does any memory grow?

The bench plays dealt shoes (by default 180 six-pack Baden shoes, about 11,000 coups: a
week of a table dealing 65 coups an hour round the clock) into a real pty in front of the
real daemon process, at 921,600 baud, while Debian's Chromium shows the page at 1920x1080.
After the first shoe and then at every tenth of the run it measures:

- the daemon's resident memory (VmRSS and VmHWM from /proc/PID/status);
- the page's JavaScript heap after a forced garbage collection, its DOM nodes and its event
  listeners (Chromium's DevTools protocol: HeapProfiler.collectGarbage, Performance.getMetrics).

It prints each sample and the change from the first to the last; flat memory is a change
within the noise of one sample to the next, with no trend along the run.

`--display off` runs the same shoes with the display off (`--http off`, no page): the
daemon's own memory without the display, to tell the display's share.

    .venv/bin/python bench/display_memory.py [--shoes 180] [--profile baden] [--baud 921600]
            [--display off]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.display_latency import CHROMIUM_ARGS  # noqa: E402
from bench.latency import load, machine_name, start_table  # noqa: E402
from drivers.framing import encode  # noqa: E402
from drivers.messages import Button, Hello  # noqa: E402
from drivers.records import next_seq  # noqa: E402
from hil.dealer import deal_shoes  # noqa: E402
from hil.harness import display_url, stop  # noqa: E402


def _new_shoe(message: object) -> bool:
    return isinstance(message, Button) and message.name == "SHOE"


def rss_kib(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0])
    return out


def page_memory(cdp: Any) -> dict[str, int]:
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {"js_heap_used": int(metrics["JSHeapUsedSize"]),
            "js_heap_total": int(metrics["JSHeapTotalSize"]),
            "nodes": int(metrics["Nodes"]), "listeners": int(metrics["JSEventListeners"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="baden")
    parser.add_argument("--shoes", type=int, default=180)
    parser.add_argument("--baud", type=int, default=921600)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--display", choices=("on", "off"), default="on")
    args = parser.parse_args()
    print("machine:", machine_name(), "| load:", load())
    t0 = time.monotonic()
    session = deal_shoes(args.profile, shoes=args.shoes, seed=args.seed)
    messages = session.messages
    print(f"dealt {args.shoes} shoes: {len(messages)} messages, {len(session.results)} coups "
          f"in {time.monotonic() - t0:.1f} s")
    shoe_starts = [i for i, m in enumerate(messages) if _new_shoe(m)]
    marks = {shoe_starts[min(len(shoe_starts) - 1, max(1, round(k * args.shoes / 10)))]: k
             for k in range(1, 11)} if len(shoe_starts) > 1 else {}
    marks[shoe_starts[1] if len(shoe_starts) > 1 else len(messages) - 1] = 0
    samples: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="shoe-bench-") as tmp, sync_playwright() as pw:
        work = Path(tmp)
        on = args.display == "on"
        master, slave, daemon = start_table(work, args.profile, (work / "daemon.log").open("w"),
                                            () if on else ("--http", "off"))
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = cdp = None
        try:
            if on:
                url = display_url(work, daemon)
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                page.goto(url)
                while page.evaluate("document.body.dataset.state === 'starting'"):
                    time.sleep(0.02)
            else:
                time.sleep(1.0)  # the daemon opens the port
            os.set_blocking(master, False)
            seconds_per_byte = 10.0 / args.baud
            line_free = time.monotonic()
            seq = 0
            started = time.monotonic()

            def sample(shoe: int, tenth: int) -> None:
                # The daemon first takes what is on the line: then both sides are at rest.
                time.sleep(1.0)
                drain(0.0)
                entry = {"tenth": tenth, "shoe": shoe, "s": round(time.monotonic() - started, 1),
                         **rss_kib(daemon.pid)}
                if page is not None:
                    page.wait_for_timeout(300)
                    entry |= {**page_memory(cdp),
                              "beads": int(page.evaluate("document.body.dataset.beads || 0"))}
                samples.append(entry)
                print(json.dumps(entry), flush=True)

            def drain(wait: float) -> None:
                if select.select([master], [], [], wait)[0]:
                    with contextlib.suppress(BlockingIOError):
                        os.read(master, 65536)  # ACKs and LAMPs

            shoe = 0
            for i, message in enumerate(messages):
                if i in marks:
                    sample(shoe, marks[i])
                if isinstance(message, Hello):
                    seq = 0
                if _new_shoe(message):
                    shoe += 1
                frame = encode(seq, message)
                seq = next_seq(seq)
                line_free = max(line_free, time.monotonic()) + len(frame) * seconds_per_byte
                while (left := line_free - time.monotonic()) > 0:
                    drain(left)
                while frame:
                    try:
                        frame = frame[os.write(master, frame):]
                    except BlockingIOError:
                        drain(0.01)
                drain(0.0)
            sample(shoe, 10)
        finally:
            browser.close()
            stop(daemon)
            os.close(master)
            os.close(slave)
    first, last = samples[0], samples[-1]
    print(f"after shoe {first['shoe']} -> after shoe {last['shoe']} "
          f"({last['s'] - first['s']:.0f} s of play):")
    for key in ("VmRSS", "js_heap_used", "nodes", "listeners"):
        if key not in first:
            continue
        values = [s[key] for s in samples]
        print(f"  {key:13} {first[key]:>10,} -> {last[key]:>10,}  "
              f"(change {last[key] - first[key]:+,}; range {min(values):,} to {max(values):,})")


if __name__ == "__main__":
    main()
