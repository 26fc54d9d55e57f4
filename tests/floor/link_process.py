"""A table's floor link alone in its own process, so a test can kill it with SIGKILL:
`python -m tests.floor.link_process STATE_DIR FLOOR_TOML`. It publishes until killed."""

from __future__ import annotations

import sys
import time
import tomllib
from pathlib import Path

from shoe_daemon.floor import FloorLink, parse_floor


def main() -> None:
    state_dir, toml = Path(sys.argv[1]), Path(sys.argv[2])
    config = parse_floor(tomllib.loads(toml.read_text())["floor"], toml.parent)
    assert config is not None
    FloorLink(config, state_dir, poll=0.05).start()
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
