"""`shoe-daemon check-config`: load the settings exactly as `run` does, check what can be
checked without starting, and say in plain words what the service will do.

A technician runs it after editing `/etc/shoe-daemon/shoe-daemon.toml` and before
`systemctl restart`, as the service's user (`sudo -u shoe-daemon ...`) so that the
permission checks are the service's. Exit 0: the service can start (warnings may say the
shoe is not plugged in or no signing key exists yet); exit 2: a setting is wrong, and the
message names it, as `run` would refuse it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from shoe_daemon.audit import keys
from shoe_daemon.display.words import data
from shoe_daemon.game.houses import get_profile
from shoe_daemon.service import config


class Findings:
    """Lines to print, warnings, and the first error (which names its setting)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)


def _transport(c: config.Config, found: Findings) -> None:
    if c.transport == "serial":
        found.say(f"shoe: serial port {c.port} at {c.baud} baud, 8N1")
        port = Path(c.port)
        if not port.is_absolute():
            found.errors.append(f"setting 'port': {c.port} is not an absolute device path")
        elif not port.exists():
            found.warnings.append(f"setting 'port': {c.port} does not exist now (shoe unplugged, "
                                  "or the udev rule does not match its adapter); the service "
                                  "will start and wait for it")
        elif not port.is_char_device():
            found.errors.append(f"setting 'port': {c.port} is not a character device")
        elif not os.access(port, os.R_OK | os.W_OK):
            found.warnings.append(f"setting 'port': {c.port} is not readable and writable by "
                                  f"uid {os.geteuid()} (the udev rule's group or mode)")
    elif c.transport == "usb":
        serial = f", serial {c.usb_serial}" if c.usb_serial else " (first one found)"
        found.say(f"shoe: USB vendor interface {c.usb_vendor:04x}:{c.usb_product:04x}{serial}, "
                  f"interface {c.usb_interface}, endpoints IN 0x{c.usb_endpoint_in:02x} "
                  f"OUT 0x{c.usb_endpoint_out:02x}")
        if not 0x81 <= c.usb_endpoint_in <= 0x8F:
            found.errors.append(f"setting 'usb_endpoint_in': 0x{c.usb_endpoint_in:02x} is not an "
                                "IN endpoint address (0x81 to 0x8f)")
        if not 0x01 <= c.usb_endpoint_out <= 0x0F:
            found.errors.append(f"setting 'usb_endpoint_out': 0x{c.usb_endpoint_out:02x} is not "
                                "an OUT endpoint address (0x01 to 0x0f)")
        if c.usb_vendor == 0 or c.usb_product == 0:
            found.errors.append("settings 'usb_vendor' and 'usb_product': 0 is not a device id")
    elif c.transport == "loopback":
        found.say(f"shoe: in-process loopback line {c.port!r} (tests only: no shoe can reach it)")
    else:
        found.say(f"shoe: {c.transport} transport")


def _state(c: config.Config, found: Findings) -> None:
    found.say(f"state: {c.state_dir} (audit ledger ledger.sqlite3, raw captures under "
              "captures/, status.json)")
    why = config.cannot_write(c.state_dir)
    if why:
        found.errors.append(f"setting 'state_dir': {why}")
        return
    if c.results == "-":
        found.say("results: printed on standard output (the journal, under systemd)")
    else:
        found.say(f"results: one JSON line per validated result appended to {c.results}")
        why = config.cannot_write(Path(c.results))
        if why and not os.access(c.results, os.W_OK):
            found.errors.append(f"setting 'results': {why}")
    try:
        current = keys.load_current(c.state_dir) if c.state_dir.is_dir() else None
    except keys.KeyProblem as e:
        found.warnings.append(f"signing key: {e}")
        return
    if current is None:
        if c.floor is None:  # with [floor] it is an error, said by _floor
            found.warnings.append(f"signing key: none yet; run `shoe-daemon audit keygen "
                                  f"--state-dir {c.state_dir}` before the first export")
    else:
        found.say(f"signing key: {current.stem}, key id {current.key_id} (lodged with the "
                  "regulator?)")


def _floor(c: config.Config, found: Findings) -> None:
    """The floor link's settings, and its TLS context made as `run` makes it, so that a CA or
    client certificate the link could not use is an error now rather than at the start."""
    f = c.floor
    if f is None:
        found.say("floor: no [floor] table: the ledger stays at the table (no link)")
        return
    login = (f"client certificate {f.cert_file}" if f.cert_file and not f.password
             else "a password" + (f" and client certificate {f.cert_file}" if f.cert_file
                                  else ""))
    found.say(f"floor: every ledger record to {f.url} as {f.username!r} ({login}), topics "
              f"{f.topic_prefix}/{f.table}/..., TLS trusting {f.ca_file}")
    found.say(f"  keepalive {f.keepalive} s; the broker keeps the session {f.session_expiry} s; "
              "the link's cursor in state_dir/floor/acked")
    if f.username != c.table:
        found.warnings.append(f"setting floor.username: {f.username!r} is not the table's name "
                              f"{c.table!r}: the floor files this table's records under "
                              f"{f.username!r}, its screen and logs say {c.table!r}")
    from shoe_daemon.floor.config import FloorConfigError
    from shoe_daemon.floor.mqtt import tls_context
    from shoe_daemon.floor.signing import Signer

    try:
        tls_context(f)
    except FloorConfigError as e:
        found.errors.append(f"setting {e}")
    try:
        key_id = Signer(c.state_dir).key.key_id
    except FloorConfigError as e:
        found.errors.append(f"setting {e}")
    else:
        found.say(f"  each records message signed with the table's key id {key_id} (lodged "
                  f"at the pit? `shoe-floor lodge-key {f.table} FILE`)")


def _console(c: config.Config, found: Findings) -> None:
    """The croupier's console: where, TLS, sessions, and the people file as `run` loads it."""
    address = config.console_address(c)
    if address is None:
        found.say("console: off (no croupier's console; a shoe's KEY is decided against the "
                  "people file below)")
        _people(c, found)
        return
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    scheme, how = ("https", "TLS") if c.console_cert else ("http", "this machine only, no TLS")
    found.say(f"console: {scheme}://{shown}:{port}/ ({how}); a session ends after "
              f"{c.console_idle} s without a request, {c.console_session} s at most; an "
              f"action not taken by the table within {c.console_admit:g} s is not done, one "
              f"taken is answered within {c.console_answer:g} s or said still being done")
    found.say(f"console screens: {', '.join(sorted(config.console_screens(c)))} (only they "
              "show the staff's names; elsewhere a person types their id)")
    if c.console_cert:
        import ssl

        from shoe_daemon.console.server import tls_context

        try:
            tls_context(c.console_cert, c.console_key)
        except (OSError, ssl.SSLError) as e:
            found.errors.append(f"settings 'console_cert' and 'console_key': cannot serve TLS "
                                f"with them: {e}")
    _people(c, found)


def _people(c: config.Config, found: Findings) -> None:
    """The people file as `run` loads it: who signs in, whose badge a KEY takes."""
    from shoe_daemon.console.people import PeopleError, Role, people_paths

    people = people_paths(c.state_dir, c.people)
    if not people.path.exists():
        found.say(f"people: none yet in {people.path}")
        found.warnings.append("setting 'people': no supervisor is configured: nobody can sign "
                              "in at the console and no KEY badge is taken; add people with "
                              "`shoe-daemon people add`")
        return
    try:
        roster = people.load()
    except PeopleError as e:
        found.errors.append(f"setting 'people': {e}")
        return
    supervisors = sum(1 for p in roster.people if p.role is Role.SUPERVISOR)
    croupiers = len(roster.people) - supervisors
    found.say(f"people: {len(roster.people)} ({supervisors} supervisor"
              f"{'' if supervisors == 1 else 's'}, {croupiers} croupier"
              f"{'' if croupiers == 1 else 's'}) in {people.path}")
    if not supervisors:
        found.warnings.append("setting 'people': no supervisor is configured: nothing that "
                              "needs one (a void, a KEY) can be done")
    for person in roster.people:
        if person.pin is None and person.badge is None:
            found.warnings.append(f"setting 'people': {person.id} has neither PIN nor badge and "
                                  "cannot sign in")


def _money(c: config.Config, found: Findings) -> None:
    """The table's money: its limits as the money will use them, each from the seed or the
    configuration (`config.load` refused a bad one already)."""
    if c.money is None:
        found.say("money: not kept (no [money] table): the console takes no stakes")
        return
    from decimal import Decimal

    from shoe_daemon.money.display import format_money
    from shoe_daemon.money.houses import get_money_profile
    from shoe_daemon.money.limits import table_limits

    profile = get_money_profile(c.profile)
    limits = table_limits(profile, c.money)
    currency, locale = profile.currency.value, profile.locale.value

    def amount(value: Decimal | None) -> str:
        return "no limit" if value is None else format_money(value, currency, locale)

    given = sorted(c.money)
    found.say(f"money: kept in {currency.code} ({currency.name}), entered on the console; "
              f"[money] gives {', '.join(given) if given else 'nothing: the seed figures'}")
    found.say(f"  commission {limits.commission_percent} %, chip {amount(limits.chip)}, "
              f"stakes {amount(limits.min_stake)} to {amount(limits.max_stake)}")
    if profile.chemin_de_fer is not None:
        found.say(f"  bank {amount(limits.min_bank)} to {amount(limits.max_bank)}, "
                  f"{limits.places} places")
    else:
        found.say(f"  Swiss Nine bets {amount(limits.nine_min_stake)} to "
                  f"{amount(limits.nine_max_stake)}, {limits.places} boxes")
    found.say("  a supervisor may change the limits on the console; a change of this table "
              "applies at the next start (recorded as the configuration's)")


def check(settings: config.Config) -> Findings:
    """Everything `check-config` prints, from settings that `config.load` accepted."""
    found = Findings()
    c = settings
    p = get_profile(c.profile)
    found.say(f"table: {c.table}")
    found.say(f"profile: {p.name}: {p.house}, {p.game.value}, {p.packs} packs "
              f"(seed docs/seeds/{p.seed})")
    found.say(f"  packs: {p.packs_source}")
    found.say(f"  commission: {p.commission_source}")
    found.say(f"  cut card: {p.cut_source}")
    _transport(c, found)
    found.say(f"reopen a lost shoe after {c.reconnect_min} s, doubling up to "
              f"{c.reconnect_max} s")
    _state(c, found)
    if config.http_address(c.http) is None:
        found.say("display: off (no table display served)")
    else:
        found.say(f"display: HTTP on {c.http}")
        words = data()
        terms = ("the French game terms (Banco, Punto, Égalité, Carte, Reste)"
                 if c.display_terms == "french" else "the language's own game terms")
        found.say(f"  language: {words['languages'][c.display_language]} "
                  f"({c.display_language}), with {terms}")
    _console(c, found)
    _money(c, found)
    _floor(c, found)
    found.say(f"logs: {c.log_format} (journald's own fields when run by systemd)")
    return found


def run_check_config(args: argparse.Namespace) -> int:
    try:
        settings = config.load(args)
    except config.ConfigError as e:
        print(f"shoe-daemon check-config: {e}")
        return 2
    found = check(settings)
    print("\n".join(found.lines))
    for text in found.warnings:
        print(f"WARNING: {text}")
    for text in found.errors:
        print(f"ERROR: {text}")
    if found.errors:
        return 2
    print("configuration OK" + (f" ({len(found.warnings)} warning(s))" if found.warnings else ""))
    return 0
