"""``notebook``'s ``envelope_candidates``: what its notebook still leaves possible for the envelope,
read from its own view (R31) without changing what it does."""

from __future__ import annotations


def test_reading_a_notebook_changes_nothing_it_does():
    """Reading a notebook's envelope candidates from outside leaves its play as it was."""
    import clue_env
    from agents import make_agent

    def play(read: bool) -> list[int]:
        env = clue_env.raw_env(num_players=3, rules="classic")
        env.reset(seed=3)
        agents = [make_agent("notebook", seat=i, num_players=3, rules="classic", seed=i) for i in range(3)]
        for a in agents:
            a.reset()
        actions = []
        while not env.game.over:
            seat = env.game.acting
            name = env.possible_agents[seat]
            if read:
                for j, a in enumerate(agents):
                    a.envelope_candidates(env.infos[env.possible_agents[j]]["seat_view"])
            act = agents[seat].act(env.observe(name), env.infos[name])
            actions.append(act)
            env.step(act)
        return actions

    assert play(True) == play(False)
