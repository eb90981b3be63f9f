"""The Python package over every game: API round trips, masks against legal moves, secrecy of
observations, save and load mid-event, the environment checkers, determinism by seed."""

import json
import warnings

import numpy as np
import pytest

import arbiter

TS = "twilight-struggle"
MS = "minesweeper"
SMALL_BOARD = {"width": 6, "height": 6, "mines": 5}
# Every game of the catalogue, with options that keep the tests quick.
KINDS = [(TS, {}), (MS, SMALL_BOARD)]


def random_game(kind, seed, options, on_decision=None, rng_seed=None):
    """Play a whole game with uniformly random legal actions, calling `on_decision(g)` first at
    every decision; returns the finished game."""
    g = arbiter.new_game(kind, seed=seed, **options)
    rng = np.random.default_rng(seed if rng_seed is None else rng_seed)
    while not g.is_over():
        if on_decision:
            on_decision(g)
        ids = g.legal_actions()
        g.play(int(ids[rng.integers(len(ids))]))
    return g


def test_the_catalogue_is_reachable():
    assert arbiter.games() == [TS, MS, "mafia", "diplomacy"]
    assert arbiter.default_options(MS) == {"width": 9, "height": 9, "mines": 10}
    assert arbiter.default_options("mafia") == {"seats": 7}
    assert len(arbiter.new_game("mafia", seats=12).seats) == 12
    with pytest.raises(ValueError, match="5 to 15 seats, not 16"):
        arbiter.new_game("mafia", seats=16)
    with pytest.raises(ValueError, match="the games are: twilight-struggle, minesweeper, mafia, diplomacy"):
        arbiter.new_game("chess")
    with pytest.raises(ValueError, match="2 to 26 columns"):
        arbiter.new_game(MS, width=40)
    with pytest.raises(ValueError, match="unknown field"):
        arbiter.new_game(MS, colour="red")


@pytest.mark.parametrize("kind,options", KINDS)
def test_round_trips(kind, options):
    g = arbiter.new_game(kind, seed=7, **options)
    assert g.kind == kind and g.seed == 7
    assert g.current_seat() == g.frame()[0]
    moves, ids = g.legal_moves(), g.legal_actions()
    assert len(moves) == len(ids) > 0
    for m, i in zip(moves, ids):
        assert g.action_id(m) == i
        assert g.action_text(i) == m
    # Text and id play the same move.
    a, b = g.clone(), g.clone()
    assert a.play(moves[-1]) == b.play(ids[-1]) == moves[-1]
    assert a.state_hash() == b.state_hash() != g.state_hash()
    # A clone is independent.
    assert g.history == [] and a.history == [(g.current_seat(), moves[-1])]
    # The view is the game's JSON view (a dict), per seat.
    v = g.view(0)
    assert isinstance(v, dict) and json.loads(json.dumps(v)) == v
    assert g.returns() == [0.0] * len(g.seats) and not g.is_over() and g.outcome() is None


def test_an_illegal_move_raises_the_engines_reason_and_changes_nothing():
    g = arbiter.new_game(TS, seed=1)
    before = g.state_hash()
    with pytest.raises(arbiter.IllegalMove) as e:
        g.play("coup Iran")
    assert e.value.reason.startswith("cannot") and e.value.rule
    with pytest.raises(arbiter.IllegalMove, match="no action 99999"):
        g.play(99999)
    with pytest.raises(ValueError, match="no seat 5: the seats are 0 to 1"):
        g.play(g.legal_moves()[0], seat=5)
    with pytest.raises(ValueError, match="no seat 3"):
        g.observe(3)
    assert g.state_hash() == before and g.history == []


@pytest.mark.parametrize("kind,options,games", [(TS, {}, 100), (MS, SMALL_BOARD, 200), (MS, {}, 50)])
def test_masks_agree_with_legal_moves_at_every_decision(kind, options, games):
    decisions = 0

    def check(g):
        nonlocal decisions
        decisions += 1
        moves, ids, mask = g.legal_moves(), g.legal_actions(), g.action_mask()
        assert len(ids) == len(moves), moves
        assert len(set(ids)) == len(ids), "two listed moves share an action id"
        assert mask.dtype == bool and mask.shape == (g.action_space_size,)
        assert int(mask.sum()) == len(moves)
        assert set(np.flatnonzero(mask)) == set(ids)
        for m, i in zip(moves, ids):
            assert g.action_text(i) == m
        seat, kind_ = g.frame()
        assert seat == g.current_seat() and 0 <= kind_ < len(g.frame_kinds)

    for seed in range(games):
        g = random_game(kind, seed, options, check)
        assert g.frame() is None and not g.action_mask().any()
        r = g.returns()
        assert sorted(r) in ([-1.0, 1.0], [0.0, 0.0], [-1.0], [1.0]), r
    assert decisions > games * 3


@pytest.mark.parametrize("kind,options,games", [(TS, {}, 30), (MS, SMALL_BOARD, 100)])
def test_observations_never_change_when_only_hidden_information_does(kind, options, games):
    """At every decision, samples of what the deciding seat cannot see (the computer's sampler)
    give the same observation; and the samples did change hidden things (the test can fail)."""
    changed = 0
    checked = 0
    other_hand_changed = 0

    def check(g):
        nonlocal changed, checked, other_hand_changed
        seat = g.current_seat()
        obs = g.observe(seat)
        assert obs.dtype == np.float32 and obs.shape == tuple(g.observation_shape)
        assert obs.min() >= -1.0 and obs.max() <= 1.0
        for k in range(2):
            s = g.sample_hidden(seat, rng_seed=len(g.history) * 2 + k)
            assert np.array_equal(s.observe(seat), obs), f"seat {seat} observes hidden information at {g.history[-3:]}"
            assert s.view(seat) == g.view(seat)
            checked += 1
            changed += s.state_hash() != g.state_hash()
            if len(g.seats) == 2:
                other_hand_changed += s.view(1 - seat)["hand"] != g.view(1 - seat)["hand"]

    for seed in range(games):
        random_game(kind, seed, options, check)
    assert checked > 0 and changed > checked // 4, (changed, checked)
    if kind == TS:
        # The other hand itself was redrawn, not only the dice to come.
        assert other_hand_changed > checked // 4, (other_hand_changed, checked)


def test_observations_tell_public_changes():
    g = arbiter.new_game(TS, seed=3)
    a = g.observe(0)
    g.play(g.legal_actions()[0])
    assert not np.array_equal(a, g.observe(0))
    # The seats see different things (each its own hand).
    while g.frame()[1] == 0:
        g.play(g.legal_actions()[0])
    assert not np.array_equal(g.observe(0), g.observe(1))


def test_sample_hidden_only_at_the_seats_own_decision():
    g = arbiter.new_game(TS, seed=2)
    other = 1 - g.current_seat()
    with pytest.raises(arbiter.IllegalMove, match="samples only at its own decision"):
        g.sample_hidden(other, 1)
    s = g.sample_hidden(g.current_seat(), 1)
    with pytest.raises(arbiter.SaveError, match="cannot be saved"):
        s.save("never.arbiter")


def test_a_sample_does_not_carry_the_real_games_seed():
    """The real seed would let a program replay the real game and read the hidden cards."""
    g = arbiter.new_game(TS, seed=123456)
    s = g.sample_hidden(g.current_seat(), 7)
    assert s.seed == 7 and s.seed != g.seed


def test_loading_never_rewrites_the_file(tmp_path):
    g = arbiter.new_game(TS, seed=4)
    for _ in range(5):
        g.play(g.legal_actions()[0])
    path = tmp_path / "g.arbiter"
    g.save(str(path))
    before = path.read_bytes()
    arbiter.Game.load(str(path))
    assert path.read_bytes() == before
    # A file of an older version (which `arbiter` upgrades when it writes to it) too.
    import pathlib
    import shutil

    old = tmp_path / "v2.arbiter"
    shutil.copy(pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "v2-twilight-struggle.arbiter", old)
    before = old.read_bytes()
    arbiter.Game.load(str(old))
    assert old.read_bytes() == before


def test_save_and_load_resume_mid_event(tmp_path):
    """A game saved in the middle of an event's decisions opens at the same decision and goes on
    exactly as the game that was not saved."""
    rng = np.random.default_rng(11)
    g = arbiter.new_game(TS, seed=11)
    in_event = 0
    while not g.is_over():
        ids = g.legal_actions()
        if g.frame_kinds[g.frame()[1]] == "event" and len(g.history) > 20:
            in_event += 1
            if in_event == 2:  # a step after the event's first decision
                break
        g.play(int(ids[rng.integers(len(ids))]))
    assert not g.is_over() and g.frame_kinds[g.frame()[1]] == "event"
    path = tmp_path / "mid-event.arbiter"
    g.save(str(path))
    with pytest.raises(arbiter.SaveError, match="exists"):
        g.save(str(path))
    h = arbiter.load(path)
    assert h.kind == TS and h.seed == g.seed and h.history == g.history
    assert h.state_hash() == g.state_hash()
    assert h.current_seat() == g.current_seat() and h.prompt() == g.prompt()
    assert h.legal_moves() == g.legal_moves()
    assert h.view(h.current_seat()) == g.view(g.current_seat())
    assert np.array_equal(h.observe(0), g.observe(0))
    while not g.is_over():
        ids = g.legal_actions()
        a = int(ids[rng.integers(len(ids))])
        assert g.play(a) == h.play(a)
        assert g.state_hash() == h.state_hash()
    assert h.outcome() == g.outcome()


def test_a_minesweeper_game_saves_and_loads(tmp_path):
    g = arbiter.new_game(MS, seed=4, **SMALL_BOARD)
    g.play("open c3")
    g.play("flag a1")
    g.save(tmp_path / "m.arbiter")
    h = arbiter.load(tmp_path / "m.arbiter")
    assert h.view() == g.view() and h.options_json == g.options_json and h.legal_moves() == g.legal_moves()
    with pytest.raises(arbiter.SaveError, match="not-there"):
        arbiter.load(tmp_path / "not-there.arbiter")


@pytest.mark.parametrize("kind,options", KINDS)
def test_the_same_seed_plays_the_same_game(kind, options):
    a = random_game(kind, 5, options)
    b = random_game(kind, 5, options)
    assert a.history == b.history and a.state_hash() == b.state_hash()
    c = random_game(kind, 6, options)
    assert c.state_hash() != a.state_hash()


def test_agents_and_the_arena():
    g = arbiter.new_game(TS, seed=9)
    for agent in ("random", "greedy", "computer:1"):
        m = g.agent_move(agent, seed=3)
        assert m in g.legal_moves()
        assert g.agent_move(agent, seed=3) == m
    with pytest.raises(ValueError, match="the agents are"):
        g.agent_move("alphago")
    r = arbiter.arena(TS, "greedy", "random", games=2, seed=1)
    assert r["games"] == 2 and r["a_wins"] + r["b_wins"] + r["draws"] == 2
    with pytest.raises(ValueError, match="two agents"):
        arbiter.arena(MS, "random", "random", games=1)
    # By side: `a` in every seat of one side, the sides taken in turn; options as `new_game`'s.
    r = arbiter.arena("mafia", "random", "random", games=4, seed=2, split="side", options={"seats": 8})
    assert r["split"] == "side" and sorted(r["a_as"]) == ["the Mafia", "the village"]
    assert all(t["games"] == 2 and t["a_wins"] + t["b_wins"] == 2 for t in r["a_as"].values())
    with pytest.raises(ValueError, match="split by side needs"):
        arbiter.arena(TS, "random", "random", games=1, split="side")
    with pytest.raises(ValueError, match="no split"):
        arbiter.arena(TS, "random", "random", games=1, split="team")


# Batched stepping.


def play_batch(v, steps, seed):
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        a = (rng.random(v.mask.shape) * v.mask).argmax(1)
        v.step(a)
        trace.append((v.obs.copy(), v.mask.copy(), v.rewards.copy(), v.dones.copy(), v.seats.copy(), v.frames.copy()))
    return trace


@pytest.mark.parametrize("kind,options", KINDS)
def test_batched_rows_are_the_games_own(kind, options):
    v = arbiter.vec_game(kind, num_games=8, seed=3, **options)
    obs_id, mask_id = id(v.obs), id(v.mask)
    ended = 0
    for _ in range(300):
        for i in range(v.num_games):
            g = v.game(i)
            assert v.seats[i] == g.current_seat() and v.frames[i] == g.frame()[1]
            assert np.array_equal(v.obs[i], g.observe(g.current_seat()))
            assert np.array_equal(v.mask[i], g.action_mask())
        play_batch(v, 1, ended)
        # The arrays are written in place, never replaced.
        assert id(v.obs) == obs_id and id(v.mask) == mask_id
        for i in np.flatnonzero(v.dones):
            ended += 1
            r = sorted(v.rewards[i][: v.num_seats].tolist())
            assert r in ([-1.0, 1.0], [0.0, 0.0], [-1.0], [1.0]), r
        assert not v.rewards[~v.dones].any()
    assert ended > 0


def test_batched_stepping_is_deterministic_whatever_the_threads():
    one = play_batch(arbiter.vec_game(TS, num_games=6, seed=8, threads=1), 400, 1)
    two = play_batch(arbiter.vec_game(TS, num_games=6, seed=8, threads=3), 400, 1)
    for x, y in zip(one, two):
        for a, b in zip(x, y):
            assert np.array_equal(a, b)
    assert any(t[3].any() for t in one), "no game ended: the reset was not tested"


def test_random_actions_are_legal_and_seeded():
    runs = []
    for _ in range(2):
        v = arbiter.vec_game(TS, num_games=5, seed=2)
        trace = []
        for _ in range(300):
            a = v.random_actions()
            assert a.shape == (5,) and v.mask[np.arange(5), a].all()
            v.step(a)
            trace.append(a)
        runs.append(np.array(trace))
    assert np.array_equal(runs[0], runs[1])
    assert len(set(runs[0][:, 0].tolist())) > 20


def test_the_profile_times_what_learning_adds():
    from arbiter._arbiter import profile_json

    p = json.loads(profile_json(MS, 5, 0, json.dumps(SMALL_BOARD), 1))
    assert p["decisions"] > 0 and p["step_ns"] > 0 and p["observation_values"] == 11 * 36 and p["actions"] == 3 * 36


def test_batched_stepping_refuses_an_illegal_action_and_moves_nothing():
    v = arbiter.vec_game(TS, num_games=3, seed=1)
    before = [v.game(i).state_hash() for i in range(3)]
    a = v.mask.argmax(1)
    a[1] = np.flatnonzero(~v.mask[1])[0]
    with pytest.raises(arbiter.IllegalMove, match="game 1: action"):
        v.step(a)
    with pytest.raises(ValueError, match="2 actions for 3 games"):
        v.step(a[:2])
    assert [v.game(i).state_hash() for i in range(3)] == before
    v.reset(seed=1)
    assert [v.game(i).state_hash() for i in range(3)] == before


def test_batched_stepping_trusts_no_array_python_can_write():
    """The mask and seat arrays are the batch's output: writing into them neither makes an
    illegal action legal nor changes who plays; passing one of them back or making one
    read-only is refused with a reason, never a panic."""
    v = arbiter.vec_game(TS, num_games=2, seed=3)
    before = [v.game(i).state_hash() for i in range(2)]
    illegal = int(np.flatnonzero(~v.mask[0])[0])
    v.mask[0, illegal] = True
    a = v.random_actions()
    a[0] = illegal
    with pytest.raises(arbiter.IllegalMove, match="game 0: action"):
        v.step(a)
    assert [v.game(i).state_hash() for i in range(2)] == before
    v.reset(seed=3)
    w = arbiter.vec_game(TS, num_games=2, seed=3)
    v.seats[:] = 1 - v.seats
    a = w.random_actions()
    v.step(a.copy())
    w.step(a)
    assert [v.game(i).state_hash() for i in range(2)] == [w.game(i).state_hash() for i in range(2)]
    with pytest.raises((ValueError, arbiter.IllegalMove)):
        v.step(v.seats)
    v.mask.flags.writeable = False
    with pytest.raises(ValueError, match="cannot write its arrays"):
        v.step(v.random_actions())


def test_a_reset_with_a_seed_reseeds_the_random_actions():
    v = arbiter.vec_game(TS, num_games=4, seed=9)
    for _ in range(3):
        v.step(v.random_actions())
    v.reset(seed=11)
    w = arbiter.vec_game(TS, num_games=4, seed=11)
    assert np.array_equal(v.random_actions(), w.random_actions())


def test_oversized_batches_and_thread_counts_are_refused_or_clamped():
    with pytest.raises(ValueError, match="a batch holds 1 to"):
        arbiter.vec_game(TS, num_games=2**40)
    v = arbiter.vec_game(MS, num_games=2, seed=1, threads=10**6, **SMALL_BOARD)
    v.step(v.random_actions())


# The environments and their libraries' checkers.


@pytest.mark.parametrize("kind,options", KINDS)
def test_gymnasium_checker_passes(kind, options):
    from gymnasium.utils.env_checker import check_env

    from arbiter.envs import GameEnv

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The checker's own note when an environment is made without gymnasium.make.
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(GameEnv(kind, **options))


@pytest.mark.parametrize("kind,options", KINDS)
def test_each_game_is_registered_with_gymnasium(kind, options):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import arbiter.envs  # noqa: F401  (registers the ids)

    env = gymnasium.make(f"arbiter/{kind}-v0", opponent="random", **options)
    assert env.unwrapped.kind == kind
    check_env(env.unwrapped)
    obs, info = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()


@pytest.mark.parametrize("kind,options", KINDS)
def test_pettingzoo_api_test_passes(kind, options):
    from pettingzoo.test import api_test

    from arbiter.envs import GameAEC

    api_test(GameAEC(kind, **options), num_cycles=500)


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_a_gymnasium_episode_against_an_opponent(opponent):
    from arbiter.envs import GameEnv

    env = GameEnv(TS, seat=1, opponent=opponent)
    obs, info = env.reset(seed=4)
    done, steps, reward = False, 0, 0.0
    rng = np.random.default_rng(0)
    while not done:
        assert env.game.current_seat() == 1
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        assert obs in env.observation_space and not truncated
        steps += 1
    assert reward in (-1.0, 0.0, 1.0) and reward == env.game.returns()[1]
    # An illegal action loses the episode (or raises, if asked).
    env.reset(seed=4)
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, reward, done, _, info = env.step(bad)
    assert reward == -1.0 and done and "illegal" in info
    strict = GameEnv(TS, illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(arbiter.IllegalMove):
        strict.step(int(np.flatnonzero(strict.action_masks() == 0)[0]))


@pytest.mark.parametrize(
    "kind,options", [("mafia", {"seats": 7}), ("mafia", {"seats": 15}), (MS, SMALL_BOARD), ("diplomacy", {"last_year": 1902})]
)
def test_pettingzoo_parallel_api_test_passes(kind, options):
    from pettingzoo.test import parallel_api_test

    from arbiter.envs import GameParallel

    parallel_api_test(GameParallel(kind, **options), num_cycles=1000)


def test_a_parallel_mafia_game_is_won_by_a_whole_side():
    from arbiter.envs import GameParallel

    env = GameParallel("mafia", seats=9)
    rng = np.random.default_rng(5)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        steps = 0
        while env.agents:
            acting = env.game.acting_seats()
            assert len(acting) >= 1
            # At every step of Mafia every living player acts at once.
            assert all(obs[a]["action_mask"].any() == (env._seat[a] in acting) for a in env.agents)
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0 for a, o in obs.items()}
            obs, rewards, terms, _, _ = env.step(actions)
            steps += 1
        assert all(terms.values())
        won = [a for a, r in rewards.items() if r == 1.0]
        lost = [a for a, r in rewards.items() if r == -1.0]
        assert won and lost and len(won) + len(lost) == 9, rewards
        outcome = env.game.outcome()
        assert outcome["reason"] in ("village", "mafia") and steps >= 2


def test_a_parallel_diplomacy_game_orders_from_a_fixed_vocabulary_to_its_end():
    """Seven powers order at once: each step every power that must act gives one order (or
    `done`) from the fixed vocabulary; a mask marks the orders open to it now (the orders of
    each of its units, named by the unit); the game plays to its draw or a win."""
    from arbiter.envs import GameParallel

    env = GameParallel("diplomacy", last_year=1903)
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=1)
    assert len(env.agents) == 7
    actions = env.action_space(env.agents[0]).n
    assert actions > 40000, actions
    first = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
    # Spring 1901: every power orders at once; the same order has the same id in any game.
    assert all(len(ids) > 0 for ids in first.values())
    texts = {env.game.action_text(int(i)) for i in first["france"]}
    assert "A Par - Bur" in texts and "done" in texts
    again = GameParallel("diplomacy", last_year=1903)
    again_obs, _ = again.reset(seed=9)
    assert np.array_equal(np.flatnonzero(again_obs["france"]["action_mask"]), first["france"])
    steps = 0
    while env.agents:
        acting = env.game.acting_seats()
        assert all(obs[a]["action_mask"].any() == (env._seat[a] in acting) for a in env.agents)
        done = env.game.action_id("done")
        actions = {}
        for a, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            # Mostly orders, done one time in four.
            pick = done if done in legal and rng.random() < 0.25 else int(rng.choice(legal)) if len(legal) else 0
            actions[a] = int(pick)
        obs, rewards, terms, _, _ = env.step(actions)
        steps += 1
        assert steps < 5000
    assert all(terms.values())
    outcome = env.game.outcome()
    assert outcome["reason"] in ("draw", "won") and len(outcome["results"]) == 7


def test_a_diplomacy_power_s_mask_splits_into_one_per_unit():
    """The vocabulary's groups are the provinces: a power's mask splits into one per unit it
    must order (by the unit's province), each holding that unit's orders only, which with
    `done` make the whole mask; an ordered unit's group is gone. A game without groups has
    none."""
    from arbiter.envs import GameParallel

    env = GameParallel("diplomacy", last_year=1902)
    obs, _ = env.reset(seed=1)
    g = env.game
    assert len(g.group_names) == 75 and "Par" in g.group_names
    groups = g.action_groups
    assert groups.shape == (g.action_space_size,) and groups.dtype == np.int32 and groups.min() == -1
    masks = env.group_masks("france")
    assert sorted(masks) == ["Bre", "Mar", "Par"]
    for unit, mask in masks.items():
        texts = [g.action_text(int(i)) for i in np.flatnonzero(mask)]
        assert len(texts) > 1 and all(t.split()[1] == unit for t in texts), (unit, texts[:5])
    union = sum(m.astype(int) for m in masks.values())
    union[g.action_id("done")] = 1
    assert np.array_equal(union, obs["france"]["action_mask"].astype(int))
    done = g.action_id("done")
    actions = {a: done for a in env.agents}
    actions["france"] = g.action_id("A Par - Bur")
    env.step(actions)
    assert sorted(env.group_masks("france")) == ["Bre", "Mar"]
    assert env.group_masks("england") == {}, "England is done: it has nothing to order"
    mafia = GameParallel("mafia", seats=5)
    mafia.reset(seed=1)
    assert mafia.game.group_names == [] and mafia.group_masks(mafia.agents[0]) == {}
