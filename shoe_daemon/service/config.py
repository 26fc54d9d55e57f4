"""The daemon's settings: a TOML file (`--config`), every setting also a flag.

One table of settings drives both the file's keys and the command-line flags, so the two
can never drift apart; a bad value is refused at start with a message naming the setting.
The file's tables are the exceptions, in the file only: `[floor]` (the link to the floor's
broker, docs/floor.md; without it there is no link) and `[money]` (the table's limits,
docs/money.md "Limits"; without it the table's money is not kept, and it needs the console,
where the money is entered).
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from drivers.transport import names as transport_names
from shoe_daemon.console.throttle import is_loopback
from shoe_daemon.display.words import LANGUAGES, TERMS
from shoe_daemon.floor.config import FloorConfig, FloorConfigError, parse_floor
from shoe_daemon.game.houses import PROFILES


class ConfigError(ValueError):
    """A setting is missing or wrong; the message names it."""


@dataclass(frozen=True)
class Setting:
    name: str  # the TOML key; the flag is --name with _ as -
    kind: type
    default: Any
    help: str
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] | None = None

    def allowed(self) -> tuple[str, ...] | None:
        """The values allowed; a callable is asked each time (the transports registered now)."""
        return self.choices() if callable(self.choices) else self.choices


def _int(text: Any) -> int:
    """Integers may be written 0x1209 in a file or on the command line (USB ids)."""
    if isinstance(text, bool):
        raise ValueError("a boolean is not a number")
    return text if isinstance(text, int) else int(str(text), 0)


SETTINGS: tuple[Setting, ...] = (
    Setting("table", str, "table-1", "the table's name, bound to every log line"),
    Setting("profile", str, None, "house rules profile", tuple(sorted(PROFILES))),
    Setting("transport", str, "serial", "how the shoe is attached", transport_names),
    Setting("port", str, "/dev/shoe", "serial device of the shoe"),
    Setting("baud", int, 115200, "serial line rate, 9600 to 921600"),
    Setting("usb_vendor", int, 0x1209, "USB vendor id of the shoe's vendor interface"),
    Setting("usb_product", int, 0x5348, "USB product id"),
    Setting("usb_serial", str, "", "USB serial number to pick one of several shoes"),
    Setting("usb_interface", int, 0, "USB interface number"),
    Setting("usb_endpoint_in", int, 0x81, "bulk IN endpoint (shoe to host)"),
    Setting("usb_endpoint_out", int, 0x01, "bulk OUT endpoint (host to shoe)"),
    Setting("usb_backend", str, "", "module:callable returning a pyusb backend (tests)"),
    Setting("state_dir", Path, None, "directory for the daemon's state and captures"),
    Setting("results", str, None, "file each validated result is appended to; - for stdout"),
    Setting("reconnect_min", float, 0.1, "first wait in seconds before reopening a lost shoe"),
    Setting("reconnect_max", float, 5.0, "longest wait in seconds between reopen attempts"),
    Setting("retention_days", int, 0, "days the ledger keeps exported records before "
            "`audit prune` may remove them; 0 keeps them for ever"),
    Setting("log_format", str, "auto", "log lines: json, console, journal, or auto", (
        "auto", "json", "console", "journal")),
    Setting("http", str, "127.0.0.1:8080", "HOST:PORT the table display is served on "
            "(port 0: any free port; off: no display)"),
    Setting("display_language", str, "en", "the table display's language", LANGUAGES),
    Setting("display_terms", str, "french", "the game's terms on the display (Banco, Punto, "
            "Égalité, Carte, Reste): french in every language, or the language's own", TERMS),
    Setting("console", str, "off", "HOST:PORT the croupier's console is served on, never the "
            "display's (off: no console; off loopback it needs console_cert and console_key)"),
    Setting("console_cert", str, "", "the console's TLS certificate chain (PEM)"),
    Setting("console_key", str, "", "the console's TLS private key (PEM)"),
    Setting("people", str, "", "the people file: who may sign in at the console and whose "
            "badge KEY takes (default STATE_DIR/people.json; `shoe-daemon people`)"),
    Setting("console_idle", int, 900, "seconds without a request before a console session "
            "ends (signed out)"),
    Setting("console_session", int, 43200, "the longest a console session lasts, in seconds"),
    Setting("console_admit", float, 10.0, "seconds the table's loop has to take a console "
            "action; one it has not taken by then is not done, and the answer says so"),
    Setting("console_answer", float, 30.0, "seconds a console request waits for the outcome "
            "of an action the table took; then it is answered as still being done, and the "
            "retry with the same request id gets the outcome"),
    Setting("console_screens", str, "127.0.0.1, ::1", "the addresses of the table's own "
            "console screens, comma-separated: only they get the staff's name tiles, and a "
            "guesser elsewhere never delays a PIN there (docs/console.md)"),
    Setting("odds", str, "on", "the pit's odds and integrity monitor: the live shoe's exact "
            "odds after every coup, and each shoe's inventory and shuffle and outcome tests at "
            "its end, as ledger records and on the status line (docs/odds.md)",
            ("on", "off")),
)
_BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Config:
    table: str
    profile: str
    transport: str
    port: str
    baud: int
    usb_vendor: int
    usb_product: int
    usb_serial: str
    usb_interface: int
    usb_endpoint_in: int
    usb_endpoint_out: int
    usb_backend: str
    state_dir: Path
    results: str
    reconnect_min: float
    reconnect_max: float
    retention_days: int
    log_format: str
    http: str
    display_language: str = "en"
    display_terms: str = "french"
    console: str = "off"
    console_cert: str = ""
    console_key: str = ""
    people: str = ""
    console_idle: int = 900
    console_session: int = 43200
    console_admit: float = 10.0
    console_answer: float = 30.0
    console_screens: str = "127.0.0.1, ::1"
    odds: str = "on"
    floor: FloorConfig | None = None  # the file's [floor] table; None: no link
    money: dict[str, Any] | None = None  # the file's [money] table; None: no money kept

    def as_dict(self) -> dict[str, Any]:
        """The settings as recorded in the ledger at each start: the floor's without its
        password."""
        out = {f.name: str(v) if isinstance(v := getattr(self, f.name), Path) else v
               for f in fields(self) if f.name not in ("floor", "money")}
        out["floor"] = None if self.floor is None else floor_summary(self.floor)
        if self.money is not None:
            out["money"] = dict(self.money)
        return out


def floor_summary(floor: FloorConfig) -> dict[str, Any]:
    """The floor settings a person may read (the ledger, check-config): never the secret."""
    return {"broker": floor.url, "username": floor.username, "ca_file": str(floor.ca_file),
            "topic_prefix": floor.topic_prefix,
            "cert_file": None if floor.cert_file is None else str(floor.cert_file),
            "keepalive": floor.keepalive, "session_expiry": floor.session_expiry}


HTTP_OFF = ("", "off")


def http_address(value: str, setting: str = "http") -> tuple[str, int] | None:
    """`HOST:PORT` (`[v6]:PORT` too) as (host, port); None when it is off."""
    if value.strip().lower() in HTTP_OFF:
        return None
    host, sep, port = value.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"setting {setting!r}: {value!r} is not HOST:PORT with a port of 0 "
                          "to 65535 (or off)")
    return host, int(port)


def console_address(c: Config) -> tuple[str, int] | None:
    """Where the croupier's console listens; None when it is off."""
    return http_address(c.console, "console")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="TOML file of settings")
    for s in SETTINGS:
        parser.add_argument(
            "--" + s.name.replace("_", "-"),
            dest=s.name,
            default=None,
            metavar=s.name.upper(),
            help=s.help + (f" ({', '.join(allowed)})" if (allowed := s.allowed()) else "")
            + (f" [default {s.default}]" if s.default not in (None, "") else ""),
        )


def _convert(setting: Setting, value: Any) -> Any:
    try:
        if setting.kind is int:
            value = _int(value)
        elif setting.kind is float:
            if isinstance(value, bool):
                raise ValueError("a boolean is not a number")
            value = float(value)
        elif setting.kind is Path:
            value = Path(str(value))
        else:
            if not isinstance(value, str):
                raise ValueError(f"expected text, got {type(value).__name__}")
    except ValueError as e:
        raise ConfigError(f"setting {setting.name!r}: {value!r} is not a valid "
                          f"{setting.kind.__name__}: {e}") from None
    allowed = setting.allowed()
    if allowed and value not in allowed:
        raise ConfigError(f"setting {setting.name!r}: {value!r} is not one of "
                          f"{', '.join(allowed)}")
    return value


def load(args: argparse.Namespace) -> Config:
    """Settings from the file, overridden by flags, checked; ConfigError names the setting."""
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    floor: FloorConfig | None = None
    money: dict[str, Any] | None = None
    path: Path | None = getattr(args, "config", None)
    if path is not None:
        try:
            data = tomllib.loads(path.read_text())
        except OSError as e:
            raise ConfigError(f"--config {path}: {e.strerror or e}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"--config {path}: not valid TOML: {e}") from None
        try:
            floor = parse_floor(data.pop("floor", None), path.parent)
        except FloorConfigError as e:
            raise ConfigError(f"setting {e}") from None
        money = data.pop("money", None)
        if money is not None and not isinstance(money, dict):
            raise ConfigError("setting 'money': must be a table ([money])")
        for key, value in data.items():
            if key not in _BY_NAME:
                raise ConfigError(f"--config {path}: unknown setting {key!r}")
            values[key] = _convert(_BY_NAME[key], value)
    for s in SETTINGS:
        flag = getattr(args, s.name, None)
        if flag is not None:
            values[s.name] = _convert(s, flag)
    missing = [s.name for s in SETTINGS if values[s.name] is None]
    if missing:
        names = ", ".join(f"{name!r} (--{name.replace('_', '-')})" for name in missing)
        raise ConfigError(f"setting{'s' if len(missing) > 1 else ''} {names} "
                          f"{'are' if len(missing) > 1 else 'is'} required: give "
                          f"{'each' if len(missing) > 1 else 'it'} as a flag or in the "
                          "--config file")
    config = Config(**values, floor=floor, money=money)
    try:
        _check(config)
    except OSError as e:  # a directory on the way that this user may not enter
        raise ConfigError(failed_start(e, config)) from None
    return config


def cannot_write(path: Path) -> str | None:
    """Why the daemon could not create or write `path` (None if it can), in words."""
    probe = path
    try:
        probe.exists()
    except OSError as e:
        return f"{path}: {e.strerror or e} (uid {os.geteuid()})"
    while not probe.exists():
        if probe.parent == probe:
            return f"{path}: no existing parent"
        probe = probe.parent
    if probe == path and path.is_file():
        return None if os.access(path, os.W_OK) else \
            f"{path} is not writable by uid {os.geteuid()}"
    if not probe.is_dir():
        return f"{probe} is not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} is not writable by uid {os.geteuid()}"
    return None


def unusable(c: Config) -> str | None:
    """The first setting naming a place the daemon cannot write (its state directory, its
    results file), with why; checked before anything is served."""
    why = cannot_write(c.state_dir)
    if why:
        return f"setting 'state_dir': {why}"
    if c.results != "-":
        why = cannot_write(Path(c.results))
        if why:
            return f"setting 'results': {why}"
    return None


def failed_start(error: OSError, c: Config) -> str:
    """An OSError met at start in words, with the setting whose file it names."""
    name = Path(str(error.filename)) if error.filename else None
    why = error.strerror or str(error)
    if name is None:
        return f"cannot start: {why}"
    if c.results != "-" and name == Path(c.results):
        return f"setting 'results': {name}: {why}"
    if name.is_relative_to(c.state_dir):
        return f"setting 'state_dir': {name}: {why}"
    return f"{name}: {why}"


def _check(c: Config) -> None:
    if not 9600 <= c.baud <= 921600:
        raise ConfigError(f"setting 'baud': {c.baud} is outside 9600 to 921600")
    for name in ("usb_vendor", "usb_product"):
        if not 0 <= getattr(c, name) <= 0xFFFF:
            raise ConfigError(f"setting {name!r}: {getattr(c, name)} is not a 16-bit USB id")
    if not 0 < c.reconnect_min <= c.reconnect_max:
        raise ConfigError("settings 'reconnect_min' and 'reconnect_max': need "
                          "0 < reconnect_min <= reconnect_max")
    if c.retention_days < 0:
        raise ConfigError(f"setting 'retention_days': {c.retention_days} is negative")
    if c.state_dir.exists() and not c.state_dir.is_dir():
        raise ConfigError(f"setting 'state_dir': {c.state_dir} is not a directory")
    if c.usb_backend and ":" not in c.usb_backend:
        raise ConfigError("setting 'usb_backend': expected module:callable")
    http_address(c.http)
    _check_console(c)
    _check_money(c)
    if c.results != "-" and Path(c.results).exists() and not Path(c.results).is_file():
        raise ConfigError(f"setting 'results': {c.results} is not a regular file (the daemon "
                          "completes it from the audit ledger at start; use - for stdout)")


def _check_money(c: Config) -> None:
    """The `[money]` table against the house's money rules (the seed's figures, what it
    leaves to the table); the money is entered on the console, so it needs one."""
    if c.money is None:
        return
    from shoe_daemon.money.houses import get_money_profile
    from shoe_daemon.money.limits import LimitsError, table_limits

    try:
        table_limits(get_money_profile(c.profile), c.money)
    except LimitsError as e:
        raise ConfigError(f"setting {e}") from None
    if console_address(c) is None:
        raise ConfigError("setting 'money': the table's money is entered on the croupier's "
                          "console: set console too (or remove [money])")


def console_screens(c: Config) -> frozenset[str]:
    """The table's own screens' addresses; ConfigError naming one that is not an address."""
    from shoe_daemon.console.throttle import screen_set

    try:
        return screen_set(a for a in c.console_screens.split(",") if a.strip())
    except ValueError as e:
        raise ConfigError(f"setting 'console_screens': {e}") from None


def _check_console(c: Config) -> None:
    """The console's settings: its own listener, TLS off loopback, sane session lengths."""
    address = console_address(c)
    if address is None:
        return
    console_screens(c)
    display = http_address(c.http)
    if display is not None and display[1] != 0 and display == address:
        raise ConfigError(f"setting 'console': {c.console} is the display's address; the "
                          "console needs a listener of its own")
    if bool(c.console_cert) != bool(c.console_key):
        raise ConfigError("settings 'console_cert' and 'console_key': give both or neither")
    if not is_loopback(address[0]) and not c.console_cert:
        raise ConfigError(f"setting 'console': {address[0]} is not this machine alone, and PINs "
                          "would cross the network in clear: give console_cert and console_key "
                          "(TLS), or listen on 127.0.0.1")
    for name in ("console_cert", "console_key"):
        path = getattr(c, name)
        if path and not Path(path).is_file():
            raise ConfigError(f"setting {name!r}: {path} is not a file")
    if not 60 <= c.console_idle <= c.console_session:
        raise ConfigError("settings 'console_idle' and 'console_session': need 60 <= "
                          "console_idle <= console_session")
    if not 0 < c.console_admit <= c.console_answer <= 600:
        raise ConfigError("settings 'console_admit' and 'console_answer': need 0 < "
                          "console_admit <= console_answer <= 600")
