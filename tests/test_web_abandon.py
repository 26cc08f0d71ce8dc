"""Abandoned seats, aborts, forfeits and no stuck table (issue 43; docs/web.md, Leaving and abandoned
seats), as the pure decisions of src/gamester/web/absence.py and decisions.py: no database, no server,
time a number.

Every case the room meets: a seat left or gone, at a rated or an unrated table, before or after every
person has moved, every person gone, a seat taken back from its stand-in, a slow table, a game over
when dealt, and what each viewer is told.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from gamester.core.protocol import State
from gamester.core.registry import game_names, load_game
from gamester.store.port import Abandonment, TableRow
from gamester.web import absence, rebuild, slow
from gamester.web import decisions as d
from gamester.web.errors import Refused
from gamester.web.pace import TRICK_HOLD, completes_trick

NOW = 1_000_000.0
GONE = absence.ABANDON_SECONDS
INVITES: dict[str, str] = {}  # the invite codes of the last table seated() made, as its creator got them


def seated(
    seats: list[str],
    *,
    rated: bool = False,
    clock: dict[str, Any] | None = None,
    seed: int = 7,
    game: str = "penneech",
    options: dict[str, Any] | None = None,
    open_: bool = False,
) -> tuple[TableRow, State, list[str]]:
    """A table whose human seats are taken (tokens tok0, tok1…, names P0, P1…; at a rated table each
    an account a0, a1…), playing since NOW."""
    row, state = d.new_table(
        game, options or {}, seats, clock, table_id="t1", seed=seed, now=NOW, access=(open_, False)
    )
    codes = d.issue_invites(row, "creator-secret")["invites"]
    INVITES.clear()
    INVITES.update(codes)
    tokens = []
    for s in row.seats:
        if s.kind == "human":
            tok = f"tok{s.seat}"
            # A slow table seats accounts only (web/slow.py): each its own, its token the same tok N.
            owner = None
            if slow.is_slow(clock):
                owner = d.SeatOwner(f"a{s.seat}", f"P{s.seat}", lambda _t, n: f"tok{n}")
            plan = d.join(row, s.seat, f"P{s.seat}", None, tok, owner, invite=codes.get(str(s.seat)))
            s.name, s.token_hash, s.account = plan.name, d.hash_token(plan.token), plan.account
            tokens.append(tok)
    first = d.starts(row, state, NOW)
    assert first is not False
    row.status, row.deadline, row.moved = "playing", first, NOW
    if rated:
        row.rated = True
        for s in row.seats:
            if s.kind == "human":
                s.account = f"a{s.seat}"
    row.turns_key = "k"
    return row, state, tokens


def decide(
    row: TableRow,
    state: State,
    text: str | None = None,
    *,
    at: float = NOW,
    source: str = "human",
    absent: bool = False,
) -> d.Move:
    """The decision on a move for the seat to move (its first legal move, or ``text``), not stored."""
    legal = text or sorted(state.legal_action_strings())[0]
    p = state.current_player()
    return d.act(row, state, len(state.chance.log), p, legal, row.seq, at, source=source, absent=absent)


def play(
    row: TableRow, state: State, text: str | None = None, *, at: float = NOW, source: str = "human"
) -> State:
    """One move for the seat to move (its first legal move, or ``text``), stored as the room would."""
    move = decide(row, state, text, at=at, source=source)
    d.applied(row, move)
    return move.state


def every_human_moves(row: TableRow, state: State) -> State:
    """Moves until each person at the table has made one of their own."""
    while not all(s.played for s in row.seats if s.kind == "human"):
        p = state.current_player()
        state = play(row, state, source="human" if row.seats[p].kind == "human" else "bot")
    return state


def store(row: TableRow, plan: Abandonment) -> list[dict[str, Any]]:
    """Apply an abandonment as the room does once it is stored: the events every socket is told."""
    before = absence.seat_news(row)
    absence.abandoned(row, plan)
    return absence.seat_events(before, row)


# -- left or gone, unrated: a stand-in plays on ------------------------------------------------------
def test_a_seat_left_unrated_is_played_by_the_lobbys_gentle_bot_and_its_moves_say_so() -> None:
    row, state, _ = seated(["human", "human"])
    leaver = 1 - state.current_player()  # not the one to move: the stand-in plays from its next turn
    plan = absence.abandon(row, state, leaver, "left")
    assert (plan.then, plan.agent, plan.end) == ("bot", "heuristic", None), "the lobby's default: one star"
    assert store(row, plan) == [
        {
            "type": "abandoned",
            "seat": leaver,
            "name": f"P{leaver}",
            "how": "left",
            "then": "bot",
            "agent": "heuristic",
        }
    ]
    s = row.seats[leaver]
    assert s.token_hash is None and s.name == f"P{leaver}", "the token is void, the name stays for the log"
    table = d.public(row, {})
    assert table["abandoned"] == [leaver] and table["status"] == "playing" and table["result"] is None
    assert table["seats"][leaver]["joined"] is False and table["seats"][leaver]["agent"] == "heuristic"
    state = play(row, state)  # the one who stayed moves
    assert d.due(row, state, NOW, here={1 - leaver}).kind == "bot", "the stand-in is to move"
    job = d.job(row, state, "bot")
    assert job is not None and job.spec == "heuristic" and job.player == leaver
    events = decide(row, state, source="bot").frame[d.SPECTATOR][1]
    assert events.startswith(f'[{{"type":"stand_in","seat":{leaver},"agent":"heuristic"}}'), events


def test_the_tables_own_bot_stands_in_before_the_lobbys() -> None:
    row, state, _ = seated(["human", "human", "random", "human"], game="piquesept")
    plan = absence.abandon(row, state, 3, "gone")
    assert (plan.then, plan.agent, plan.keep_account) == ("bot", "random", True)


def test_a_seat_with_no_socket_while_the_game_waits_on_it_is_gone_after_abandon_seconds() -> None:
    row, state, _ = seated(["human", "human"])
    p = state.current_player()
    assert d.due(row, state, NOW, here={p}).kind == "none", "there: nothing to time"
    assert d.due(row, state, NOW, here={1 - p}) == d.Due("wait", NOW + GONE)
    assert d.due(row, state, NOW + GONE - 1, here={1 - p}).kind == "wait"
    assert d.due(row, state, NOW + GONE, here={1 - p}) == d.Due("abandon", seat=p)
    row.seats[p].seen = NOW + 30  # another server saw its socket then
    assert d.due(row, state, NOW + GONE, here={1 - p}) == d.Due("wait", NOW + 30 + GONE)
    # The other seat's absence never counts while the game does not wait on it.
    assert d.due(row, state, NOW + 10 * GONE, here={p}).kind == "none"
    assert d.due(row, state, NOW + GONE, here={}, abandon_seconds=GONE * 2).kind == "wait", "--limits"


def test_the_wait_starts_with_the_turn_not_with_the_last_socket() -> None:
    row, state, _ = seated(["human", "human"])
    p = state.current_player()
    row.seats[1 - p].seen = NOW - 1000  # gone long before its turn came
    state = play(row, state, at=NOW + 50)
    assert state.current_player() == 1 - p
    assert d.due(row, state, NOW + 50, here={p}) == d.Due("wait", NOW + 50 + GONE)


# -- rated: an abort before everyone moved, a forfeit after -----------------------------------------
@pytest.mark.parametrize("how", ["left", "gone"])
def test_rated_before_every_person_moved_is_aborted(how: str) -> None:
    row, state, _ = seated(["human", "human"], rated=True)
    state = play(row, state)  # one of the two has moved, the other not yet
    assert sum(s.played for s in row.seats) == 1
    leaver = state.current_player() if how == "gone" else 1 - state.current_player()
    plan = absence.abandon(row, state, leaver, how)
    assert plan.then == "aborted" and plan.end is not None and plan.end.result == "aborted"
    events = store(row, plan)
    assert events[0]["then"] == "aborted"
    assert row.status == "over" and row.returns is None and row.rating_applied, "no rating moves"
    assert d.result_of(row) == "aborted" and d.public(row, {})["result"] == "aborted"
    assert rebuild.record(row, state)["result"] == {"aborted": True}
    assert row.seats[leaver].account == f"a{leaver}", "the account stays on its seat (its history)"


@pytest.mark.parametrize("how", ["left", "gone"])
def test_rated_after_every_person_moved_the_abandoned_seat_forfeits(how: str) -> None:
    row, state, _ = seated(["human", "human"], rated=True)
    state = every_human_moves(row, state)
    leaver = state.current_player()
    plan = absence.abandon(row, state, leaver, how)
    assert plan.then == "forfeit" and plan.end is not None
    store(row, plan)
    assert row.status == "over" and row.forfeit == leaver and not row.rating_applied, "ratings move"
    assert row.returns is not None and row.returns[leaver] == -1.0 and row.returns[1 - leaver] == 1.0
    assert d.result_of(row) == "forfeit"
    assert rebuild.record(row, state)["result"] == {"forfeit": leaver, "returns": row.returns}
    assert row.seats[leaver].account == f"a{leaver}", "the leaver's account loses"


def test_a_rated_forfeit_at_four_is_a_loss_for_the_leaver_and_a_win_for_each_other() -> None:
    row, state, _ = seated(["human"] * 4, rated=True, game="piquesept")
    state = every_human_moves(row, state)
    plan = absence.abandon(row, state, 2, "left")
    assert plan.end is not None and plan.end.returns == [1 / 3, 1 / 3, -1.0, 1 / 3]


def test_a_bots_moves_do_not_count_as_a_persons_own() -> None:
    row, state, _ = seated(["human", "human"], rated=True, clock={"seconds_per_move": 10})
    p = state.current_player()
    state = play(row, state, source="timeout", at=NOW + 11)  # the best agent moved for p
    state = play(row, state)  # the other moved
    assert not row.seats[p].played and row.seats[1 - p].played
    assert absence.abandon(row, state, p, "gone").then == "aborted"


# -- every person gone ------------------------------------------------------------------------------
def test_an_unrated_table_whose_people_are_all_gone_ends_aborted() -> None:
    row, state, _ = seated(["human", "human"])
    first = absence.abandon(row, state, 0, "left")
    assert first.then == "bot"
    store(row, first)
    last = absence.abandon(row, state, 1, "gone")
    assert last.then == "aborted" and last.agent is None
    assert store(row, last)[0]["then"] == "aborted"
    assert row.status == "over" and d.result_of(row) == "aborted" and d.due(row, state, NOW).kind == "none"
    lone, ls, _ = seated(["human", "random"])
    assert absence.abandon(lone, ls, 0, "left").then == "aborted", "no bot plays on against a bot"


def test_what_cannot_be_abandoned_is_refused() -> None:
    row, state, _ = seated(["human", "random"])
    with pytest.raises(Refused):
        absence.abandon(row, state, 1, "left")  # a bot's seat
    store(row, absence.abandon(row, state, 0, "left"))
    with pytest.raises(Refused):
        absence.abandon(row, state, 0, "left")  # over now


# -- taken back -------------------------------------------------------------------------------------
def test_a_left_seat_is_taken_back_with_its_invite_and_the_stand_in_stops() -> None:
    row, state, tokens = seated(["human", "human"])
    invite = dict(INVITES)
    p = state.current_player()
    store(row, absence.abandon(row, state, p, "left"))  # the seat to move: its stand-in is to move now
    assert d.bot_to_move(row, state)
    with pytest.raises(Refused) as e:  # a person's move for it, before sitting down again
        decide(row, state)
    assert e.value.code == "abandoned"
    with pytest.raises(Refused) as e:
        d.join(row, p, "Cy", None, "new")
    assert e.value.code == "invite_needed"
    with pytest.raises(Refused) as e:
        d.join(row, p, "Cy", None, "new", invite="not-it")
    assert e.value.code == "bad_invite"
    with pytest.raises(Refused):
        d.join(row, p, "Cy", tokens[p], "new")  # the leaver's token is void
    plan = d.join(row, p, "Cy", None, "new", invite=invite[str(p)])
    assert plan.back and plan.new and plan.token == "new" and plan.name == "Cy"
    before = absence.seat_news(row)
    s = row.seats[p]
    s.abandoned, s.agent, s.name, s.token_hash = None, None, plan.name, d.hash_token(plan.token)
    assert absence.seat_events(before, row) == [{"type": "taken_back", "seat": p, "name": "Cy"}]
    assert not d.bot_to_move(row, state) and d.due(row, state, NOW, here={0, 1}).kind == "none"
    with pytest.raises(Refused) as e:  # the stand-in's answer, thought before: too late
        decide(row, state, source="bot")
    assert e.value.code == "stale"


def test_who_may_take_an_abandoned_seat_back() -> None:
    row, state, tokens = seated(["human", "human"], open_=True)
    store(row, absence.abandon(row, state, 0, "left"))
    assert d.join(row, 0, "Anyone", None, "new").back, "an open table: anyone, from the lobby"
    row, state, tokens = seated(["human", "human"])
    store(row, absence.abandon(row, state, 0, "gone"))
    back = d.join(row, 0, None, tokens[0], "unused")
    assert back.back and back.token == tokens[0] and back.name == "P0", "its own player, only gone"
    assert absence.comes_back(row, 0), "or its page reconnecting with the token"
    owner = d.SeatOwner("ann", "Ann", lambda t, n: f"ann-token-{n}")
    row.seats[0].account = "ann"
    assert d.join(row, 0, None, None, "unused", owner).token == "ann-token-0", "its account, any device"
    other = d.SeatOwner("bob", "Bob", lambda t, n: "bob-token")
    with pytest.raises(Refused) as e:
        d.join(row, 0, None, None, "unused", other)
    assert e.value.code == "invite_needed", "the creator's own seat had no invite: nobody else"
    row, state, _ = seated(["human", "human"], open_=True)
    row.seats[1].account = "cy"
    store(row, absence.abandon(row, state, 0, "left"))
    with pytest.raises(Refused) as e:  # an open table, but one who blocks (or is blocked by) Cy
        d.join(row, 0, None, None, "unused", d.SeatOwner("dee", "Dee", lambda t, n: "x", frozenset({"cy"})))
    assert e.value.code == "blocked"
    hours = {"seconds_per_move": 6 * 3600, "on_timeout": "bot"}
    row, state, _ = seated(["human", "human"], clock=hours, open_=True)
    store(row, absence.abandon(row, state, 0, "left"))
    with pytest.raises(Refused) as e:
        d.join(row, 0, "Guest", None, "unused")
    assert e.value.code == "account_needed", "a slow table: accounts only, taken back too"
    rated, rs, _ = seated(["human", "human"], rated=True)
    store(rated, absence.abandon(rated, rs, 0, "left"))
    with pytest.raises(Refused):
        d.join(rated, 0, None, None, "unused", owner)  # a rated table ended when the seat was abandoned


def test_a_seat_left_never_comes_back_by_its_token() -> None:
    row, state, _ = seated(["human", "human"])
    store(row, absence.abandon(row, state, 0, "left"))
    assert not absence.comes_back(row, 0) and d.authenticate(row, "tok0") is None


# -- slow tables ------------------------------------------------------------------------------------
def test_a_slow_clock_waits_for_its_player_without_counting_absence() -> None:
    days = {"seconds_per_move": 3 * 24 * 3600, "on_timeout": "forfeit"}
    row, state, _ = seated(["human", "human"], clock=days)
    assert not absence.counts_absence(row, GONE)
    p = state.current_player()
    due = d.due(row, state, NOW + 10 * GONE, here=set())
    assert due == d.Due("wait", row.deadline), "only the clock decides: a day later still waiting"
    assert d.due(row, state, NOW + days["seconds_per_move"] + 1, here=set()).kind == "forfeit"
    assert p == state.current_player()


def test_a_short_clock_counts_absence_over_the_turns_that_ran_out() -> None:
    """40 s a move, 90 s allowed: two turns run out (80 s), the third reaches 90 s 10 s in, but
    nobody is abandoned while a clock runs: at the end of that turn, instead of the clock's move."""
    clock = {"seconds_per_move": 40, "on_timeout": "bot"}
    row, state, _ = seated(["human", "human"], clock=clock)
    assert absence.counts_absence(row, GONE)
    p = state.current_player()
    waited = 0.0
    for turn in range(3):
        assert state.current_player() == p and row.deadline is not None and row.moved is not None
        at, since = row.deadline, row.moved
        due = d.due(row, state, at, here={1 - p})
        if turn == 2:  # 90 s of waiting on it, its three turns together: gone, once its clock ran out
            assert d.due(row, state, since + 15, here={1 - p}) == d.Due("wait", at)
            assert due == d.Due("abandon", seat=p)
            break
        assert due.kind == "timeout"
        move = decide(row, state, at=at, source="timeout", absent=True)
        d.applied(row, move)
        state = move.state
        waited += at - since
        assert row.seats[p].waited == pytest.approx(waited)
        while state.current_player() != p:  # the other answers at once
            state = play(row, state, at=at)
    assert row.deadline is not None
    row.seats[p].seen, row.seats[p].waited = row.moved, 0.0  # its socket came back: counted afresh
    assert d.due(row, state, row.deadline, here={1 - p}).kind == "timeout"


# -- no stuck table ---------------------------------------------------------------------------------
def _dealt_over_seed(game: str, options: dict[str, Any]) -> int:
    g = load_game(game, **options)
    return next(s for s in range(500) if g.new_initial_state(seed=s).is_terminal())


@pytest.mark.parametrize("rated", [False, True])
def test_a_game_over_when_dealt_ends_at_once(rated: bool) -> None:
    options = {"target": 1}
    seed = _dealt_over_seed("penneech", options)
    row, state = d.new_table(
        "penneech", options, ["human", "random"], None, table_id="t", seed=seed, now=NOW, rated=rated
    )
    assert row.status == "over" and row.deadline is None and d.due(row, state, NOW).kind == "none"
    if rated:
        assert d.result_of(row) == "aborted" and row.returns is None and row.rating_applied, (
            "nobody played it"
        )
    else:
        assert d.result_of(row) == "played" and row.returns == list(state.returns())
    bots, _ = d.new_table("penneech", options, ["random", "random"], None, table_id="b", seed=seed, now=NOW)
    assert bots.status == "over"
    stuck, ss, _ = seated(["human", "human"], options={"target": 5})  # a row made before this rule
    ss = load_game("penneech", target=1).new_initial_state(seed=seed)
    assert d.due(stuck, ss, NOW).kind == "over", "a table still playing a finished game ends"


def _something_moves_it_on(row: TableRow, state: State, now: float) -> bool:
    """Whether the runner of this table has something to do now or at a time it knows, with nobody
    connected (the worst case)."""
    due = d.due(row, state, now, here=())
    if due.kind == "wait":
        assert due.at is not None and due.at <= now + absence.ABANDON_SECONDS + 7 * 24 * 3600
    return due.kind != "none"


@pytest.mark.parametrize("game", game_names())
def test_no_table_is_stuck_over_many_seeds_and_small_targets(game: str) -> None:
    """Every playing table, at every position of random games from many seeds with the smallest
    targets a web table may have, has something that moves it on: a bot, a clock, or the wait on an
    absent seat; a game over when dealt is over at once."""
    smallest = {"penneech": {"target": 1}, "piquesept": {"deals": 1}, "pentyrch": {"max_rounds": 4}}
    small = smallest.get(game, {})
    n = load_game(game, **small).num_players
    rng = random.Random(43)
    over_at_deal = 0
    for seed in range(60):
        kinds = ["human"] + ["random" if rng.random() < 0.5 else "human" for _ in range(n - 1)]
        row, state = d.new_table(game, small, kinds, None, table_id="t", seed=seed, now=NOW)
        if row.status == "over":
            over_at_deal += 1
            assert state.is_terminal()
            continue
        row.status, row.moved = "playing", NOW
        for s in row.seats:
            if s.kind == "human":
                s.name, s.token_hash = "P", d.hash_token(f"t{s.seat}")
        steps = 0
        while row.status == "playing" and steps < 400:
            assert _something_moves_it_on(row, state, NOW), (game, seed, row.seq)
            state = play(
                row,
                state,
                rng.choice(sorted(state.legal_action_strings())),
                source="bot" if d.bot_to_move(row, state) else "human",
            )
            steps += 1
        if row.status == "over":
            assert state.is_terminal() and row.returns == list(state.returns())
    if game == "penneech":
        assert over_at_deal > 0, "target 1 is reached by some deals themselves"


# -- the trick's hold and the clock -----------------------------------------------------------------
def test_a_clock_after_a_completed_trick_starts_once_the_pages_have_held_it() -> None:
    row, state, _ = seated(["human", "human"], clock={"seconds_per_move": 30})
    for _ in range(200):
        move = decide(row, state)
        d.applied(row, move)
        trick = completes_trick(move.state.last_events_seen_by(None))
        if move.status == "playing":
            assert row.deadline == NOW + 30 + (TRICK_HOLD if trick else 0.0)
        state = move.state
        if trick:
            return
    raise AssertionError("no trick completed")
