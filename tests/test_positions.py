"""Position notation (docs/positions.md): every game writes any position as one line and reads it
back, hidden cards, what each seat has seen and the chance still to come included.

- Round trip over seeded random games of every rule set of every game (and the variants whose fields
  differ: matches, three hands, partnerships): at every position, write -> read -> write gives the
  same text, and the state read shows every seat and the spectator what the original shows; from
  positions spread over each game, the state read plays on exactly like the original (the same legal
  moves, views, events, scores and returns at every step, the same deals to come) and its record
  replays to it.
- Worlds drawn from a state read from a position are positions of their own: their record replays to
  them and carries none of the real position's hidden cards.
- Bad text is refused in one line naming the field (a ``PositionError``, a ``ValueError``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gamester
from gamester.core.errors import PositionError
from gamester.core.protocol import State
from gamester.core.rng import below, make_rng
from gamester.testing import game_specs

VARIANTS = [
    "penneech(objective=deal)",
    "penneech(first_dealer=1,redeal=off,target=31)",
    "piquesept(deals=3,trade_visible=true)",
    "piquesept(players=3,deals=2)",
    "pentyrch(players=2,games=2,max_rounds=30)",
    "pentyrch(games=2,partners=true,max_rounds=12)",
    "pentyrch(players=3,reveal_on_pass=false,games=2,max_rounds=8)",
    "pentyrch(overpay=true,max_rounds=3)",
]
SPECS = [s for name in ("penneech", "piquesept", "pentyrch") for s in game_specs(name)] + VARIANTS


def seen(state: State) -> Any:
    """Everything the protocol shows of a state but its history: every seat's and the spectator's
    view and tensor, whose turn, the legal moves, scores, returns, roles and teams."""
    n = state.game.num_players
    out: dict[str, Any] = {
        "public": state.public_observation(),
        "views": [state.observation(p) for p in range(n)],
        "tensors": [state.observation_tensor(p) for p in range(n)],
        "terminal": state.is_terminal(),
        "scores": state.scores(),
        "returns": state.returns(),
        "roles": state.roles(),
        "teams": state.teams(),
        "summary": gamester.summary(state),
    }
    if not state.is_terminal():
        out["player"] = state.current_player()
        out["legal"] = state.legal_action_strings()
    return out


def advance(state: State, rng: Any, count: int = 1 << 30) -> State:
    """``count`` random legal moves (or to the end)."""
    for _ in range(count):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[below(rng, len(legal))])
    return state


def play_on(a: State, b: State, rng_seed: int) -> None:
    """Random moves played on both: every step must look the same, events included."""
    rng = make_rng(rng_seed)
    while not a.is_terminal():
        assert seen(a) == seen(b)
        legal = a.legal_actions()
        act = legal[below(rng, len(legal))]
        assert [a.action_seen_by(act, v) for v in (None, 0)] == [b.action_seen_by(act, v) for v in (None, 0)]
        a.apply_action(act)
        b.apply_action(act)
        assert [a.last_events_seen_by(v) for v in (None, 0)] == [b.last_events_seen_by(v) for v in (None, 0)]
    assert seen(a) == seen(b)


@pytest.mark.parametrize("spec", SPECS)
def test_every_position_writes_reads_and_writes_the_same(spec: str) -> None:
    game = gamester.load_game(spec)
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        rng = make_rng(seed)
        steps = 0
        while True:
            text = state.position()
            assert "\n" not in text and text.startswith(game.spec())
            again = game.read_position(text)
            assert again.position() == text, f"seed {seed} after {steps} actions"
            assert seen(again) == seen(state), f"seed {seed} after {steps} actions: {text}"
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[below(rng, len(legal))])
            steps += 1


@pytest.mark.parametrize("spec", SPECS)
def test_a_position_read_plays_on_like_the_original(spec: str) -> None:
    game = gamester.load_game(spec)
    rng = make_rng(99)
    state = game.new_initial_state(seed=12)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        actions.append(legal[below(rng, len(legal))])
        state.apply_action(actions[-1])
    stops = sorted({round(k * len(actions) / 4) for k in range(4)})
    for i in stops:
        original = game.new_initial_state(seed=12)
        for a in actions[:i]:
            original.apply_action(a)
        read = gamester.read_position(original.position())
        play_on(original, read, i)
        # Its record starts at the position and replays to the same end, from JSON.
        record = json.loads(json.dumps(read.record()))
        again = gamester.replay(record)
        assert record["position"] and again.record() == record and seen(again) == seen(read)


@pytest.mark.parametrize("spec", ["penneech", "piquesept", "pentyrch", "pentyrch(players=3,games=2)"])
def test_a_record_from_a_position_replays_with_its_own_chance(spec: str) -> None:
    """A record that starts at a position lists the chance after it: replayed, it deals the same."""
    game = gamester.load_game(spec)
    rng = make_rng(4)
    state = advance(game.new_initial_state(seed=4), rng, 9)
    read = advance(game.read_position(state.position()), rng)
    record = read.record()
    assert record["actions"] and record["chance"] is not None
    again = gamester.replay(record)
    assert again.record() == record and seen(again) == seen(read)
    # The chance of the record wins over the position's generator: a pack missing is named.
    if record["chance"]:
        with pytest.raises(gamester.RecordError, match=r"chance\[0\]"):
            gamester.replay({**record, "chance": []})


@pytest.mark.parametrize(
    "spec", ["penneech", "piquesept", "piquesept(players=3)", "pentyrch", "pentyrch(games=2)"]
)
def test_worlds_of_a_position_are_positions_of_their_own(spec: str) -> None:
    """determinize works on a state read from a position; the world's record replays to it and
    names no card the seat has not seen (its position is the world's, not the real one)."""
    game = gamester.load_game(spec)
    state = advance(game.new_initial_state(seed=6), make_rng(6), 14)
    read = game.read_position(state.position())
    seat = read.current_player()
    for k in range(3):
        world = read.determinize(seat, make_rng(k))
        assert world.observation(seat) == read.observation(seat)
        record = world.record()
        again = gamester.replay(record)
        assert again.record() == record and seen(again) == seen(world)
        assert record["position"] != read.position()  # its own cards, not the real ones


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("chess", "unknown game"),
        ("penneech(target=x)", "target"),
        ("penneech dealer=0", "missing"),
        ("penneech dealer=2 deal=0 scores=0,0 dealt=- stock=-", "dealer"),
        ("penneech dealer=0 deal=0 scores=0,0 dealt=AS/KS stock=-", "7 cards"),
        ("penneech colour=red", "unknown field 'colour'"),
        ("penneech dealer=0 dealer=1", "twice"),
        ("penneech dealer", "name=value"),
        ("piquesept dealer=0 deal=0 points=0,0,0 dealt=-", "points"),
        ("pentyrch game=0 seat=0 round=0 moved=0 board=-", "board"),
        ("penneech(target=41) dealer=0", "missing"),
    ],
)
def test_bad_text_is_refused_in_one_line_naming_the_field(text: str, words: str) -> None:
    with pytest.raises(PositionError, match=words) as caught:
        gamester.read_position(text)
    message = str(caught.value)
    assert message.startswith("position:") and "\n" not in message
    assert isinstance(caught.value, ValueError)


def test_a_position_of_another_game_or_options_is_refused() -> None:
    text = gamester.load_game("penneech").new_initial_state(seed=1).position()
    with pytest.raises(PositionError, match="not a piquesept position"):
        gamester.load_game("piquesept").read_position(text)
    with pytest.raises(PositionError, match="not of penneech"):
        gamester.load_game("penneech(target=41)").read_position(text)


def test_plays_are_checked_by_the_rules() -> None:
    """A hand-written position goes through the engine: an illegal play is refused with the rule."""
    state = gamester.load_game("penneech(redeal=off)").new_initial_state(seed=1)
    text = state.position()
    legal = set(state.legal_action_strings())
    bad = next(c for c in state.observation(1 - state.current_player())["hand"] if c not in legal)
    with pytest.raises(PositionError, match=r"^position: plays=.*play 1: .* not in seat"):
        gamester.read_position(text.replace("plays=-", f"plays={bad}"))


# -- the command line (docs/positions.md, On the command line) ------------------------------------
def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from gamester.play.cli import main

    try:
        code = main(list(args))
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_replay_and_review_read_a_position(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    state = gamester.load_game("piquesept").new_initial_state(seed=2)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    text = state.position()
    code, out, _ = _cli(capsys, "replay", "--position", text, "--json")
    assert code == 0 and json.loads(out) == gamester.summary(state)
    path = tmp_path / "p.pos"
    path.write_text(text + "\n")
    code, out, _ = _cli(capsys, "replay", str(path), "--seat", "1", "--json")
    assert code == 0 and json.loads(out)["observation"] == state.observation(1)
    seat = str(state.current_player())
    args = ("review", "--position", text, "--seat", seat, "--worlds", "4", "--agent", "heuristic", "--json")
    code, out, _ = _cli(capsys, *args)
    got = json.loads(out)
    assert code == 0 and got["seat"] == int(seat) and got["position"] == text
    assert sorted(m["action"] for m in got["moves"]) == sorted(state.legal_action_strings())
    assert got["best"] in [m["action"] for m in got["moves"]]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("replay",), "give a record file or --position"),
        (("replay", "--position", "penneech dealer=7"), "position: dealer"),
        (("review", "--position", "chess", "--seat", "0"), "unknown game"),
        (("replay", "nowhere.pos"), "cannot read nowhere.pos"),
    ],
)
def test_a_bad_position_on_the_command_line_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], words: str
) -> None:
    code, out, err = _cli(capsys, *args)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
