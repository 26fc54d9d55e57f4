"""`shoe-daemon odds` prints the house's figures and refuses bad input with exit 2."""

from __future__ import annotations

import pytest

from shoe_daemon.service.cli import main


def test_punto_banco_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--profile", "baden-punto-banco", "--packs", "8"]) == 0
    out = capsys.readouterr().out
    assert "8 packs, 416 cards" in out
    lines = {line.split()[0] + " " + line.split()[1]: line for line in out.splitlines()
             if len(line.split()) > 2}
    assert "0.458597423" in lines["banker wins"]
    assert "0.446246609" in lines["punter wins"]
    assert "1.0579%" in lines["Banco 1"] and "14.3596%" in lines["Egalité 8"]
    assert "Swiss Nine" in out and "300 for 1" in out


def test_chemin_de_fer_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--profile", "baden", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "punter on 5: draws with chance 7631761/9407656" in out
    assert "6 v stood draws with chance 546971813/1444075196" in out
    assert "banker free, punter free" in out and "NO" not in out
    assert "the banker gives up 0.0005414 a unit" in out


def test_one_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--profile", "clermont-2015", "--strategy", "stand"]) == 0
    out = capsys.readouterr().out
    assert "strategy stand" in out and "strategy optimal" not in out
    assert "four games" not in out


def test_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--profile", "baden", "--packs", "0"]) == 2
    assert "packs must be a positive number" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["odds", "--profile", "nowhere"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        main(["odds", "--profile", "baden", "--strategy", "hunch"])
