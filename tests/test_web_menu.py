"""The web's menu of computer players (docs/web.md, "The computer players" and "On the internet"):
``learned`` is offered in every game whose options it can play, a seat it cannot play is refused at
table creation with one clear 422, and a table with a ``learned`` bot plays to the end on the server."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from gamester.agents import View, agent_refuses, best_agent_spec, make_agent  # noqa: E402
from gamester.agents import learned as learned_module  # noqa: E402
from gamester.core.record import replay  # noqa: E402
from gamester.core.registry import load_game  # noqa: E402
from gamester.web.menu import MEASURED, MenuError, agent_menu, caps_json, check_options, check_seat  # noqa: E402
from tests.web_helpers import client_on, join, new_table, play_seat  # noqa: E402

pytestmark = pytest.mark.timeout(180)
GAMES = ("penneech", "piquesept", "pentyrch")


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_on(tmp_path_factory.mktemp("web") / "menu.db") as client:
        yield client


@pytest.fixture
def four_hand_weights_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[TestClient]:
    """A server whose only Piquesept weights are the four-hand ones (as before piquesept-3p.npz
    shipped), so that ``learned`` cannot play three hands: the case every refusal below needs."""
    from gamester.web import menu

    monkeypatch.setattr(
        learned_module, "shipped_model_paths", lambda name: [learned_module.shipped_model_path(name)]
    )
    menu._menu.cache_clear()
    try:
        with client_on(tmp_path / "four.db") as client:
            yield client
    finally:
        menu._menu.cache_clear()


def _menus(c: TestClient) -> dict[str, dict[str, dict[str, Any]]]:
    games = c.get("/api/games").json()["games"]
    return {g["name"]: {a["spec"]: a for a in g["agents"]} for g in games if g["name"] in GAMES}


def test_learned_is_on_every_game_s_menu_with_what_it_cannot_play(c: TestClient) -> None:
    menus = _menus(c)
    assert set(menus) == set(GAMES)
    for name, menu in menus.items():
        assert "learned" in menu, name
        assert all(isinstance(a["cannot_play"], list) for a in menu.values())
    # Piquesept ships weights for four hands and for three (piquesept-3p.npz); Pentyrch's observation
    # is the same for 2, 3 and 4 players, so its model plays them all: nothing is ruled out.
    assert all(not a["cannot_play"] for m in menus.values() for a in m.values())


def test_an_option_the_weights_cannot_read_is_ruled_out_on_the_menu(
    four_hand_weights_only: TestClient,
) -> None:
    menus = _menus(four_hand_weights_only)
    refused = menus["piquesept"]["learned"]["cannot_play"]
    assert [r["options"] for r in refused] == [{"players": 3}]
    assert "trained on 'piquesept'" in refused[0]["why"] and "players=3" in refused[0]["why"]
    assert menus["pentyrch"]["learned"]["cannot_play"] == []


def test_the_stars_follow_the_measurements(c: TestClient) -> None:
    """Stars: 0 random, 1 the heuristic's level, 3 the best agent at about a second a move; an agent the
    measurements do not separate from the heuristic has the heuristic's stars."""
    for name, menu in _menus(c).items():
        stars = {s.split(":")[0]: a["strength"] for s, a in menu.items()}
        assert stars["random"] == 0 and stars["heuristic"] == 1
        assert menu[best_agent_spec(name)]["strength"] == 3 == max(stars.values())
        assert stars["learned"] == MEASURED[name]["learned"]
        assert stars["ismcts"] == MEASURED[name]["ismcts"]
        assert list(menu) == sorted(menu, key=lambda s: menu[s]["strength"])  # weakest first


@pytest.mark.parametrize("options", [{"ruleset": "three_hand"}, {"players": 3}])
def test_a_learned_seat_the_options_rule_out_is_refused_with_the_reason(
    four_hand_weights_only: TestClient, options: dict[str, Any]
) -> None:
    c = four_hand_weights_only
    r = c.post(
        "/api/tables",
        json={
            "game": "piquesept",
            "options": options,
            "seats": ["human", "learned", "heuristic"],
            "clock": None,
        },
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["error"] == "bad_seats"
    assert body["message"].startswith("seats[1]: learned cannot play these options: the learned model")
    assert "'piquesept(players=3)'" in body["message"] and "\n" not in body["message"]
    # The same seat at the four-hand table is taken.
    tid = new_table(c, "piquesept", ["human", "learned", "heuristic", "heuristic"])
    assert [s["kind"] for s in c.get(f"/api/tables/{tid}").json()["seats"]] == ["human", "bot", "bot", "bot"]


def test_a_three_hand_table_seats_learned_from_its_own_weights(c: TestClient) -> None:
    tid = new_table(c, "piquesept", ["human", "learned", "heuristic"], {"players": 3})
    assert [s["kind"] for s in c.get(f"/api/tables/{tid}").json()["seats"]] == ["human", "bot", "bot"]


def test_the_seat_check_asks_the_agent_without_loading_its_weights(
    four_hand_weights_only: TestClient,
) -> None:
    """The web process reads the model's metadata only: no weights are loaded to check a seat."""
    learned_module._CACHE.clear()
    three = load_game("piquesept", players=3)
    with pytest.raises(MenuError, match="learned cannot play these options"):
        check_seat(three, "learned", agent_menu("piquesept"))
    check_seat(load_game("piquesept"), "learned", agent_menu("piquesept"))
    assert learned_module._CACHE == {}
    # A model file is not a spec a stranger may give: it is a parameter the menu does not list.
    with pytest.raises(MenuError, match="parameter 'model' cannot be set here"):
        check_seat(load_game("penneech"), "learned:model=/etc/passwd", agent_menu("penneech"))
    # Agents that say nothing about their limits play every option.
    assert agent_refuses("heuristic", three) is None and agent_refuses("random", three) is None


def _wait_over(c: TestClient, tid: str, seconds: float = 150) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while (info := c.get(f"/api/tables/{tid}").json())["status"] != "over":
        assert time.monotonic() < end, "the table did not finish"
        time.sleep(0.1)
    return dict(info)


def _learned_moves_are_the_agent_s(record: dict[str, Any], seats: list[int]) -> int:
    """Every move of the ``learned`` seats in a finished table's record is the one ``learned`` (which
    is deterministic) chooses from that seat's view; returns how many there were."""
    state = replay({**record, "actions": []})
    agent = make_agent("learned", game=state.game)
    n = 0
    for action in record["actions"]:
        p = state.current_player()
        a = state.string_to_action(action)
        if p in seats:
            assert agent.step(View(state, p)) == a
            n += 1
        state.apply_action(a)
    assert state.is_terminal()
    return n


def test_a_bot_table_with_learned_seats_plays_to_the_end(c: TestClient) -> None:
    tid = new_table(c, "piquesept", ["learned", "heuristic", "learned", "heuristic"])
    info = _wait_over(c, tid)
    assert [s["agent"] for s in info["seats"]][:2] == ["learned", "heuristic"]
    record = c.get(f"/api/tables/{tid}/record").json()
    assert _learned_moves_are_the_agent_s(record, [0, 2]) > 0


def test_a_person_plays_a_learned_bot_to_the_end(c: TestClient) -> None:
    tid = new_table(c, "penneech", ["human", "learned"], options={"objective": "deal"})
    tok = join(c, tid, 0)
    with c.websocket_connect(f"/ws/tables/{tid}?token={tok}") as ws:
        got = play_seat(ws, random.Random(3))
    assert got[-1]["status"] == "over"
    record = c.get(f"/api/tables/{tid}/record").json()
    assert _learned_moves_are_the_agent_s(record, [1]) > 0


def test_the_oracle_is_never_offered_nor_seated(c: TestClient) -> None:
    """``oracle:…`` sees every hand (research only, docs/agents.md): no game's menu lists it, the
    best agent (the Expert, hints, reviews) is never one, and a table refuses it as a seat."""
    menus = _menus(c)
    for name in GAMES:
        specs = list(menus[name])
        assert not any(s.startswith("oracle") for s in specs)
        assert not best_agent_spec(name).startswith("oracle")
        game = load_game(name)
        with pytest.raises(MenuError, match="not a computer player"):
            check_seat(game, "oracle:" + best_agent_spec(name), agent_menu(name))
        assert agent_refuses("oracle:heuristic", game) is not None


def test_a_search_seat_may_read_the_moves_but_only_in_words_the_server_knows() -> None:
    """``infer=policy`` (docs/agents.md) may be asked of any menu search; other words are refused in
    one line naming the choices, and ``pool`` stays within its cap."""
    game = load_game("piquesept")
    menu = agent_menu("piquesept")
    check_seat(game, "ismcts:iterations=300,infer=policy,pool=16", menu)
    entry = next(e for e in menu if e["spec"].startswith("ismcts"))
    assert entry["params"]["infer"] == {"choices": ["none", "policy"]}
    for spec, words in [
        ("ismcts:iterations=300,infer=oracle", "infer must be one of none, policy"),
        ("ismcts:iterations=300,pool=500", "pool must be a whole number from 2 to 64"),
    ]:
        with pytest.raises(MenuError, match=words):
            check_seat(game, spec, menu)


@pytest.mark.parametrize(
    ("game", "caps"),
    [
        ("penneech", {"target": 201}),
        ("piquesept", {"deals": 16}),
        ("pentyrch", {"max_rounds": 300, "games": 8}),
    ],
)
def test_web_caps_are_the_games_own(game: str, caps: dict[str, int]) -> None:
    """Each game declares its web caps (``web_maximum`` in its options); the menu only reads them:
    a value at the cap is taken, one above it refused in one line, and the API keeps the whole range."""
    assert caps_json(game) == caps
    for key, cap in caps.items():
        check_options(game, {key: cap})
        with pytest.raises(MenuError, match=rf"^options\.{key}: at most {cap} on this server$"):
            check_options(game, {key: str(cap + 1)})
        assert load_game(game, **{key: cap + 1}).options_json()[key] == cap + 1
