"""The agent interface, the view an agent gets, and the registry of agent specs.

An agent must choose from what its seat knows. :class:`View` (``gamester.core.kit``, where the games'
kits use it too) wraps a state and a player and exposes only the observation, the legal actions (on
the player's turn), notation and ``determinize`` — so an agent cannot read the other hands even by
accident, and two states that look the same to the seat lead a seeded agent to the same choice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from gamester.core._mypyc import mypyc_attr
from gamester.core.errors import AgentError
from gamester.core.kit import View as View  # re-exported: agents take a View
from gamester.core.options import key_values
from gamester.core.protocol import Game
from gamester.core.rng import derive


# Agents of other packages and of plain-Python code subclass these (interop's OpenSpiel ISMCTS agent,
# entry-point agents): in the compiled build that needs the marker (a no-op in pure Python).
@mypyc_attr(allow_interpreted_subclasses=True)
class Agent(ABC):
    """Chooses an action for the player whose view it is given."""

    name: str = "agent"

    @abstractmethod
    def step(self, view: View) -> int:
        """The chosen action (one of ``view.legal_actions()``)."""

    def evaluate(self, view: View) -> dict[str, Any] | None:
        """The agent's estimate of the position (for hints), or None if it has none."""
        return None

    def __repr__(self) -> str:
        return f"make_agent({self.name!r})"


@mypyc_attr(allow_interpreted_subclasses=True)
class EvaluatingAgent(Agent):
    """An agent whose choice is its evaluation's ``action`` (searched only when there is a choice)."""

    def step(self, view: View) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return int(self.evaluate(view)["action"])

    @abstractmethod
    def evaluate(self, view: View) -> dict[str, Any]: ...


AgentFactory = Callable[..., Agent]
_AGENTS: dict[str, tuple[str, str]] = {}  # name -> (module, attribute), imported on first use
_FACTORIES: dict[str, AgentFactory] = {}


def register_agent(name: str, target: str | AgentFactory) -> None:
    """Register an agent factory, or ``"module:attribute"`` to import lazily."""
    if isinstance(target, str):
        mod, _, attr = target.partition(":")
        _AGENTS[name] = (mod, attr)
    else:
        _FACTORIES[name] = target


_SCANNED = False


def _scan_entry_points() -> None:
    """Agents other packages add through the ``gamester.agents`` entry-point group (name: the spec's
    name, value: ``module:factory``), imported on first use like the ones registered below."""
    global _SCANNED
    if _SCANNED:
        return
    from importlib.metadata import entry_points

    for ep in entry_points(group="gamester.agents"):
        if ep.name not in _AGENTS and ep.name not in _FACTORIES:
            _AGENTS.setdefault(ep.name, (ep.module, ep.attr))
    _SCANNED = True  # only once filled: a thread arriving meanwhile scans again (harmless)


def agent_names() -> list[str]:
    _scan_entry_points()
    return sorted(set(_AGENTS) | set(_FACTORIES))


def _factory(name: str) -> AgentFactory:
    f = _FACTORIES.get(name)
    if f is None:
        if name not in _AGENTS:
            _scan_entry_points()
        if name not in _AGENTS:
            raise AgentError(f"unknown agent {name!r}; valid agents: {', '.join(agent_names())}")
        import importlib

        mod, attr = _AGENTS[name]
        try:
            module = importlib.import_module(mod)
        except ImportError as e:  # an agent from an optional extra that is not installed
            raise AgentError(f"agent {name!r} cannot be loaded: {e}") from None
        f = _FACTORIES[name] = getattr(module, attr)
    return f


def agent_factory(name: str) -> AgentFactory:
    """The factory registered for the agent ``name`` (``AgentError`` if none), imported but not
    called: what reads its parameters without building an agent (the web's canonical specs)."""
    return _factory(name)


# Agents whose spec's rest is another agent's whole spec, taken as one parameter ``agent``:
# ``oracle:rollout:worlds=30`` is ``("oracle", {"agent": "rollout:worlds=30"})``.
WRAPPERS = ("oracle",)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"ismcts:iterations=2000,c=1.4"`` -> ``("ismcts", {"iterations": "2000", "c": "1.4"})``."""
    name, _, rest = spec.strip().partition(":")
    if name.strip() in WRAPPERS:
        return name.strip(), ({"agent": rest.strip()} if rest.strip() else {})
    return name.strip(), key_values(
        rest, lambda part: AgentError(f"agent spec {spec!r}: {part!r} is not parameter=value")
    )


def split_agents(text: str) -> list[str]:
    """Split ``--agents``: commas separate agents, but a ``k=v`` piece after a comma continues the
    previous agent's parameters (``ismcts:iterations=500,c=0.3,heuristic`` is two agents)."""
    out: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        if "=" in piece and ":" not in piece and out and ":" in out[-1]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


# factory -> the names of its parameters, ``game`` left out. ``inspect.signature`` is slow, and slower
# still on a compiled class (it parses the class's text signature): ``simulate`` makes agents for every
# game, and in the compiled build that parse took half the time of a heuristic game.
_PARAMETERS: dict[AgentFactory, list[str]] = {}


def _parameters(factory: AgentFactory) -> list[str]:
    try:
        valid = _PARAMETERS.get(factory)
        hashable = True
    except TypeError:  # an unhashable callable registered as a factory: read every time
        valid, hashable = None, False
    if valid is None:
        import inspect

        valid = [p for p in inspect.signature(factory).parameters if p != "game"]
        if hashable:
            _PARAMETERS[factory] = valid
    return valid


def make_agent(spec: str, *, game: Game | None = None, seed: int | None = None) -> Agent:
    """An agent from its spec string. ``seed`` (or ``seed=`` in the spec) makes it deterministic."""
    name, params = parse_agent_spec(spec)
    factory = _factory(name)
    if seed is not None and "seed" not in params:
        params["seed"] = str(seed)
    valid = _parameters(factory)
    unknown = [k for k in params if k not in valid]
    if unknown:
        raise AgentError(
            f"agent {name!r}: unknown parameter {unknown[0]!r}; valid parameters: " + ", ".join(valid)
        )
    return factory(game=game, **params)


def agent_seed(seed: int, player: int) -> int:
    """The seed of ``player``'s agent in the game dealt from ``seed``: ``derive(seed, "agent",
    player)`` (docs/randomness.md). ``simulate``, ``tournament``, ``analyse`` and ``play`` seat
    their agents with it, so a game between the same agents on the same deal is played the same by
    each of them."""
    return derive(seed, "agent", player)


def agent_refuses(spec: str, game: Game) -> str | None:
    """Why the agent ``spec`` names cannot play ``game`` (its options included), in one line, or None
    if it can or does not say. Asked without making the agent: a factory that knows its limits has
    ``refuses(game, params) -> str | None`` (``learned`` reads what its model was trained on). The web
    checks a seat with this before any worker makes the agent (docs/agents.md, "What an agent can
    play")."""
    name, params = parse_agent_spec(spec)
    check = getattr(_factory(name), "refuses", None)
    if check is None:
        return None
    why = check(game, params)
    return None if why is None else str(why)


def int_param(name: str, value: Any, minimum: int = 0) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise AgentError(f"parameter {name}={value!r} must be a whole number") from None
    if n < minimum:
        raise AgentError(f"parameter {name}={value!r} must be at least {minimum}")
    return n


def float_param(name: str, value: Any, minimum: float = 0.0) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise AgentError(f"parameter {name}={value!r} must be a number") from None
    if x < minimum:
        raise AgentError(f"parameter {name}={value!r} must be at least {minimum}")
    return x


def seed_param(value: Any) -> int | None:
    return None if value is None else int_param("seed", value)


register_agent("random", "gamester.agents.random_agent:RandomAgent")
register_agent("heuristic", "gamester.agents.heuristic:HeuristicAgent")
register_agent("ismcts", "gamester.agents.ismcts:ISMCTSAgent")
register_agent("pimc", "gamester.agents.pimc:PIMCAgent")
register_agent("lookahead", "gamester.agents.lookahead:LookaheadAgent")
register_agent("rollout", "gamester.agents.rollout:RolloutAgent")
register_agent("futures", "gamester.agents.futures:FuturesAgent")
register_agent("learned", "gamester.agents.learned:LearnedAgent")
register_agent("oracle", "gamester.agents.oracle:OracleAgent")
