#!/usr/bin/env bash
# Install shoe-daemon on Raspberry Pi OS (Bookworm, 64-bit) or Debian 12, from this checkout:
# packages, /opt/shoe-daemon/venv (binary wheels only: nothing is compiled on the Pi), the
# systemd unit, the sysusers.d user, the udev rules, /etc/shoe-daemon/shoe-daemon.toml (only if
# absent: an operator's configuration is never overwritten), the table's signing key (only if
# absent), and the service enabled and started when systemd runs. Safe to run again: that is
# also how an update is installed. docs/deployment.md is the technician's walk-through.
#
# --floor installs the pit's side instead, on the pit's machine (Debian 12, amd64 or arm64):
# shoe-floor with PostgreSQL's driver in /opt/shoe-floor/venv, its two units and its user,
# /etc/shoe-floor/floor.toml (only if absent), the broker's snippet and ACL in
# /opt/shoe-floor/mosquitto (put in place by hand once the broker has its certificate), and
# Debian's mosquitto and postgresql (not with --no-recommends: they run elsewhere). Its
# units are not enabled: they need floor.toml configured first (docs/deployment.md, "The
# floor"); once an operator has enabled them, running this again restarts them.
#
#   sudo systemd/install.sh [--adapter VID:PID:SERIAL] [--kiosk] [--no-apt] [--no-start]
#   sudo systemd/install.sh --floor [--no-recommends] [--no-apt] [--no-start]
#   systemd/install.sh --prefix DIR ...   # everything under DIR, paths inside files too, no
#                                         # user, no apt, no udev or systemd calls (CI, trials)
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX=""
ADAPTER="0403:6001:SHOE0001"   # an FTDI FT232R; give the table's own with --adapter
SHOE_USB="1209:5348"           # the shoe's USB vendor interface (docs/transports.md)
PYTHON="python3"
APT=1
START=1
KIOSK=0
FLOOR=0
RECOMMENDS=1
TABLE_ONLY=""                  # a table's option given, which --floor refuses

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="$(realpath -m "$2")"; shift 2 ;;
        --adapter) ADAPTER="$2"; TABLE_ONLY="$1"; shift 2 ;;
        --python) PYTHON="$2"; shift 2 ;;
        --no-apt) APT=0; shift ;;
        --no-start) START=0; shift ;;
        --kiosk) KIOSK=1; TABLE_ONLY="$1"; shift ;;
        --floor) FLOOR=1; shift ;;
        --no-recommends) RECOMMENDS=0; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'install: unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
if [ "$FLOOR" -eq 1 ]; then
    [ -z "$TABLE_ONLY" ] || die "$TABLE_ONLY is the table's option, not the floor's"
else
    IFS=: read -r AD_VENDOR AD_PRODUCT AD_SERIAL <<<"$ADAPTER"
    [[ "$AD_VENDOR" =~ ^[0-9a-f]{4}$ && "$AD_PRODUCT" =~ ^[0-9a-f]{4}$ && -n "$AD_SERIAL" ]] \
        || die "--adapter wants VID:PID:SERIAL in lower-case hex, e.g. 0403:6001:A10K2B3C"
    IFS=: read -r SHOE_VENDOR SHOE_PRODUCT <<<"$SHOE_USB"
fi

if [ -n "$PREFIX" ]; then
    APT=0
    START=0
else
    [ "$(id -u)" -eq 0 ] || die "run as root (sudo), or give --prefix DIR"
fi
UNITS="$PREFIX/etc/systemd/system"
USER_UNITS="$PREFIX/etc/systemd/user"
SYSUSERS="$PREFIX/etc/sysusers.d"
UDEV="$PREFIX/etc/udev/rules.d"
SYSTEMD_RUNS=0
[ "$START" -eq 1 ] && [ -d /run/systemd/system ] && SYSTEMD_RUNS=1

apt_install() {  # apt_install PACKAGE...
    say "apt packages: $*"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The virtual environment: pinned dependencies as binary wheels only (--only-binary), so an
# install that would need a compiler on the Pi fails here instead of half-working.
make_venv() {  # make_venv OPT EXTRAS: OPT/venv with this checkout's wheel[EXTRAS]
    local opt="$1" extras="$2" build wheel
    say "virtual environment in $opt/venv"
    mkdir -p "$opt"
    [ -x "$opt/venv/bin/python" ] || "$PYTHON" -m venv "$opt/venv"
    local pip=("$opt/venv/bin/python" -m pip --disable-pip-version-check --quiet)
    build="$(mktemp -d)"
    "${pip[@]}" wheel --no-deps --wheel-dir "$build" "$SRC" >/dev/null
    wheel="$(ls "$build"/shoe_daemon-*.whl)"
    "${pip[@]}" install --only-binary=:all: "$wheel$extras"
    "${pip[@]}" install --no-deps --force-reinstall "$wheel"
    rm -rf "$build"
}

# Files that name the standard paths get them moved under --prefix.
place() {  # place SRC DEST MODE: copy with the paths of this install
    local tmp
    tmp="$(mktemp)"
    if [ -n "$PREFIX" ]; then
        sed -e "s#/\(opt\|etc\|var/lib\)/shoe-\(daemon\|floor\)#$PREFIX&#g" "$1" >"$tmp"
    else
        cp "$1" "$tmp"
    fi
    install -D -m "$3" "$tmp" "$2"
    rm -f "$tmp"
}

make_user() {  # make_user NAME HOME [GROUPS]: from its sysusers.d file, else useradd
    [ -z "$PREFIX" ] || return 0
    if command -v systemd-sysusers >/dev/null; then
        systemd-sysusers "$SYSUSERS/$1.conf"
    elif ! id "$1" >/dev/null 2>&1; then
        useradd --system --home-dir "$2" --shell /usr/sbin/nologin ${3:+--groups "$3"} "$1"
    fi
}

place_config() {  # place_config EXAMPLE TARGET: only if there is none
    if [ -e "$2" ]; then
        say "keeping $2 (compare with $1)"
        return 1
    fi
    place "$1" "$2" 0644
}

install_table() {
    local OPT="$PREFIX/opt/shoe-daemon" ETC="$PREFIX/etc/shoe-daemon"
    local STATE="$PREFIX/var/lib/shoe-daemon" USER_NAME="shoe-daemon"

    # 1. Packages: Python with venv, libusb for pyusb, openssl for the regulator's checks.
    if [ "$APT" -eq 1 ]; then
        local packages=(python3 python3-venv libusb-1.0-0 openssl udev systemd ca-certificates)
        # The kiosk: Chromium, curl for its wait on the display, and a CJK font for a display
        # in Chinese (docs/display.md, "Languages").
        [ "$KIOSK" -eq 1 ] && packages+=(chromium curl fonts-wqy-microhei)
        apt_install "${packages[@]}"
    fi

    # 2. The virtual environment, and the documents it points to.
    make_venv "$OPT" ""
    mkdir -p "$OPT/docs"
    install -m 0644 "$SRC/docs/deployment.md" "$SRC/docs/shoe-daemon.toml" "$OPT/docs/"

    # 3. The unit, the user, the udev rules.
    say "systemd unit in $UNITS, user in $SYSUSERS, udev rules in $UDEV"
    place "$SRC/systemd/shoe-daemon.service" "$UNITS/shoe-daemon.service" 0644
    place "$SRC/systemd/shoe-daemon-prune.service" "$UNITS/shoe-daemon-prune.service" 0644
    place "$SRC/systemd/shoe-daemon-prune.timer" "$UNITS/shoe-daemon-prune.timer" 0644
    place "$SRC/systemd/shoe-daemon.sysusers" "$SYSUSERS/shoe-daemon.conf" 0644
    if [ "$KIOSK" -eq 1 ]; then
        place "$SRC/systemd/shoe-display-kiosk.service" "$USER_UNITS/shoe-display-kiosk.service" 0644
    fi
    mkdir -p "$UDEV"
    sed -e "s/@ADAPTER_VENDOR@/$AD_VENDOR/" -e "s/@ADAPTER_PRODUCT@/$AD_PRODUCT/" \
        -e "s/@ADAPTER_SERIAL@/$AD_SERIAL/" -e "s/@SHOE_VENDOR@/$SHOE_VENDOR/" \
        -e "s/@SHOE_PRODUCT@/$SHOE_PRODUCT/" "$SRC/systemd/99-shoe.rules.in" >"$UDEV/99-shoe.rules"
    chmod 0644 "$UDEV/99-shoe.rules"
    make_user "$USER_NAME" /var/lib/shoe-daemon dialout
    if [ -z "$PREFIX" ] && command -v udevadm >/dev/null && [ -d /run/udev ]; then
        udevadm control --reload
        udevadm trigger --subsystem-match=tty --subsystem-match=usb
    fi

    # 4. The configuration, only if there is none: an operator's edits are never overwritten.
    if place_config "$OPT/docs/shoe-daemon.toml" "$ETC/shoe-daemon.toml"; then
        say "configuration $ETC/shoe-daemon.toml from the example: set table and profile"
    fi

    # 5. The state directory and the table's signing key, made by the service's user.
    as_service() {
        if [ -n "$PREFIX" ]; then "$@"; else runuser -u "$USER_NAME" -- "$@"; fi
    }
    install -d -m 0750 "$STATE"
    [ -n "$PREFIX" ] || chown "$USER_NAME:$USER_NAME" "$STATE"
    if [ -e "$STATE/keys/current" ]; then
        say "keeping the table's signing key in $STATE/keys"
    else
        as_service "$OPT/venv/bin/shoe-daemon" audit keygen --state-dir "$STATE" | sed 's/^/install: /'
        say "lodge the public key with the regulator: shoe-daemon audit public-key --state-dir $STATE"
    fi

    # 6. Check the configuration as the service will read it, then enable and start.
    as_service "$OPT/venv/bin/shoe-daemon" check-config --config "$ETC/shoe-daemon.toml" \
        | sed 's/^/install: check-config: /' || die "fix $ETC/shoe-daemon.toml, then run this again"
    if [ "$SYSTEMD_RUNS" -eq 1 ]; then
        systemctl daemon-reload
        systemctl enable shoe-daemon.service shoe-daemon-prune.timer
        systemctl restart shoe-daemon.service
        systemctl start shoe-daemon-prune.timer
        say "started: systemctl status shoe-daemon"
    else
        say "not started (no running systemd, --prefix or --no-start); with systemd:"
        say "  systemctl daemon-reload && systemctl enable --now shoe-daemon.service shoe-daemon-prune.timer"
    fi
}

install_floor() {
    local OPT="$PREFIX/opt/shoe-floor" ETC="$PREFIX/etc/shoe-floor"
    local STATE="$PREFIX/var/lib/shoe-floor" USER_NAME="shoe-floor"
    local units=(shoe-floor-collect.service shoe-floor-serve.service) unit

    # 1. Packages: Python with venv, openssl for the broker's TLS and the regulator's checks;
    # the broker and the database where they run on this machine (as apt's Recommends).
    if [ "$APT" -eq 1 ]; then
        local packages=(python3 python3-venv openssl systemd ca-certificates)
        [ "$RECOMMENDS" -eq 1 ] && packages+=(mosquitto postgresql)
        apt_install "${packages[@]}"
    fi

    # 2. The virtual environment with the floor extra (psycopg, PostgreSQL's driver), the
    # documents, the broker's files and the script that makes a table's login.
    make_venv "$OPT" "[floor]"
    mkdir -p "$OPT/docs" "$OPT/mosquitto" "$OPT/bin"
    install -m 0644 "$SRC/docs/deployment.md" "$SRC/docs/floor.md" "$SRC/docs/floor.toml" \
        "$OPT/docs/"
    install -m 0644 "$SRC/systemd/mosquitto/shoe-floor.conf" \
        "$SRC/systemd/mosquitto/shoe-floor.acl" "$OPT/mosquitto/"
    install -m 0755 "$SRC/scripts/floor-table-credentials" "$OPT/bin/"

    # 3. The units and the user.
    say "systemd units in $UNITS, user in $SYSUSERS"
    for unit in "${units[@]}"; do
        place "$SRC/systemd/$unit" "$UNITS/$unit" 0644
    done
    place "$SRC/systemd/shoe-floor.sysusers" "$SYSUSERS/shoe-floor.conf" 0644
    make_user "$USER_NAME" /var/lib/shoe-floor

    # 4. The configuration, only if there is none; its broker login, CA and database are the
    # operator's to give.
    if place_config "$OPT/docs/floor.toml" "$ETC/floor.toml"; then
        say "configuration $ETC/floor.toml from the example: broker, login, CA, database"
    fi
    # Where the tables' public keys are lodged (`shoe-floor lodge-key`, as root): read-only
    # to the collector, which stores only records signed with one of them.
    install -d -m 0755 "$ETC/table-keys"

    # 5. The state directory, the collector's (and the floor's signing key, made once
    # floor.toml is written: `shoe-floor keygen`).
    install -d -m 0750 "$STATE"
    [ -n "$PREFIX" ] || chown "$USER_NAME:$USER_NAME" "$STATE"

    # 6. Not enabled here: started before floor.toml names a broker it can log in to, the
    # collector would only fail. An update restarts the units an operator has running.
    if [ "$SYSTEMD_RUNS" -eq 1 ]; then
        systemctl daemon-reload
        systemctl try-restart "${units[@]}"
    fi
    say "the units are not enabled here; once $ETC/floor.toml is configured"
    say "  (docs/deployment.md, \"The floor\"): systemctl enable --now ${units[*]}"
}

if [ "$FLOOR" -eq 1 ]; then
    install_floor
else
    install_table
fi
