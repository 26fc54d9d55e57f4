"""The pit's real floor for the attacks on it (test_pit.py, test_pit_signin.py): a CA and
certificates, a PostgreSQL cluster per module, and a fresh broker and store per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hil.floor_servers import Certs, Postgres, make_certs
from tests.attack.pit_support import Floor


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    pg = Postgres()
    pg.start()
    yield pg
    pg.stop()


@pytest.fixture
def floor(tmp_path: Path, certs: Certs, postgres: Postgres) -> Iterator[Floor]:
    f = Floor(tmp_path, certs, postgres)
    yield f
    f.close()
