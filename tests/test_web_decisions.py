"""A live table's decisions (src/gamester/web/decisions.py), with no database, no server, no clock.

Each test builds a row and a state by hand and calls the pure functions the room applies: what they
return is what the room writes and pushes. Time is a number handed in.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict
from typing import Any

import pytest

from gamester.core.protocol import State
from gamester.core.registry import load_game
from gamester.store.port import NO_RUNNER, SeatRow, TableRow
from gamester.web import decisions as d
from gamester.web.decisions import SPECTATOR
from gamester.web.errors import Refused

NOW = 1_000_000.0


def table(
    seats: list[str],
    *,
    clock: dict[str, Any] | None = None,
    seed: int = 7,
    game: str = "penneech",
    options: dict[str, Any] | None = None,
) -> tuple[TableRow, State]:
    row, state = d.new_table(game, options or {}, seats, clock, table_id="t1", seed=seed, now=NOW)
    return row, state


def seated(seats: list[str], **kw: Any) -> tuple[TableRow, State, list[str]]:
    """A table whose human seats are all taken (tokens t0, t1, ...): playing."""
    row, state = table(seats, **kw)
    tokens = []
    for s in row.seats:
        if s.kind == "human":
            tok = f"tok{s.seat}"
            plan = d.join(row, s.seat, f"P{s.seat}", None, tok)
            s.name, s.token_hash = plan.name, d.hash_token(plan.token)
            tokens.append(tok)
    first = d.starts(row, state, NOW)
    assert first is not False
    row.status, row.deadline = "playing", first
    return row, state, tokens


def mover(row: TableRow, state: State) -> tuple[int, str]:
    p = state.current_player()
    return p, sorted(state.legal_action_strings())[0]


# -- a new table ----------------------------------------------------------------------------------
def test_a_table_of_humans_waits_and_a_table_of_bots_plays() -> None:
    row, _ = table(["human", "human"])
    assert row.status == "waiting" and row.deadline is None and row.seq == 0
    bots, _ = table(["random", "random"])
    assert bots.status == "playing"


def test_what_needs_a_runner_is_decided_once_and_stored() -> None:
    # issue 21: the rule "a bot seat or a clock needs a runner" lives here, not in SQL
    humans, _ = table(["human", "human"])
    assert not d.needs_runner(humans) and humans.lease_owner == NO_RUNNER
    clocked, _ = table(["human", "human"], clock={"seconds_per_move": 30})
    assert d.needs_runner(clocked) and clocked.lease_owner is None
    bot, _ = table(["human", "random"])
    assert d.needs_runner(bot) and bot.lease_owner is None


@pytest.mark.parametrize(
    ("seats", "clock", "code"),
    [
        (["human"], None, "bad_seats"),
        (["human", "no-such-agent"], None, "bad_seats"),
        (["human", "human"], {"seconds_per_move": 0}, "bad_clock"),
        (["human", "human"], {"seconds_per_move": 5, "x": 1}, "bad_clock"),
        (["human", "human"], {"seconds_per_move": 5, "on_timeout": "nap"}, "bad_clock"),
        (["human", "human"], "fast", "bad_clock"),
    ],
)
def test_bad_tables_are_refused_with_one_line(seats: list[str], clock: Any, code: str) -> None:
    with pytest.raises(Refused) as e:
        table(seats, clock=clock)
    assert e.value.code == code and "\n" not in e.value.message


# -- joining and leaving --------------------------------------------------------------------------
def test_the_table_starts_when_no_human_seat_is_free() -> None:
    # issue 21: waiting -> playing, formerly inside the repository's SQL
    row, state = table(["human", "human"], clock={"seconds_per_move": 30})
    assert d.starts(row, state, NOW) is False
    row.seats[0].token_hash = "h0"
    assert d.starts(row, state, NOW) is False
    row.seats[1].token_hash = "h1"
    first = d.starts(row, state, NOW)
    assert first == NOW + 30, "the first human to move gets the clock"
    row.status = "playing"
    assert d.starts(row, state, NOW) is False, "a playing table does not start again"


def test_join_refuses_taken_bot_and_out_of_range_seats() -> None:
    row, _ = table(["human", "random"])
    for seat, code in ((1, "seat_taken"), (2, "bad_seat"), (True, "bad_seat"), ("0", "bad_seat")):
        with pytest.raises(Refused) as e:
            d.join(row, seat, "Ann", None, "new")
        assert e.value.code == code
    plan = d.join(row, 0, "  Ann   Lee ", None, "new")
    assert plan.new and plan.name == "Ann Lee" and plan.token == "new"
    row.seats[0].token_hash = d.hash_token("new")
    with pytest.raises(Refused) as e:
        d.join(row, 0, "Bob", None, "other")
    assert e.value.code == "seat_taken"
    again = d.join(row, 0, None, "new", "unused")
    assert not again.new and again.token == "new", "a seat's own token joins again without a write"
    with pytest.raises(Refused) as e:
        d.join(row, 0, None, "wrong", "unused")
    assert e.value.code == "bad_token"


def test_leave_voids_the_token_for_acts() -> None:
    row, state, tokens = seated(["human", "human"])
    seat, held = d.leave(row, tokens[0])
    assert seat == 0 and held == d.hash_token(tokens[0])
    row.seats[0].token_hash = None
    with pytest.raises(Refused) as e:
        d.leave(row, tokens[0])
    assert e.value.code == "bad_token"
    assert not d.holds(row, 0, held)
    if state.current_player() == 0:
        with pytest.raises(Refused) as e:
            d.act(row, state, 0, 0, mover(row, state)[1], 0, NOW, token_hash=held)
        assert e.value.code == "left"


# -- moves ----------------------------------------------------------------------------------------
def test_act_returns_the_write_and_leaves_the_state_alone() -> None:
    row, state, tokens = seated(["human", "human"], clock={"seconds_per_move": 30})
    p, text = mover(row, state)
    before = state.clone().record()
    move = d.act(
        row, state, len(state.chance.entries()), p, text, 0, NOW + 5, token_hash=d.hash_token(tokens[p])
    )
    assert state.record() == before, "the decision works on a copy"
    assert move.seq == 0 and move.text == text and move.status == "playing"
    assert move.state.record()["actions"] == [text]
    nxt = move.state.current_player()
    assert move.deadline == (NOW + 5 + 30 if row.seats[nxt].kind == "human" else None)
    d.applied(row, move)
    assert row.seq == 1 and row.deadline == move.deadline


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"seq": 3}, "stale"),
        ({"seq": "0"}, "bad_message"),
        ({"text": ""}, "bad_message"),
        ({"text": "x" * 100}, "bad_message"),
        ({"text": "ZZZ"}, "illegal_action"),
        ({"other": True}, "not_your_turn"),
    ],
)
def test_act_refusals(change: dict[str, Any], code: str) -> None:
    row, state, _ = seated(["human", "human"])
    p, text = mover(row, state)
    player = 1 - p if change.get("other") else p
    with pytest.raises(Refused) as e:
        d.act(row, state, 0, player, change.get("text", text), change.get("seq", 0), NOW)
    assert e.value.code == code


def test_no_move_while_waiting_or_over() -> None:
    row, state = table(["human", "human"])
    p, text = mover(row, state)
    with pytest.raises(Refused) as e:
        d.act(row, state, 0, p, text, 0, NOW)
    assert e.value.code == "not_playing"
    row.status = "over"
    with pytest.raises(Refused) as e:
        d.act(row, state, 0, p, text, 0, NOW)
    assert e.value.code == "game_over"


def test_a_timeout_move_only_once_the_clock_ran_out() -> None:
    row, state, _ = seated(["human", "human"], clock={"seconds_per_move": 30})
    p, text = mover(row, state)
    with pytest.raises(Refused) as e:
        d.act(row, state, 0, p, text, 0, NOW + 29, source="timeout")
    assert e.value.code == "stale"
    assert d.act(row, state, 0, p, text, 0, NOW + 31, source="timeout").text == text


def test_a_whole_game_through_the_decisions_ends_with_returns() -> None:
    row, state, tokens = seated(["human", "human"])
    chance_len = len(state.chance.entries())
    for _ in range(2000):
        if row.status == "over":
            break
        p, text = mover(row, state)
        move = d.act(row, state, chance_len, p, text, row.seq, NOW, token_hash=d.hash_token(tokens[p]))
        if move.chance is not None:
            assert move.chance == d.chance_of(move.state)
        d.applied(row, move)
        state, chance_len = move.state, move.chance_len
    assert row.status == "over" and row.returns == list(state.returns()) and row.deadline is None
    assert d.record(row, state)["actions"] == state.record()["actions"]


# -- what is due ----------------------------------------------------------------------------------
def test_due_bot_wait_timeout_forfeit_none() -> None:
    humans, hs, _ = seated(["human", "human"])
    assert d.due(humans, hs, NOW).kind == "none", "nothing runs for humans without a clock"
    bots, bs = table(["random", "random"])
    assert d.due(bots, bs, NOW).kind == "bot"
    clocked, cs, _ = seated(["human", "human"], clock={"seconds_per_move": 30})
    due = d.due(clocked, cs, NOW)
    assert due.kind == "wait" and due.at == NOW + 30
    assert d.due(clocked, cs, NOW + 31).kind == "timeout"
    job = d.job(clocked, cs, "timeout")
    assert job is not None and job.player == cs.current_player() and job.seq == 0
    forfeit, fs, _ = seated(["human", "human"], clock={"seconds_per_move": 30, "on_timeout": "forfeit"})
    assert d.due(forfeit, fs, NOW + 31).kind == "forfeit"
    assert d.forfeit(forfeit, fs, NOW + 29) is None
    end = d.forfeit(forfeit, fs, NOW + 31)
    assert end is not None
    returns, loser = end
    assert loser == fs.current_player() and returns[loser] == -1.0 and returns[1 - loser] == 1.0
    clocked.status = "over"
    assert d.due(clocked, cs, NOW + 31).kind == "none"


def test_a_bot_job_carries_only_the_record_and_its_seat() -> None:
    row, state = table(["random", "heuristic"])
    job = d.job(row, state, "bot")
    assert job is not None and job.player == state.current_player()
    assert job.spec == row.seats[job.player].agent and job.record == state.record()
    row.status = "waiting"
    assert d.job(row, state, "bot") is None


# -- what viewers see -----------------------------------------------------------------------------
def test_frames_give_each_seat_its_own_view_and_the_spectator_the_public_one() -> None:
    row, state, _ = seated(["human", "human"])
    f = d.frame(state, None, None, 2)
    assert set(f) == {0, 1, SPECTATOR}
    for seat in (0, 1):
        assert json.loads(f[seat][0]) == json.loads(d.dumps(state.observation(seat)))
    assert json.loads(f[SPECTATOR][0]) == json.loads(d.dumps(state.public_observation()))
    p = state.current_player()
    assert json.loads(f[p][2]) == sorted(state.legal_action_strings())
    assert f[1 - p][2] == "[]" and f[SPECTATOR][2] == "[]", "only the seat to move gets legal moves"


@pytest.mark.parametrize("players", [4, 2])
def test_pentyrch_views_carry_the_parts_of_the_legal_moves_to_the_mover_only(players: int) -> None:
    """docs/web.md, "moves": beside ``legal``, each legal move's parts (``Game.action_parts`` of that
    very string), in the same order; no ``moves`` where ``legal`` is empty (other seats, the
    spectator, a table no longer playing)."""
    row, state, _ = seated(["human"] * players, game="pentyrch", options={"players": players})
    rng = random.Random(players)
    frames: OrderedDict[int, d.Frame] = OrderedDict()
    before: State | None = None
    action: int | None = None
    kinds: set[str] = set()
    for seq in range(80):
        row.seq = seq
        d.keep(frames, seq, d.frame(state, before, action, players))
        for v in d.viewers(players):
            got = d.view_text(row, state, frames, seq, v, NOW)
            assert got is not None
            msg = json.loads(got[0])
            if not msg["legal"]:
                assert "moves" not in msg, (seq, v)
                continue
            assert v == state.current_player() and list(msg)[:6] == [
                "type",
                "seq",
                "status",
                "view",
                "legal",
                "moves",
            ]
            assert msg["moves"] == [state.game.action_parts(a) for a in msg["legal"]]
            assert all(m is not None for m in msg["moves"])
            kinds |= {m["kind"] for m in msg["moves"]}
        if state.is_terminal():
            break
        before, action = state, rng.choice(state.legal_actions())
        state = state.clone()
        state.apply_action(action)
    assert {"step", "enter"} <= kinds
    row.status = "over"
    for v in d.viewers(players):
        got = d.view_text(row, state, frames, row.seq, v, NOW)
        assert got is not None and "moves" not in json.loads(got[0])


@pytest.mark.parametrize("game", ["penneech", "piquesept"])
def test_games_without_move_parts_send_no_moves(game: str) -> None:
    n = 2 if game == "penneech" else 4
    row, state, _ = seated(["human"] * n, game=game)
    frames: OrderedDict[int, d.Frame] = OrderedDict()
    d.keep(frames, 0, d.frame(state, None, None, n))
    for v in d.viewers(n):
        got = d.view_text(row, state, frames, 0, v, NOW)
        assert got is not None and "moves" not in json.loads(got[0])
    assert d.hint_parts(state.game, sorted(state.legal_action_strings())[0]) == {}


def test_a_pentyrch_hint_carries_the_parts_of_its_move() -> None:
    _, state, _ = seated(["human"] * 4, game="pentyrch")
    for a in state.legal_action_strings():
        assert d.hint_parts(state.game, a) == {"move": state.game.action_parts(a)}
    assert d.hint_parts(state.game, "an illegal move") == {}


def test_view_text_is_the_frame_with_the_table_around_it() -> None:
    row, state, _ = seated(["human", "human"], clock={"seconds_per_move": 30})
    frames: OrderedDict[int, d.Frame] = OrderedDict()
    d.keep(frames, 0, d.frame(state, None, None, 2))
    got = d.view_text(row, state, frames, 0, SPECTATOR, NOW + 10)
    assert got is not None
    msg = json.loads(got[0])
    assert msg["type"] == "view" and msg["seq"] == 0 and msg["status"] == "playing" and msg["seat"] is None
    assert msg["clock"]["remaining"] == 20.0 and msg["clock"]["seat"] == state.current_player()
    assert d.view_text(row, state, frames, 5, 0, NOW) is None, "a frame not kept is not made up"
    first = frames[0]
    for i in range(1, 20):
        d.keep(frames, i, first)
    assert len(frames) == d.KEEP_FRAMES and min(frames) == 20 - d.KEEP_FRAMES


def test_public_shows_who_joined_and_who_is_connected_never_tokens() -> None:
    row, _, _ = seated(["human", "random"])
    info = d.public(row, {0: 1})
    assert [s["joined"] for s in info["seats"]] == [True, True]
    assert [s["connected"] for s in info["seats"]] == [True, True]
    assert not d.public(row, {})["seats"][0]["connected"]
    assert "tok0" not in json.dumps(info) and d.hash_token("tok0") not in json.dumps(info)


def test_hints_only_for_the_seat_to_move_at_the_current_seq() -> None:
    row, state, _ = seated(["human", "human"])
    p = state.current_player()
    d.check_hint(row, state, p, 0)
    for player, seq, code in ((1 - p, 0, "not_your_turn"), (p, 1, "stale"), (p, None, "bad_message")):
        with pytest.raises(Refused) as e:
            d.check_hint(row, state, player, seq)
        assert e.value.code == code


def test_record_and_replay_only_once_over() -> None:
    row, state, _ = seated(["human", "human"])
    with pytest.raises(Refused) as e:
        d.record(row, state)
    assert e.value.code == "not_over"
    with pytest.raises(Refused) as e:
        d.check_replay_seat(row, 9)
    assert e.value.code == "bad_seat"


def test_the_initial_state_is_the_seeds() -> None:
    row, state = table(["human", "human"], seed=11)
    again = load_game("penneech").new_initial_state(seed=11)
    assert state.record() == again.record() and row.chance == d.chance_of(again)
    assert isinstance(row.seats[0], SeatRow)


# -- issue 22: the creator's seat, expiry ---------------------------------------------------------
def test_the_creator_is_seated_in_the_new_row() -> None:
    row, _ = d.new_table(
        "penneech",
        {},
        ["human", "human"],
        None,
        table_id="t",
        seed=1,
        now=NOW,
        creator={"seat": 1},
        token="c",
    )
    assert row.seats[1].token_hash == d.hash_token("c") and row.seats[1].name == "Player 2"
    assert row.seats[0].token_hash is None and row.status == "waiting"
    alone, _ = d.new_table(
        "penneech",
        {},
        ["human", "random"],
        None,
        table_id="t",
        seed=1,
        now=NOW,
        creator={"seat": 0},
        token="c",
    )
    assert alone.status == "playing", "no human seat left free: the table starts"
    with pytest.raises(Refused) as e:
        d.new_table(
            "penneech", {}, ["human", "random"], None, table_id="t", seed=1, now=NOW, creator={"seat": 1}
        )
    assert e.value.code == "bad_join", "a creator needs a token"


def test_only_a_waiting_table_nobody_but_its_creator_joined_or_watched_expires() -> None:
    row, _ = table(["human", "human", "human", "human"], game="piquesept")
    assert not d.expires(row, False, NOW + 59, 60)
    assert d.expires(row, False, NOW + 61, 60)
    assert not d.expires(row, True, NOW + 61, 60), "watched"
    row.seats[0].token_hash = "h"
    assert d.expires(row, False, NOW + 61, 60), "its creator alone, gone from the page (issue 22)"
    row.seats[1].token_hash = "h2"
    assert not d.expires(row, False, NOW + 61, 60), "two have sat down"
    row.seats[0].token_hash = row.seats[1].token_hash = None
    row.status = "playing"
    assert not d.expires(row, False, NOW + 61, 60), "playing"
