"""Replay throughput: how many shoe frames a second the host pipeline gets through.

Builds a capture of whole shoes with the simulated croupier (`hil.dealer.deal_shoes`) and the
capture writer (`hil.capture.write_capture`, with some line faults), then times three stages
over the same bytes:

1. decode alone: `drivers.framing.FrameDecoder`;
2. decode + delivery: the same, each frame judged by `drivers.delivery.Receiver`;
3. the whole replay: `shoe_daemon.service.replay.replay_bytes` (decode, delivery, coup machine).

It checks that the replay's `coup.result` lines equal the croupier's ground truth and exits
non-zero if they do not. See bench/README.md.

    .venv/bin/python bench/replay_throughput.py [--shoes 100] [--profile baden]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

from drivers.delivery import Receiver
from drivers.framing import FrameDecoder
from hil.capture import Faults, clean_capture, save_capture, write_capture
from hil.dealer import deal_shoes
from shoe_daemon.game.houses import PROFILES
from shoe_daemon.service.replay import CHUNK, TrustedKeys, replay_bytes

GOAL_FRAMES_PER_S = 25_000


def decode_only(data: bytes) -> int:
    decoder = FrameDecoder()
    frames = 0
    for start in range(0, len(data), CHUNK):
        frames += len(decoder.feed(data[start : start + CHUNK]))
    return frames


def decode_and_deliver(data: bytes) -> int:
    decoder = FrameDecoder()
    receive = Receiver().receive
    accepted = []
    for start in range(0, len(data), CHUNK):
        for frame in decoder.feed(data[start : start + CHUNK]):
            if receive(frame).accepted:
                accepted.append(frame.message)
    return len(accepted)


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    for key in ("model name", "Model", "Hardware", "cpu model"):
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.strip() == key and value.strip():
                return value.strip()
    return "unknown"


def machine() -> str:
    return (
        f"machine: {platform.machine()} (processor: {platform.processor() or '-'}), "
        f"CPU: {cpu_model()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()} ({platform.python_implementation()}) "
        f"on {platform.system()} {platform.release()}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shoes", type=int, default=100, help="whole shoes to deal (100)")
    parser.add_argument("--profile", default="baden", choices=sorted(PROFILES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", type=float, default=0.02,
                        help="probability per frame of each fault kind (0.02)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per stage (3)")
    parser.add_argument("--save", type=Path, help="also write the capture to this file")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    session = deal_shoes(args.profile, args.shoes, args.seed)
    data = write_capture(session.messages, Faults.all(args.faults), seed=args.seed)
    built = time.perf_counter() - t0
    if args.save:
        save_capture(args.save, data)

    print(machine())
    print(
        f"capture: {args.shoes} shoes of {args.profile} (seed {args.seed}), "
        f"{len(session.results)} coups, {len(session.messages)} messages, "
        f"{len(data)} bytes, faults {args.faults} each kind; built in {built:.2f} s"
    )

    decode_s, frames = best_of(args.repeat, lambda: decode_only(data))
    deliver_s, accepted = best_of(args.repeat, lambda: decode_and_deliver(data))
    keys = TrustedKeys()  # the simulated shoe's KEYs are a supervisor's by the dealer's word
    replay_s, outcome = best_of(args.repeat, lambda: replay_bytes(data, args.profile, keys=keys))
    assert isinstance(frames, int) and isinstance(accepted, int)
    print(f"frames on the wire (decoded): {frames}; accepted in order: {accepted}; "
          f"mean {len(data) / frames:.1f} bytes per frame")
    print(f"{'stage':<36}{'frames':>9}{'seconds':>10}{'frames/s':>12}")
    for stage, seconds in (
        ("decode", decode_s),
        ("decode + delivery", deliver_s),
        ("decode + delivery + coup machine", replay_s),
    ):
        print(f"{stage:<36}{frames:>9}{seconds:>10.3f}{frames / seconds:>12,.0f}")

    rate = frames / replay_s
    verdict = "meets" if rate >= GOAL_FRAMES_PER_S else "MISSES"
    print(f"goal {GOAL_FRAMES_PER_S:,} frames/s through the whole pipeline: {verdict} "
          f"({rate / GOAL_FRAMES_PER_S:.1f}x)")
    frame_bytes = len(clean_capture(session.messages)) / len(session.messages)
    for baud in (115_200, 921_600):  # 10 bits a byte on the line (8N1)
        print(f"  for scale: a clean {baud} baud line carries about "
              f"{baud / 10 / frame_bytes:,.0f} frames/s of these ({frame_bytes:.1f} bytes each)")

    failures = []
    if accepted != len(session.messages):
        failures.append(f"delivery took {accepted} frames, the shoe sent {len(session.messages)}")
    lines = outcome.lines  # type: ignore[union-attr]
    got = [line for line in lines if line["event"] == "coup.result"]
    if got != session.results:
        first = next((i for i, (a, b) in enumerate(zip(got, session.results, strict=False))
                      if a != b), min(len(got), len(session.results)))
        failures.append(f"coup.result lines differ from the ground truth: {len(got)} lines vs "
                        f"{len(session.results)} coups, first difference at coup index {first}")
    others = len(lines) - len(got)
    if failures:
        for failure in failures:
            print("FAIL:", failure)
        return 1
    print(f"replay agrees with the ground truth: {len(got)} coup.result lines identical "
          f"({others} other lines: irregularities such as SHORT_LAST_COUP)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
