"""Gymnasium and PettingZoo environments over any game of the engine.

- `GameEnv`: a Gymnasium environment, one agent at one seat against a built-in opponent at
  every other seat (`"random"`, `"greedy"`, `"computer"`, `"computer:LEVEL"`); registered
  per game as `arbiter/KIND-v0` (`gymnasium.make("arbiter/twilight-struggle-v0")`).
- `GameAEC`: a PettingZoo AEC environment, every seat an agent.

Actions are the game's action ids (`Discrete(action_space_size)`); the legal ones are given
as a mask (`info["action_mask"]` and `action_masks()` in Gymnasium, the observation's
`"action_mask"` in PettingZoo). Observations are the seat's tensor (`Game.observe`), values in
[-1, 1]. Rewards come at the end: +1 a win, -1 a loss, 0 a draw.

An illegal action in `GameEnv` ends the episode, the agent losing (reward -1,
`info["illegal"]` the engine's reason), unless `illegal="raise"`: then it raises
`arbiter.IllegalMove` and nothing changes. In `GameAEC` it raises.
"""

import json

import numpy as np

from . import Game, IllegalMove

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("arbiter.envs needs gymnasium: pip install 'arbiter[envs]'") from e

_SEED_SPAN = 2**63


def _options_json(options):
    return json.dumps(options)


def _obs_space(game):
    return spaces.Box(low=-1.0, high=1.0, shape=tuple(game.observation_shape), dtype=np.float32)


def _mix(*xs):
    """A seed from several numbers (the agent's decisions get their own)."""
    return int(np.random.SeedSequence([int(x) % 2**64 for x in xs]).generate_state(1, np.uint64)[0])


class GameEnv(gymnasium.Env):
    """One seat of a game against built-in opponents at the others."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, kind="twilight-struggle", seat=0, opponent="random", illegal="lose", render_mode=None, **options):
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal is 'lose' or 'raise', not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"the render modes are None and 'ansi', not {render_mode!r}")
        self.kind, self.seat, self.opponent, self.illegal = kind, int(seat), opponent, illegal
        self.render_mode = render_mode
        self._options = _options_json(options)
        self.game = Game(kind, 0, self._options)
        # The episode ended by an illegal action (the game itself goes on): no step until reset.
        self._ended = False
        if not 0 <= self.seat < len(self.game.seats):
            raise ValueError(f"no seat {seat}: the seats are 0 to {len(self.game.seats) - 1} ({', '.join(self.game.seats)})")
        self.action_space = spaces.Discrete(self.game.action_space_size)
        self.observation_space = _obs_space(self.game)
        self._episode_seed = 0

    def _opponents_move(self):
        g = self.game
        while not g.is_over() and g.current_seat() != self.seat:
            m = g.agent_move(self.opponent, _mix(self._episode_seed, len(g.history or ())))
            g.play(m)

    def _info(self):
        g = self.game
        mask = g.action_mask() if not g.is_over() else np.zeros(self.action_space.n, dtype=bool)
        frame = g.frame()
        return {"action_mask": mask.astype(np.int8), "frame": None if frame is None else g.frame_kinds[frame[1]]}

    def action_masks(self):
        """The legal actions now (sb3-contrib's MaskablePPO asks this)."""
        return self._info()["action_mask"].astype(bool)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, _SEED_SPAN))
        self._episode_seed = seed
        self._ended = False
        self.game = Game(self.kind, seed, self._options)
        self._opponents_move()
        return self.game.observe(self.seat), self._info()

    def step(self, action):
        g = self.game
        if g.is_over() or self._ended:
            raise IllegalMove("the episode is over: call reset()")
        try:
            g.play(int(action))
        except IllegalMove as e:
            if self.illegal == "raise":
                raise
            self._ended = True
            info = self._info()
            info["illegal"] = str(e)
            return g.observe(self.seat), -1.0, True, False, info
        self._opponents_move()
        reward = float(g.returns()[self.seat]) if g.is_over() else 0.0
        return g.observe(self.seat), reward, g.is_over(), False, self._info()

    def render(self):
        if self.render_mode == "ansi":
            return json.dumps(self.game.view(self.seat), indent=1)
        return None


def _register():
    """One Gymnasium id per game: `arbiter/twilight-struggle-v0`, `arbiter/minesweeper-v0`
    (`gymnasium.make(id, seat=..., opponent=..., **options)`)."""
    from . import games

    for kind in games():
        env_id = f"arbiter/{kind}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="arbiter.envs:GameEnv", kwargs={"kind": kind})


_register()


try:
    from pettingzoo import AECEnv, ParallelEnv
    from pettingzoo.utils import agent_selector as _agent_selector  # noqa: F401  (checks the install)
except ImportError:  # pragma: no cover
    AECEnv = ParallelEnv = None


def _seat_agents(env, kind, render_mode, options):
    """A PettingZoo environment's game and one agent per seat (named by the seat's id: "us",
    "ussr", "player", "player-3"), each with the action space and a masked observation space."""
    if render_mode not in (None, "ansi"):
        raise ValueError(f"the render modes are None and 'ansi', not {render_mode!r}")
    env.kind, env.render_mode = kind, render_mode
    env._options = _options_json(options)
    env.game = Game(kind, 0, env._options)
    env.possible_agents = ["-".join(s.lower().split()) for s in env.game.seats]
    env._seat = {a: i for i, a in enumerate(env.possible_agents)}
    n = env.game.action_space_size
    env.action_spaces = {a: spaces.Discrete(n) for a in env.possible_agents}
    env.observation_spaces = {
        a: spaces.Dict({"observation": _obs_space(env.game), "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8)})
        for a in env.possible_agents
    }


if AECEnv is not None:

    class GameAEC(AECEnv):
        """Every seat of a game as an agent (named by its seat's id: "us", "ussr", "player")."""

        metadata = {"render_modes": ["ansi"], "name": "arbiter_v0", "is_parallelizable": False}

        def __init__(self, kind="twilight-struggle", render_mode=None, **options):
            super().__init__()
            _seat_agents(self, kind, render_mode, options)

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            seat = self._seat[agent]
            g = self.game
            if not g.is_over() and g.current_seat() == seat:
                mask = g.action_mask().astype(np.int8)
            else:
                mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
            return {"observation": g.observe(seat), "action_mask": mask}

        def reset(self, seed=None, options=None):
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
            self.game = Game(self.kind, int(seed), self._options)
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.possible_agents[self.game.current_seat()]

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self.game.play(int(action), seat=self._seat[agent])
            g = self.game
            if g.is_over():
                returns = g.returns()
                for a in self.agents:
                    self.rewards[a] = float(returns[self._seat[a]])
                    self.terminations[a] = True
            else:
                for a in self.agents:
                    self.rewards[a] = 0.0
                self.agent_selection = self.possible_agents[g.current_seat()]
            self._accumulate_rewards()

        def render(self):
            if self.render_mode == "ansi":
                return json.dumps(self.game.view(None), indent=1)
            return None

        def close(self):
            pass


if ParallelEnv is not None:

    class GameParallel(ParallelEnv):
        """Every seat of a game as an agent, all acting at once: each step takes an action of every
        seat that must act now (several at a simultaneous step: a night of Mafia; one at a turn),
        and ignores the others' (their action masks are all zeros). Every seat stays an agent until
        the game ends (an eliminated seat keeps watching), when each is rewarded its return."""

        metadata = {"render_modes": ["ansi"], "name": "arbiter_parallel_v0"}

        def __init__(self, kind="mafia", render_mode=None, **options):
            _seat_agents(self, kind, render_mode, options)
            self.agents = []
            self._groups = None

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def _observe(self, agent):
            seat = self._seat[agent]
            return {"observation": self.game.observe(seat), "action_mask": self.game.action_mask(seat).astype(np.int8)}

        def group_masks(self, agent):
            """The agent's action mask split by the game's groups of actions: {group name: int8
            mask} for each group with a legal action now (Diplomacy: a mask per unit the power
            orders, by its province, and per province it may build in). The actions of no group
            (Diplomacy's `done`, `waive`) are in no mask here, only in the observation's."""
            names = self.game.group_names
            if not names:
                return {}
            if self._groups is None:
                self._groups = self.game.action_groups
            mask = self.game.action_mask(self._seat[agent])
            legal = np.unique(self._groups[mask])
            return {names[g]: (mask & (self._groups == g)).astype(np.int8) for g in legal if g >= 0}

        def reset(self, seed=None, options=None):
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
            self.game = Game(self.kind, int(seed), self._options)
            self.agents = list(self.possible_agents)
            return {a: self._observe(a) for a in self.agents}, {a: {} for a in self.agents}

        def step(self, actions):
            g = self.game
            # The seats that must act now, each with its action, in the decision's order.
            for seat in list(g.acting_seats()):
                agent = self.possible_agents[seat]
                if g.is_over() or seat not in g.acting_seats():
                    break
                if agent not in actions:
                    raise ValueError(f"{agent} must act now: no action given for it")
                g.play(int(actions[agent]), seat=seat)
            agents = list(self.agents)
            over = g.is_over()
            returns = g.returns()
            rewards = {a: float(returns[self._seat[a]]) if over else 0.0 for a in agents}
            observations = {a: self._observe(a) for a in agents}
            terminations = {a: over for a in agents}
            truncations = {a: False for a in agents}
            infos = {a: {} for a in agents}
            if over:
                self.agents = []
            return observations, rewards, terminations, truncations, infos

        def render(self):
            if self.render_mode == "ansi":
                return json.dumps(self.game.view(None), indent=1)
            return None

        def close(self):
            pass
