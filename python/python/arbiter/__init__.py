"""Arbiter's games for Python: every game the engine offers, through its generic contract.

    import arbiter
    g = arbiter.new_game("twilight-struggle", seed=1)
    while not g.is_over():
        g.play(g.legal_moves()[0])

See python/README.md for the whole API, the action spaces and the observation layouts.
"""

import json as _json

from ._arbiter import Game, VecGame, IllegalMove, SaveError, games, default_options_json
from ._arbiter import arena_json as _arena_json

__all__ = [
    "Game",
    "VecGame",
    "IllegalMove",
    "SaveError",
    "games",
    "default_options",
    "new_game",
    "load",
    "vec_game",
    "arena",
]


def default_options(kind):
    """A kind's options with their defaults, as a dict."""
    return _json.loads(default_options_json(kind))


def new_game(kind="twilight-struggle", seed=0, **options):
    """A new game of `kind` (see `games()`); options are the kind's, by keyword
    (Twilight Struggle: optional_cards, us_bonus; Minesweeper: width, height, mines)."""
    return Game(kind, seed, _json.dumps(options))


def load(path):
    """Open a `.arbiter` file; the game resumes at the decision where it was saved."""
    return Game.load(str(path))


def vec_game(kind="twilight-struggle", num_games=64, seed=0, threads=1, **options):
    """`num_games` games stepped together (see `VecGame`)."""
    return VecGame(kind, num_games, seed, _json.dumps(options), threads)


def arena(kind, a, b, games=20, seed=0, threads=1, split="seat", options=None):
    """`arbiter arena`: agents `a` and `b` ("random", "greedy", "computer", "computer:LEVEL")
    play `games` games of `kind` (its default `options`, with the given ones over them): with
    `split="seat"` `a` plays one seat, rotated every game; with `split="side"` every seat of one
    side (a team), rotated every game. The result as a dict (`a_as`: by the side `a` played)."""
    return _json.loads(_arena_json(kind, a, b, games, seed, threads, split, _json.dumps(options or {})))
