"""The table's Ed25519 signing keys: what makes an audit export checkable by a regulator.

The ledger's HMAC key proves nothing to an outsider (whoever can check it can forge it), so
each export's manifest is signed with the table's Ed25519 key; the casino lodges the public
half with the regulator once, and the regulator checks exports with standard tools.

Layout, under `STATE_DIR/keys/` (0700):
- `table-<YYYYmmddTHHMMSSZ>.key`: the private key, PKCS8 PEM, unencrypted, mode 0600;
- `table-<YYYYmmddTHHMMSSZ>.pub.pem`: its public key, SubjectPublicKeyInfo PEM;
- `current`: the name (stem) of the key that signs new exports.

A rotation adds a key and moves `current`; old public keys stay, so exports signed before
still verify. A key's id is the first 16 hex digits of SHA-256 over its raw 32-byte public
key (`openssl pkey -pubin -in K.pub.pem -outform DER | tail -c 32 | sha256sum | cut -c1-16`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEYS_DIR = "keys"
CURRENT = "current"
_STEM = re.compile(r"^table-\d{8}T\d{6}Z$")


class KeyProblem(Exception):
    """A key cannot be made, found or read; the message says what to do."""


@dataclass(frozen=True)
class TableKey:
    """The current signing key: the private key, its public PEM and its id."""

    stem: str
    private: Ed25519PrivateKey
    public_pem: bytes
    key_id: str


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM,
                               serialization.PublicFormat.SubjectPublicKeyInfo)


def load_public_pem(data: bytes, where: str) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM bytes, or KeyProblem naming `where`."""
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as e:
        raise KeyProblem(f"{where}: not a PEM public key ({e})") from e
    if not isinstance(key, Ed25519PublicKey):
        raise KeyProblem(f"{where}: not an Ed25519 public key")
    return key


def verify_signature(public: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def keys_dir(state_dir: Path) -> Path:
    return state_dir / KEYS_DIR


def _stamp(now: datetime | None) -> str:
    now = now or datetime.now(UTC)
    return now.astimezone(UTC).strftime("table-%Y%m%dT%H%M%SZ")


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create `path` with `mode`; never replace an existing file."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError as e:
        raise KeyProblem(f"{path} exists: refusing to overwrite a key") from e
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def fsync_path(path: Path) -> None:
    """fsync a file or directory by its path (a rename is durable once its directory is)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def current_stem(state_dir: Path) -> str | None:
    try:
        stem = (keys_dir(state_dir) / CURRENT).read_text().strip()
    except FileNotFoundError:
        return None
    if not _STEM.match(stem):
        raise KeyProblem(f"{keys_dir(state_dir) / CURRENT}: does not name a key ({stem!r})")
    return stem


def _make(state_dir: Path, now: datetime | None) -> TableKey:
    directory = keys_dir(state_dir)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    stem = _stamp(now)
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    pub = public_pem(private.public_key())
    if (directory / f"{stem}.pub.pem").exists():
        raise KeyProblem(f"{directory / stem}.pub.pem exists: refusing to overwrite a key")
    _write_new(directory / f"{stem}.key", pem, 0o600)
    _write_new(directory / f"{stem}.pub.pem", pub, 0o644)
    tmp = directory / f".{CURRENT}.tmp"
    tmp.unlink(missing_ok=True)
    _write_new(tmp, (stem + "\n").encode(), 0o644)
    os.replace(tmp, directory / CURRENT)
    fsync_path(directory)
    return TableKey(stem, private, pub, key_id(private.public_key()))


def keygen(state_dir: Path, now: datetime | None = None) -> TableKey:
    """The table's first signing key; refused if there is one already (use `rotate`)."""
    stem = current_stem(state_dir)
    if stem is not None:
        raise KeyProblem(f"{keys_dir(state_dir)} already has a current key ({stem}): "
                         "use `shoe-daemon audit rotate-key` to replace it")
    return _make(state_dir, now)


def rotate(state_dir: Path, now: datetime | None = None) -> TableKey:
    """A new current key; the old ones stay, so exports signed with them still verify."""
    if current_stem(state_dir) is None:
        raise KeyProblem(f"no table signing key in {keys_dir(state_dir)}: "
                         f"run `shoe-daemon audit keygen --state-dir {state_dir}` first")
    return _make(state_dir, now)


def load_current(state_dir: Path) -> TableKey:
    """The key that signs exports, or KeyProblem saying how to make one."""
    directory = keys_dir(state_dir)
    stem = current_stem(state_dir)
    if stem is None:
        raise KeyProblem(f"no table signing key in {directory}: "
                         f"run `shoe-daemon audit keygen --state-dir {state_dir}`")
    path = directory / f"{stem}.key"
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as e:
        raise KeyProblem(f"{path}: {e.strerror or e}") from e
    if stat.S_IMODE(mode) & 0o077:
        raise KeyProblem(f"{path}: readable by others (mode {stat.S_IMODE(mode):04o}); "
                         "it must be 0600")
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as e:
        raise KeyProblem(f"{path}: not an unencrypted PEM private key ({e})") from e
    if not isinstance(private, Ed25519PrivateKey):
        raise KeyProblem(f"{path}: not an Ed25519 key")
    public = private.public_key()
    return TableKey(stem, private, public_pem(public), key_id(public))


def public_keys(state_dir: Path) -> dict[str, Path]:
    """Every public key kept (current and rotated out), by key id."""
    found: dict[str, Path] = {}
    for path in sorted(keys_dir(state_dir).glob("table-*.pub.pem")):
        try:
            found[key_id(load_public_pem(path.read_bytes(), str(path)))] = path
        except (OSError, KeyProblem):
            continue
    return found
