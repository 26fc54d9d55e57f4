"""What the table display costs the table's loop, in CPU time, per coup.

The wall-clock benches (latency.py, display_latency.py) are at the mercy of the machine's
other load; this one counts the table thread's own CPU time (`time.thread_time`), which
waiting for a CPU does not inflate. It plays dealt shoes through the service's `Table`
exactly as the link does (frames in batches: `frame_received` for each, then `commit` and
`acknowledged`), once without a display and once with one (its states handed to a sink that
keeps the last), and reports the difference per coup and per frame. No ledger: the commit's
fsync is the same with and without the display and would only add noise.

Batches: 1 frame (a croupier's pace: every frame read alone) and 8 frames (about what one
read brings at 921,600 baud while the previous batch is being committed).

    .venv/bin/python bench/display_cost.py [--shoes 20] [--profile eight-pack] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.latency import load, machine_name  # noqa: E402
from drivers.framing import Frame, encode  # noqa: E402
from drivers.messages import Hello, Message  # noqa: E402
from drivers.records import next_seq  # noqa: E402
from hil.dealer import deal_shoes  # noqa: E402
from shoe_daemon.display import TableDisplay  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402
from shoe_daemon.service.table import Table  # noqa: E402


def frames(messages: list[Message]) -> list[Frame]:
    out, seq = [], 0
    for message in messages:
        if isinstance(message, Hello):
            seq = 0
        out.append(Frame(seq, message, encode(seq, message)))
        seq = next_seq(seq)
    return out


def play(profile: str, dealt: list[Frame], batch: int, display: bool) -> tuple[float, int]:
    """CPU seconds of the table's thread for the whole session, and the states shown."""
    shown = [0]

    def sink(_: bytes) -> None:
        shown[0] += 1

    screen = TableDisplay("bench", sink) if display else None
    table = Table(get_profile(profile), None, io.StringIO(), screen)
    start = time.thread_time()
    for i in range(0, len(dealt), batch):
        for frame in dealt[i:i + batch]:
            table.frame_received(frame, "accepted")
        table.commit()
        table.acknowledged()
    return time.thread_time() - start, shown[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="eight-pack")
    parser.add_argument("--shoes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("machine:", machine_name(), "| load:", load())
    session = deal_shoes(args.profile, args.shoes, args.seed)
    dealt = frames(session.messages)
    coups = len(session.results)
    print(f"{args.shoes} {args.profile} shoes: {len(dealt)} frames, {coups} coups")
    for batch in (1, 8):
        bare = min(play(args.profile, dealt, batch, False)[0] for _ in range(args.repeat))
        runs = [play(args.profile, dealt, batch, True) for _ in range(args.repeat)]
        with_display, shown = min(runs)
        extra = with_display - bare
        print(f"batches of {batch}: table alone {bare / coups * 1e6:7.1f} us a coup; "
              f"with the display {with_display / coups * 1e6:7.1f} us a coup: the display "
              f"{extra / coups * 1e6:6.1f} us a coup, {extra / len(dealt) * 1e6:5.1f} us a "
              f"frame ({shown} states shown, {shown / coups:.1f} a coup)")


if __name__ == "__main__":
    main()
