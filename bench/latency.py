"""Latency from a coup's deciding frame to its line in the results file, through the real
daemon process over a real pty.

The bench plays the shoe: it writes dealt shoes frame by frame into a pty and notes the
time right after the last byte of each deciding frame is written. The daemon commits the
frame and its result to the audit ledger (synchronous=FULL), appends the line to its results
file, then logs `coup.result` to stderr, a pipe the bench reads: each result is timestamped
the moment that log line arrives, so the ledger's commit is inside the figure. Two
paces: a croupier's (frames well apart, so each is handled alone) and line rate (frames as
fast as the baud rate carries them: any backlog would show as latency growing along the run).

    .venv/bin/python bench/latency.py [--coups 300] [--gap 0.02] [--baud 115200]
    .venv/bin/python bench/latency.py --console [--rounds 3]
    .venv/bin/python bench/latency.py --money [--rounds 3]

With `--sse-clients N` (50 by default) the table display has N screens watching it
(Server-Sent Events clients in a process of their own, `bench/sse_swarm.py`), as issue 13
asks: the results line must not wait for the screens.

`--console` measures what the croupier's console costs the deciding frame when nobody acts
on it: rounds of the croupier's pace alternating the daemon without the console, with it
idle (listening, no client), and with it watched (a signed-in page's event stream open).

`--money` measures what the table's money costs the deciding frame (its settlement, the bank
after it, their records in the frame's own transaction): rounds of the croupier's pace
alternating the console without the money, and with the money (`[money]`) and stakes
placed on every coup through the console's API before its DEAL (a bank put up, three
punters' stakes), as a croupier enters them.

`--odds` measures what the pit's odds and integrity monitor (issue 14) costs it: rounds
alternating `--odds off` and `--odds on`, at the croupier's pace and at line rate (where the
monitor has a coup's odds to compute after every few frames).

    .venv/bin/python bench/latency.py --odds --profile baden-punto-banco [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sse_swarm import Swarm  # noqa: E402
from drivers.framing import encode  # noqa: E402
from drivers.messages import Button, Hello, Message  # noqa: E402
from drivers.records import next_seq  # noqa: E402
from hil.dealer import deal_shoes  # noqa: E402
from shoe_daemon.audit import keys  # noqa: E402
from shoe_daemon.game.coup import CoupMachine  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402


def deciding_indexes(messages: list[Message], profile: str) -> list[int]:
    """Which messages make the machine publish a coup.result (the deciding frames)."""
    machine = CoupMachine(get_profile(profile))
    out = []
    for i, m in enumerate(messages):
        decided = sum(1 for e in machine.handle(m) if e["event"] == "coup.result")
        out += [i] * decided
    return out


def machine_name() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()}, {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def load() -> str:
    """The load averages now: the machine is shared, so every figure says what else ran."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def dealt(profile: str, coups: int, seed: int) -> tuple[list[Message], list[int]]:
    """Dealt shoes cut after the `coups`-th deciding frame, and the deciding frames' indexes."""
    session = deal_shoes(profile, shoes=max(1, coups // 60 + 1), seed=seed)
    messages: list[Message] = session.messages
    decide = deciding_indexes(messages, profile)[:coups]
    return messages[: decide[-1] + 1], decide


def start_table(work: Path, profile: str, stderr: Any,
                extra: tuple[str, ...] = ()) -> tuple[int, int, subprocess.Popen]:
    """A pty standing for the shoe, and the real daemon on it (its display on a free port);
    `extra`: more of the daemon's flags (bench/floor.py gives it a `[floor]` file)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    (work / "shoe").symlink_to(os.ttyname(slave))
    daemon = subprocess.Popen(
        [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", profile,
         "--port", str(work / "shoe"), "--state-dir", str(work / "state"),
         "--results", str(work / "results.jsonl"), "--log-format", "json",
         "--http", "127.0.0.1:0", *extra],
        cwd=ROOT, stderr=stderr,
    )
    return master, slave, daemon


def watch_console(url: str, stop: threading.Event) -> None:
    """A console page that only watches: signed in, its event stream open and read."""
    host, port = url.split("//")[1].strip("/").rsplit(":", 1)
    origin = f"http://{host}:{port}"
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps({"id": str(uuid.uuid4()), "method": "pin", "person": "bench",
                       "pin": "2468"})
    conn.request("POST", "/api/sign-in", body=body, headers={
        "Content-Type": "application/json", "Origin": origin})
    response = conn.getresponse()
    response.read()
    cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
    conn.request("GET", "/api/events", headers={"Cookie": cookie})
    stream = conn.getresponse()
    while not stop.is_set() and stream.readline():
        pass
    conn.close()


def bench_people(state: Path) -> None:
    """One croupier, so that a page can sign in."""
    from shoe_daemon.console.people import Person, Role, people_paths

    state.mkdir(parents=True, exist_ok=True)
    file = people_paths(state)
    roster = file.load(create_key=True).with_person(Person("bench", "Bench", Role.CROUPIER))
    file.save(roster.pin_for("bench", "2468"))


class BenchCroupier:
    """Enters the money through the console's API as a croupier does: seats, a bank, then
    three punters' stakes before each DEAL (the bench waits for each answer: it is not
    timed)."""

    def __init__(self, url: str) -> None:
        host, port = url.split("//")[1].strip("/").rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.origin = f"http://{host}:{port}"
        self.cookie = ""
        self.refused = 0
        self.placed = 0
        self.why: Counter[str] = Counter()
        answer = self.post("/api/sign-in", {"method": "pin", "person": "bench", "pin": "2468"})
        assert "me" in answer, answer
        for seat in range(1, 8):
            self.act("sit", seat=str(seat))

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"Content-Type": "application/json", "Origin": self.origin}
        if self.cookie:
            headers["Cookie"] = self.cookie
        conn.request("POST", path, body=json.dumps({"id": str(uuid.uuid4()), **body}),
                     headers=headers)
        response = conn.getresponse()
        data = json.loads(response.read() or b"{}")
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";")[0]
        conn.close()
        return data

    def act(self, kind: str, **args: str) -> bool:
        answer = self.post("/api/actions", {"kind": kind, "args": args})
        if "ok" not in answer:
            self.refused += 1
            self.why[answer.get("code", answer.get("error", "?"))] += 1
        return "ok" in answer

    def money(self) -> dict[str, Any]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        conn.request("GET", "/api/state", headers={"Cookie": self.cookie})
        state = json.loads(conn.getresponse().read())
        conn.close()
        return state["console"]["money"]

    def before_deal(self) -> None:
        """The bank put up by the player in turn when it is vacant, then three punters'
        stakes (never the banker's own)."""
        money = self.money()
        if money["bank"]["phase"] == "vacant":
            self.act("take_bank", who=f"seat {money['turn']}", amount="100000")
            money = self.money()
        banker = money["bank"]["holder"]
        stakers = [who for who in money.get("prime", []) if who != banker][:3]
        for who in stakers:
            self.placed += self.act("stake", who=who, amount=str(10 + 5 * (self.placed % 17)))


def run(profile: str, coups: int, gap: float, baud: int | None, seed: int,
        extra: tuple[str, ...] = (), watch: bool = False, sse_clients: int = 0,
        keyed: Callable[[Path], None] | None = None, money: bool = False) -> list[float]:
    """`keyed(state_dir)` is told the table's state directory once its signing key is made
    (as the install makes it): bench/floor.py lodges it at the pit; `money`: stakes on every
    coup through the console's API."""
    messages, decide = dealt(profile, coups, seed)
    with tempfile.TemporaryDirectory(prefix="shoe-bench-") as tmp:
        work = Path(tmp)
        keys.keygen(work / "state")
        if keyed is not None:
            keyed(work / "state")
        if "--console" in extra:
            bench_people(work / "state")
        if money:
            (work / "money.toml").write_text(MONEY[profile])
            extra = (*extra, "--config", str(work / "money.toml"))
        croupier: list[BenchCroupier] = []
        stop_watching = threading.Event()
        master, slave, daemon = start_table(work, profile, subprocess.PIPE, extra)
        assert daemon.stderr is not None
        log_fd = daemon.stderr.fileno()  # `coup.result` is logged right after the file write
        os.set_blocking(log_fd, False)
        buf = b""
        arrivals: list[float] = []
        tail: list[bytes] = []  # the daemon's last log lines, to say why if results stop
        display: list[str] = []  # the display's URL, once the daemon says it
        swarm: Swarm | None = None

        def drain(wait: float) -> None:
            nonlocal buf
            ready, _, _ = select.select([log_fd, master], [], [], wait)
            now = time.perf_counter()
            if master in ready:
                os.read(master, 65536)  # ACKs and LAMPs: keep the pty from filling
            if log_fd in ready:
                buf += os.read(log_fd, 65536)
                *lines, buf = buf.split(b"\n")
                arrivals.extend(now for line in lines if b'"event": "coup.result"' in line)
                tail[:] = (tail + lines)[-20:] if arrivals else (tail + lines)[-200:]
                for line in lines:
                    if b'"display.listening"' in line:
                        display.append(json.loads(line)["url"])
                    if watch and b'"console.listening"' in line:
                        url = json.loads(line)["url"]
                        threading.Thread(target=watch_console, args=(url, stop_watching),
                                         daemon=True).start()
                    if money and b'"console.listening"' in line:
                        croupier.append(BenchCroupier(json.loads(line)["url"]))

        try:
            # Write nothing before the daemon has opened the port: opening it flushes what
            # waits there, and a game begun mid-stream is another game (a loaded machine
            # can take seconds to start a daemon).
            started = time.perf_counter()
            while not any(b'"shoe.connected"' in line for line in tail):
                if time.perf_counter() - started > 60:
                    raise SystemExit("the daemon did not open the shoe's port within 60 s")
                drain(0.1)
            if sse_clients:
                while not display:
                    drain(0.1)
                swarm = Swarm(display[0], sse_clients)
                swarm.start()
            arrivals.clear()
            written: list[float] = []
            seconds_per_byte = 10.0 / baud if baud else 0.0
            seq = 0
            line_free = time.perf_counter()
            for i, message in enumerate(messages):
                if isinstance(message, Hello):
                    seq = 0
                if croupier and isinstance(message, Button) and message.name == "DEAL":
                    drain(0)
                    croupier[0].before_deal()  # not timed: the deciding frame comes later
                frame = encode(seq, message)
                seq = next_seq(seq)
                if seconds_per_byte:  # the line carries the frame no faster than its baud
                    line_free = max(line_free, time.perf_counter()) + len(frame) * seconds_per_byte
                    while time.perf_counter() < line_free:
                        drain(max(0.0, line_free - time.perf_counter()))
                os.write(master, frame)
                t = time.perf_counter()
                written += [t] * decide.count(i) if i in decide else []
                if gap:
                    end = t + gap
                    while time.perf_counter() < end:
                        drain(max(0.0, end - time.perf_counter()))
                else:
                    drain(0)
            deadline = time.perf_counter() + 10  # 10 s without a result: it is not coming
            while len(arrivals) < len(written) and time.perf_counter() < deadline:
                got = len(arrivals)
                drain(0.1)
                if len(arrivals) > got:
                    deadline = time.perf_counter() + 10
        finally:
            stop_watching.set()
            if swarm is not None:
                events = swarm.events.value
                swarm.stop()
                print(f"  {sse_clients} SSE clients got {events} state events "
                      f"({events / sse_clients:.0f} each)")
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(10)
            os.close(master)
            os.close(slave)
    if len(arrivals) != len(written):
        said = b"\n".join(tail).decode(errors="replace")
        raise SystemExit(f"only {len(arrivals)} of {len(written)} results arrived; the daemon "
                         f"said last:\n{said}")
    if croupier:
        print(f"  stakes placed {croupier[0].placed}, requests refused {croupier[0].refused} "
              f"{dict(croupier[0].why)}")
    return [(a - w) * 1000 for a, w in zip(arrivals, written, strict=True)]


#: The `[money]` each profile's bench table plays with (the figures its seed leaves open).
MONEY = {"baden": '[money]\nmin_bank = 100\nmin_stake = 10\n',
         "zoppot-1934": '[money]\ncommission_percent = 5\n'}


def report(name: str, ms: list[float]) -> dict[str, float]:
    q = statistics.quantiles(ms, n=100, method="inclusive")  # a p99 never beyond the max
    half = len(ms) // 2
    figures = {"n": len(ms), "p50_ms": round(q[49], 3), "p99_ms": round(q[98], 3),
               "max_ms": round(max(ms), 3),
               "p50_first_half_ms": round(statistics.median(ms[:half]), 3),
               "p50_second_half_ms": round(statistics.median(ms[half:]), 3)}
    print(f"{name:28} " + json.dumps(figures))
    return figures


def rounds(args: argparse.Namespace, variants: dict[str, tuple[tuple[str, ...], bool]],
           baud: int | None = None) -> None:
    """`args.rounds` rounds of each variant in turn (the machine's load shared alike); each
    variant's median of the rounds' p50 and p99."""
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    gap = 0 if baud else args.gap
    for n in range(args.rounds):
        for name, (extra, watch) in variants.items():
            ms = run(args.profile, args.coups, gap, baud, args.seed + n, extra, watch)
            figures[name].append(report(f"{name} (seed {args.seed + n})", ms))
    for name, got in figures.items():
        p50 = [f["p50_ms"] for f in got]
        p99 = [f["p99_ms"] for f in got]
        print(f"{name:28} median of the rounds' p50: {statistics.median(p50):.3f} ms "
              f"({', '.join(f'{v:.3f}' for v in p50)}); p99: {statistics.median(p99):.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="baden")
    parser.add_argument("--coups", type=int, default=300)
    parser.add_argument("--gap", type=float, default=0.02,
                        help="seconds between frames at a croupier's pace")
    parser.add_argument("--baud", type=int, default=115200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--console", action="store_true",
                        help="compare the croupier's pace without the console, with it idle, "
                             "and with a page watching it")
    parser.add_argument("--money", action="store_true",
                        help="compare the croupier's pace with the console without the money, "
                             "and with the money and stakes on every coup")
    parser.add_argument("--odds", action="store_true",
                        help="compare the daemon with the pit's odds monitor off and on")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sse-clients", type=int, default=50,
                        help="screens watching the display (0: none)")
    args = parser.parse_args()
    print("machine:", machine_name(), "| load:", load())
    if args.money:
        console = ("--console", "127.0.0.1:0")
        money_variants = {"console, no money": False, "money, stakes every coup": True}
        medians = {name: [] for name in money_variants}
        for n in range(args.rounds):
            for name, money in money_variants.items():
                ms = run(args.profile, args.coups, args.gap, None, args.seed + n, console,
                         money=money)
                medians[name].append(report(f"{name} (seed {args.seed + n})", ms)["p50_ms"])
        for name, values in medians.items():
            print(f"{name:28} median of the rounds' p50: {statistics.median(values):.3f} ms "
                  f"({', '.join(f'{v:.3f}' for v in values)})")
        added = statistics.median(medians["money, stakes every coup"]) - statistics.median(
            medians["console, no money"])
        print(f"the money adds {added:.3f} ms at the median (budget 0.5 ms)")
        print("load:", load())
        return
    if args.console:
        console = ("--console", "127.0.0.1:0")
        rounds(args, {"without the console": ((), False), "console idle": (console, False),
                      "console watched": (console, True)})
        return
    if args.odds:
        off, on = ("--odds", "off"), ("--odds", "on")
        rounds(args, {"odds off": (off, False), "odds on": (on, False)})
        rounds(args, {"odds off, line rate": (off, False), "odds on, line rate": (on, False)},
               baud=args.baud)
        return
    n = args.sse_clients
    report("croupier pace", run(args.profile, args.coups, args.gap, None, args.seed,
                                sse_clients=n))
    report(f"line rate {args.baud} baud", run(args.profile, args.coups, 0, args.baud, args.seed,
                                               sse_clients=n))
    report("line rate 921600 baud", run(args.profile, args.coups, 0, 921600, args.seed,
                                        sse_clients=n))


if __name__ == "__main__":
    main()
