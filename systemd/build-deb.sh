#!/usr/bin/env bash
# Build the Debian package: shoe-daemon_VERSION_ARCH.deb, for Raspberry Pi OS Bookworm 64-bit
# (arm64, the default) or Debian 12 on a PC (amd64). It carries the project's wheel and every
# pinned dependency as a binary wheel for that architecture and CPython 3.11, so installing
# it needs no network and no compiler: its postinst builds /opt/shoe-daemon/venv from them.
# With --floor, the pit's package instead: shoe-floor_VERSION_ARCH.deb (amd64, its default,
# or arm64), /opt/shoe-floor/venv with the floor extra (psycopg), the collector's and the
# page's units (installed, not enabled: they need /etc/shoe-floor/floor.toml first),
# recommending Debian's mosquitto and postgresql.
#
#   systemd/build-deb.sh [--arch arm64|amd64] [--adapter VID:PID:SERIAL] [--out DIR]
#   systemd/build-deb.sh --floor [--arch amd64|arm64] [--out DIR]
#   sudo apt install ./shoe-daemon_0.1.0_arm64.deb      # on the Pi (docs/deployment.md)
#   sudo apt install ./shoe-floor_0.1.0_amd64.deb       # on the pit's machine
#
# The configuration and the udev rules are conffiles: dpkg keeps an operator's edits on upgrade.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
ARCH=""                       # arm64 for a table, amd64 for the pit
ADAPTER="0403:6001:SHOE0001"
OUT="$SRC/dist"
PYTHON="python3"
FLOOR=0
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) ARCH="$2"; shift 2 ;;
        --adapter) ADAPTER="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --python) PYTHON="$2"; shift 2 ;;
        --floor) FLOOR=1; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$ARCH" ] || { if [ "$FLOOR" -eq 1 ]; then ARCH=amd64; else ARCH=arm64; fi; }
case "$ARCH" in
    arm64) MACHINE=aarch64 ;;
    amd64) MACHINE=x86_64 ;;
    *) echo "build-deb: --arch arm64 or amd64" >&2; exit 2 ;;
esac
IFS=: read -r AD_VENDOR AD_PRODUCT AD_SERIAL <<<"$ADAPTER"
[[ "$AD_VENDOR" =~ ^[0-9a-f]{4}$ && "$AD_PRODUCT" =~ ^[0-9a-f]{4}$ && -n "$AD_SERIAL" ]] \
    || { echo "build-deb: --adapter wants VID:PID:SERIAL in lower-case hex" >&2; exit 2; }

if [ "$FLOOR" -eq 1 ]; then PACKAGE=shoe-floor; EXTRAS=floor; else PACKAGE=shoe-daemon; EXTRAS=""; fi
OPT="/opt/$PACKAGE"
VERSION="$("$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import shoe_daemon; print(shoe_daemon.__version__)' "$SRC")"
# The pinned dependencies, and the extra's (the floor's psycopg) for the pit's package.
mapfile -t DEPS < <("$PYTHON" -c 'import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
extras = [d for name in sys.argv[2:] for d in project["optional-dependencies"][name]]
print(*project["dependencies"], *extras, sep="\n")' "$SRC/pyproject.toml" $EXTRAS)
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
PIP=("$PYTHON" -m pip --disable-pip-version-check --quiet)
WHEELS="$stage$OPT/wheels"

# The wheels: the project's own (pure Python) and the dependencies' for the target machine.
"${PIP[@]}" wheel --no-deps --wheel-dir "$WHEELS" "$SRC" >/dev/null
platforms=()
for glibc in 36 34 31 28 17; do platforms+=(--platform "manylinux_2_${glibc}_$MACHINE"); done
"${PIP[@]}" download --only-binary=:all: "${platforms[@]}" --platform "manylinux2014_$MACHINE" \
    --python-version 3.11 --implementation cp --dest "$WHEELS" "${DEPS[@]}"

# The files, where a package puts them (units and sysusers under /usr/lib).
unit() { install -D -m 0644 "$SRC/systemd/$1" "$stage/usr/lib/systemd/$2/$1"; }
mkdir -p "$stage/usr/bin" "$stage/DEBIAN"
if [ "$FLOOR" -eq 1 ]; then
    unit shoe-floor-collect.service system
    unit shoe-floor-serve.service system
    install -D -m 0644 "$SRC/systemd/shoe-floor.sysusers" "$stage/usr/lib/sysusers.d/shoe-floor.conf"
    install -D -m 0644 "$SRC/docs/floor.toml" "$stage/etc/shoe-floor/floor.toml"
    install -d -m 0755 "$stage/etc/shoe-floor/table-keys"  # `shoe-floor lodge-key` fills it
    install -D -m 0644 -t "$stage$OPT/docs" "$SRC/docs/deployment.md" "$SRC/docs/floor.md" \
        "$SRC/docs/floor.toml"
    install -D -m 0644 -t "$stage$OPT/mosquitto" "$SRC/systemd/mosquitto/shoe-floor.conf" \
        "$SRC/systemd/mosquitto/shoe-floor.acl"
    install -D -m 0755 -t "$stage$OPT/bin" "$SRC/scripts/floor-table-credentials"
    ln -s "$OPT/venv/bin/shoe-floor" "$stage/usr/bin/shoe-floor"
    printf '%s\n' /etc/shoe-floor/floor.toml >"$stage/DEBIAN/conffiles"
    DEPENDS="python3 (>= 3.11), python3 (<< 3.12), python3-venv, openssl, systemd, init-system-helpers"
    RECOMMENDS="mosquitto, postgresql"
    SUMMARY="the floor's collector and pit page for electronic card shoe tables
 Collects every table's audit ledger from the floor's MQTT broker, checks each
 table's chain as the records arrive and writes them to PostgreSQL; serves the
 pit's live page of every table and the regulator's signed export of many
 tables. Its units, shoe-floor-collect and shoe-floor-serve, are installed but
 not enabled: configure /etc/shoe-floor/floor.toml first (deployment.md)."
else
    unit shoe-daemon.service system
    unit shoe-daemon-prune.service system
    unit shoe-daemon-prune.timer system
    unit shoe-display-kiosk.service user
    install -D -m 0644 "$SRC/systemd/shoe-daemon.sysusers" "$stage/usr/lib/sysusers.d/shoe-daemon.conf"
    install -D -m 0644 "$SRC/docs/shoe-daemon.toml" "$stage/etc/shoe-daemon/shoe-daemon.toml"
    mkdir -p "$stage/etc/udev/rules.d"
    sed -e "s/@ADAPTER_VENDOR@/$AD_VENDOR/" -e "s/@ADAPTER_PRODUCT@/$AD_PRODUCT/" \
        -e "s/@ADAPTER_SERIAL@/$AD_SERIAL/" -e "s/@SHOE_VENDOR@/1209/" -e "s/@SHOE_PRODUCT@/5348/" \
        "$SRC/systemd/99-shoe.rules.in" >"$stage/etc/udev/rules.d/99-shoe.rules"
    install -D -m 0644 -t "$stage$OPT/docs" "$SRC/docs/deployment.md" "$SRC/docs/shoe-daemon.toml"
    ln -s "$OPT/venv/bin/shoe-daemon" "$stage/usr/bin/shoe-daemon"
    printf '%s\n' /etc/shoe-daemon/shoe-daemon.toml /etc/udev/rules.d/99-shoe.rules \
        >"$stage/DEBIAN/conffiles"
    DEPENDS="python3 (>= 3.11), python3 (<< 3.12), python3-venv, libusb-1.0-0, openssl, systemd, udev, init-system-helpers, util-linux"
    RECOMMENDS="curl"
    SUMMARY="table-side service for an electronic Chemin de Fer / Punto Banco card shoe
 Reads the shoe's card events over serial or USB, applies the house rules in a
 coup state machine, commits every result to a tamper-evident audit ledger and
 publishes it. Runs as the hardened systemd service shoe-daemon.service."
fi

for script in postinst prerm postrm; do
    install -m 0755 "$SRC/systemd/debian/$PACKAGE.$script" "$stage/DEBIAN/$script"
done
{
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\n' "$PACKAGE" "$VERSION" "$ARCH"
    printf 'Maintainer: shoe-daemon maintainers <root@localhost>\nSection: misc\n'
    printf 'Priority: optional\nDepends: %s\nRecommends: %s\n' "$DEPENDS" "$RECOMMENDS"
    [ "$FLOOR" -eq 1 ] || printf 'Suggests: chromium, fonts-wqy-microhei\n'
    printf 'Installed-Size: %s\nDescription: %s\n' "$(du -sk "$stage" | cut -f1)" "$SUMMARY"
} >"$stage/DEBIAN/control"
mkdir -p "$OUT"
deb="$OUT/${PACKAGE}_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
