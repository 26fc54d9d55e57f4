#!/usr/bin/env bash
# Build the Debian package: shoe-daemon_VERSION_ARCH.deb, for Raspberry Pi OS Bookworm 64-bit
# (arm64, the default) or Debian 12 on a PC (amd64). It carries the project's wheel and every
# pinned dependency as a binary wheel for that architecture and CPython 3.11, so installing
# it needs no network and no compiler: its postinst builds /opt/shoe-daemon/venv from them.
#
#   systemd/build-deb.sh [--arch arm64|amd64] [--adapter VID:PID:SERIAL] [--out DIR]
#   sudo apt install ./shoe-daemon_0.1.0_arm64.deb      # on the Pi (docs/deployment.md)
#
# The configuration and the udev rules are conffiles: dpkg keeps an operator's edits on upgrade.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
ARCH="arm64"
ADAPTER="0403:6001:SHOE0001"
OUT="$SRC/dist"
PYTHON="python3"
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) ARCH="$2"; shift 2 ;;
        --adapter) ADAPTER="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --python) PYTHON="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb: unknown option $1" >&2; exit 2 ;;
    esac
done
case "$ARCH" in
    arm64) MACHINE=aarch64 ;;
    amd64) MACHINE=x86_64 ;;
    *) echo "build-deb: --arch arm64 or amd64" >&2; exit 2 ;;
esac
IFS=: read -r AD_VENDOR AD_PRODUCT AD_SERIAL <<<"$ADAPTER"
[[ "$AD_VENDOR" =~ ^[0-9a-f]{4}$ && "$AD_PRODUCT" =~ ^[0-9a-f]{4}$ && -n "$AD_SERIAL" ]] \
    || { echo "build-deb: --adapter wants VID:PID:SERIAL in lower-case hex" >&2; exit 2; }

VERSION="$("$PYTHON" -c 'import sys; sys.path.insert(0, sys.argv[1]); import shoe_daemon; print(shoe_daemon.__version__)' "$SRC")"
mapfile -t DEPS < <("$PYTHON" -c 'import sys, tomllib; [print(d) for d in tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]]' "$SRC/pyproject.toml")
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
PIP=("$PYTHON" -m pip --disable-pip-version-check --quiet)
WHEELS="$stage/opt/shoe-daemon/wheels"

# The wheels: the project's own (pure Python) and the dependencies' for the target machine.
"${PIP[@]}" wheel --no-deps --wheel-dir "$WHEELS" "$SRC" >/dev/null
platforms=()
for glibc in 36 34 31 28 17; do platforms+=(--platform "manylinux_2_${glibc}_$MACHINE"); done
"${PIP[@]}" download --only-binary=:all: "${platforms[@]}" --platform "manylinux2014_$MACHINE" \
    --python-version 3.11 --implementation cp --dest "$WHEELS" "${DEPS[@]}"

# The files, where a package puts them (units and sysusers under /usr/lib).
install -D -m 0644 "$SRC/systemd/shoe-daemon.service" "$stage/usr/lib/systemd/system/shoe-daemon.service"
for unit in shoe-daemon-prune.service shoe-daemon-prune.timer; do
    install -D -m 0644 "$SRC/systemd/$unit" "$stage/usr/lib/systemd/system/$unit"
done
install -D -m 0644 "$SRC/systemd/shoe-display-kiosk.service" \
    "$stage/usr/lib/systemd/user/shoe-display-kiosk.service"
install -D -m 0644 "$SRC/systemd/shoe-daemon.sysusers" "$stage/usr/lib/sysusers.d/shoe-daemon.conf"
install -D -m 0644 "$SRC/docs/shoe-daemon.toml" "$stage/etc/shoe-daemon/shoe-daemon.toml"
mkdir -p "$stage/etc/udev/rules.d"
sed -e "s/@ADAPTER_VENDOR@/$AD_VENDOR/" -e "s/@ADAPTER_PRODUCT@/$AD_PRODUCT/" \
    -e "s/@ADAPTER_SERIAL@/$AD_SERIAL/" -e "s/@SHOE_VENDOR@/1209/" -e "s/@SHOE_PRODUCT@/5348/" \
    "$SRC/systemd/99-shoe.rules.in" >"$stage/etc/udev/rules.d/99-shoe.rules"
install -D -m 0644 "$SRC/docs/deployment.md" "$stage/opt/shoe-daemon/docs/deployment.md"
install -m 0644 "$SRC/docs/shoe-daemon.toml" "$stage/opt/shoe-daemon/docs/shoe-daemon.toml"
mkdir -p "$stage/usr/bin"
ln -s /opt/shoe-daemon/venv/bin/shoe-daemon "$stage/usr/bin/shoe-daemon"

mkdir -p "$stage/DEBIAN"
install -m 0755 "$SRC/systemd/debian/postinst" "$SRC/systemd/debian/prerm" \
    "$SRC/systemd/debian/postrm" "$stage/DEBIAN/"
printf '%s\n' /etc/shoe-daemon/shoe-daemon.toml /etc/udev/rules.d/99-shoe.rules \
    >"$stage/DEBIAN/conffiles"
cat >"$stage/DEBIAN/control" <<EOF
Package: shoe-daemon
Version: $VERSION
Architecture: $ARCH
Maintainer: shoe-daemon maintainers <root@localhost>
Section: misc
Priority: optional
Depends: python3 (>= 3.11), python3 (<< 3.12), python3-venv, libusb-1.0-0, openssl, systemd, udev, init-system-helpers, util-linux
Recommends: curl
Suggests: chromium
Installed-Size: $(du -sk "$stage" | cut -f1)
Description: table-side service for an electronic Chemin de Fer / Punto Banco card shoe
 Reads the shoe's card events over serial or USB, applies the house rules in a
 coup state machine, commits every result to a tamper-evident audit ledger and
 publishes it. Runs as the hardened systemd service shoe-daemon.service.
EOF
mkdir -p "$OUT"
deb="$OUT/shoe-daemon_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
