#!/usr/bin/env bash
# Install shoe-daemon on Raspberry Pi OS (Bookworm, 64-bit) or Debian 12, from this checkout:
# packages, /opt/shoe-daemon/venv (binary wheels only: nothing is compiled on the Pi), the
# systemd unit, the sysusers.d user, the udev rules, /etc/shoe-daemon/shoe-daemon.toml (only if
# absent: an operator's configuration is never overwritten), the table's signing key (only if
# absent), and the service enabled and started when systemd runs. Safe to run again: that is
# also how an update is installed. docs/deployment.md is the technician's walk-through.
#
#   sudo systemd/install.sh [--adapter VID:PID:SERIAL] [--kiosk] [--no-apt] [--no-start]
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
USER_NAME="shoe-daemon"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX="$(realpath -m "$2")"; shift 2 ;;
        --adapter) ADAPTER="$2"; shift 2 ;;
        --python) PYTHON="$2"; shift 2 ;;
        --no-apt) APT=0; shift ;;
        --no-start) START=0; shift ;;
        --kiosk) KIOSK=1; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'install: unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
IFS=: read -r AD_VENDOR AD_PRODUCT AD_SERIAL <<<"$ADAPTER"
[[ "$AD_VENDOR" =~ ^[0-9a-f]{4}$ && "$AD_PRODUCT" =~ ^[0-9a-f]{4}$ && -n "$AD_SERIAL" ]] \
    || die "--adapter wants VID:PID:SERIAL in lower-case hex, e.g. 0403:6001:A10K2B3C"
IFS=: read -r SHOE_VENDOR SHOE_PRODUCT <<<"$SHOE_USB"

if [ -n "$PREFIX" ]; then
    APT=0
    START=0
else
    [ "$(id -u)" -eq 0 ] || die "run as root (sudo), or give --prefix DIR"
fi
OPT="$PREFIX/opt/shoe-daemon"
ETC="$PREFIX/etc/shoe-daemon"
STATE="$PREFIX/var/lib/shoe-daemon"
UNITS="$PREFIX/etc/systemd/system"
USER_UNITS="$PREFIX/etc/systemd/user"
SYSUSERS="$PREFIX/etc/sysusers.d"
UDEV="$PREFIX/etc/udev/rules.d"

# 1. Packages: Python with venv, libusb for pyusb, openssl for the regulator's checks.
if [ "$APT" -eq 1 ]; then
    packages=(python3 python3-venv libusb-1.0-0 openssl udev systemd ca-certificates)
    [ "$KIOSK" -eq 1 ] && packages+=(chromium curl)
    say "apt packages: ${packages[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi

# 2. The virtual environment: pinned dependencies as binary wheels only (--only-binary), so an
# install that would need a compiler on the Pi fails here instead of half-working.
say "virtual environment in $OPT/venv"
mkdir -p "$OPT"
[ -x "$OPT/venv/bin/python" ] || "$PYTHON" -m venv "$OPT/venv"
PIP=("$OPT/venv/bin/python" -m pip --disable-pip-version-check --quiet)
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
"${PIP[@]}" wheel --no-deps --wheel-dir "$build" "$SRC" >/dev/null
wheel="$(ls "$build"/shoe_daemon-*.whl)"
"${PIP[@]}" install --only-binary=:all: "$wheel"
"${PIP[@]}" install --no-deps --force-reinstall "$wheel"
mkdir -p "$OPT/docs"
install -m 0644 "$SRC/docs/deployment.md" "$SRC/docs/shoe-daemon.toml" "$OPT/docs/"

# Files that name the standard paths get them moved under --prefix.
place() {  # place SRC DEST MODE: copy with the paths of this install
    local tmp
    tmp="$(mktemp)"
    if [ -n "$PREFIX" ]; then
        sed -e "s#/opt/shoe-daemon#$OPT#g" -e "s#/etc/shoe-daemon#$ETC#g" \
            -e "s#/var/lib/shoe-daemon#$STATE#g" "$1" >"$tmp"
    else
        cp "$1" "$tmp"
    fi
    install -D -m "$3" "$tmp" "$2"
    rm -f "$tmp"
}

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
if [ -z "$PREFIX" ]; then
    if command -v systemd-sysusers >/dev/null; then
        systemd-sysusers "$SYSUSERS/shoe-daemon.conf"
    elif ! id "$USER_NAME" >/dev/null 2>&1; then
        useradd --system --home-dir /var/lib/shoe-daemon --shell /usr/sbin/nologin \
            --groups dialout "$USER_NAME"
    fi
    if command -v udevadm >/dev/null && [ -d /run/udev ]; then
        udevadm control --reload
        udevadm trigger --subsystem-match=tty --subsystem-match=usb
    fi
fi

# 4. The configuration, only if there is none: an operator's edits are never overwritten.
if [ -e "$ETC/shoe-daemon.toml" ]; then
    say "keeping $ETC/shoe-daemon.toml (compare with $OPT/docs/shoe-daemon.toml)"
else
    say "configuration $ETC/shoe-daemon.toml from the example: set table and profile"
    place "$SRC/docs/shoe-daemon.toml" "$ETC/shoe-daemon.toml" 0644
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
if [ "$START" -eq 1 ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable shoe-daemon.service shoe-daemon-prune.timer
    systemctl restart shoe-daemon.service
    systemctl start shoe-daemon-prune.timer
    say "started: systemctl status shoe-daemon"
else
    say "not started (no running systemd, --prefix or --no-start); with systemd:"
    say "  systemctl daemon-reload && systemctl enable --now shoe-daemon.service shoe-daemon-prune.timer"
fi
