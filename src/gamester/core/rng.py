"""Randomness: our generator, our draws; chance outcomes come from a state's generator or a record.

The generator a state (or an agent) owns is a :class:`HashRandom`, a ``random.Random`` whose bits
are those of a :class:`BitStream` (BLAKE2b digests of a counter and the seed, "gamester-blake2b-1"):
cheap to seed, cheap to copy, and the same on every platform and Python.

Every draw made from a generator goes through the draws at the end of this module ("gamester-draws-1":
:func:`below`, :func:`unit`, :func:`choice`, :func:`weighted`, :func:`shuffle`, :func:`sample`), never
through ``random.Random``'s own methods; they read only ``getrandbits``. docs/randomness.md states both
versions and what a change of either changes.

:class:`Chance` is the single door through which a game receives chance outcomes. Given a record's
``chance`` list it hands out those entries in order (checking each); otherwise it draws them from the
state's own generator. Either way it logs every outcome, so ``record()`` can always write ``chance``
and a saved game replays identically whatever the generator or the draws.

:func:`shuffled` is an exactly uniform shuffle (unrolled Fisher–Yates whose indices are the digits of
one random number, see :class:`Shuffler`): what :class:`Chance` deals packs with.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from hashlib import blake2b
from typing import Any, Final, NamedTuple, final

from gamester.core._mypyc import mypyc_attr
from gamester.core.cards import card_code
from gamester.core.errors import RecordError, quote


class Shuffler:
    """Fisher–Yates (top first) fixing positions ``0 … used-1`` of ``n`` items.

    Position i swaps with a uniform j in ``i … n-1``: the offsets are the mixed-radix digits of one
    uniform number below P, the product of the radices. It comes from a single ``getrandbits`` call
    of 64 bits more than P needs, redrawn when it is at or above the largest multiple of P that fits
    (odds below 2**-64), so its remainder mod P is exactly uniform; the quotient, independent of the
    remainder, is returned too (a seed for the rest of a partial pack). The remainder is cut into
    segments whose radix product stays below 2**30, so the digits come from one-digit ints
    (CPython's fast path). A plain loop over a precomputed plan (it used to be generated code run by
    ``exec``, about 15% faster in pure Python but never compiled by mypyc).

    It is also our draws' :func:`shuffle` and :func:`sample` ("gamester-draws-1", docs/randomness.md).
    ``shuffler(rng, items)`` draws from any ``random.Random``; :meth:`from_stream` from a
    :class:`BitStream` directly (what :class:`Chance` does with the state's own generator: a native
    call in the compiled build). Both take the same bits, so both give the same pack.
    """

    __slots__ = ("bits", "limit", "prod", "plan")

    def __init__(self, n: int, used: int) -> None:
        last = min(used, n - 1)
        prod = 1
        for k in range(last):
            prod *= n - k
        self.prod = prod
        self.bits = bits = prod.bit_length() + 64
        self.limit = (1 << bits) // prod * prod
        segments: list[tuple[list[int], int]] = []
        seg: list[int] = []
        seg_prod = 1
        for k in range(last):
            if seg and seg_prod * (n - k) >= 1 << 30:
                segments.append((seg, seg_prod))
                seg, seg_prod = [], 1
            seg.append(k)
            seg_prod *= n - k
        if seg:
            segments.append((seg, seg_prod))
        # Per segment: its radix product (0 for the last segment, which takes what is left of the
        # number), its digits but the last as (position, radix), and the last digit's position.
        self.plan: tuple[tuple[int, tuple[tuple[int, int], ...], int], ...] = tuple(
            (0 if si == len(segments) - 1 else sp, tuple((k, n - k) for k in ks[:-1]), ks[-1])
            for si, (ks, sp) in enumerate(segments)
        )

    def __call__(self, rng: random.Random, items: Sequence[Any]) -> tuple[list[Any], int]:
        bits = self.bits
        limit = self.limit
        x = rng.getrandbits(bits)
        while x >= limit:
            x = rng.getrandbits(bits)
        return self._order(items, x)

    def from_stream(self, stream: BitStream, items: Sequence[Any]) -> tuple[list[Any], int]:
        bits = self.bits
        limit = self.limit
        x = stream.getrandbits(bits)
        while x >= limit:
            x = stream.getrandbits(bits)
        return self._order(items, x)

    def _order(self, items: Sequence[Any], x: int) -> tuple[list[Any], int]:
        """The pack that the uniform number ``x`` (below the limit) stands for, and the quotient."""
        o = list(items)
        t, x = divmod(x, self.prod)
        for sp, digits, lk in self.plan:
            if sp:
                y = x % sp
                x //= sp
            else:
                y = x
            for k, r in digits:
                j = k + y % r
                y //= r
                o[k], o[j] = o[j], o[k]
            j = lk + y
            o[lk], o[j] = o[j], o[lk]
        return o, t


# Keyed by ``n << 16 | used``: an int key, no tuple made and hashed at every pack.
_SHUFFLERS: dict[int, Shuffler] = {}


def _shuffler(n: int, used: int) -> Shuffler:
    key = n << 16 | used
    fn = _SHUFFLERS.get(key)
    if fn is None:
        fn = _SHUFFLERS[key] = Shuffler(n, used)
    return fn


def shuffled(rng: random.Random, items: Sequence[int], used: int | None = None) -> list[int]:
    """A uniformly random permutation of ``items`` drawn from ``rng`` (the input is not changed).

    With ``used``, only the first ``used`` positions are random (a uniform draw of that many items
    in order); the rest are the remaining items in no particular order.
    """
    n = len(items)
    return _shuffler(n, n if used is None else used)(rng, items)[0]


# A partial pack in ``Chance.log``: ``(pack, used, rest_seed)``, a plain tuple because one is made per
# deal. Games read only the top of a pack (a Penneech deal, 22 of 52 cards), so only the top ``used``
# positions of ``pack`` are shuffled when it is drawn; the rest is ordered when someone looks at it (a
# record, or a rule reading deeper), from its own seed drawn with the top, so the whole pack is uniform
# and reproducible. Complete packs are lists, single draws ints.


def complete(entry: Any) -> Any:
    """A log entry as a record lists it: a partial pack ordered in full, anything else as it is."""
    if entry.__class__ is not tuple:
        return entry
    pack, used, rest_seed = entry
    p: list[int] = pack[:used]
    p += shuffled(make_rng(rest_seed), pack[used:])
    return p


def new_seed() -> int:
    """A fresh seed for a game started without one (it is written to the record)."""
    return secrets.randbits(63)


# -- Seeds made from seeds: "gamester-derive-1" ---------------------------------------------------
DERIVE: Final = "gamester-derive-1"

_DERIVE_PERSON: Final = b"gamester-derive1"  # BLAKE2b's 16-byte personalisation: no other hash collides


def derive(seed: int, *keys: object) -> int:
    """The seed of a stream of its own, named by ``seed`` and ``keys`` (docs/randomness.md).

    Every seed gamester makes from another (an agent's from its deal's seed and seat, an estimate's
    from its decision, a bot's from its table and move) is made here, so that different keys give
    unrelated streams and the same keys the same one, with no two formulas that may collide. The
    keys are ints (a seat, an index) and strings (what the stream is for: ``"agent"``,
    ``"estimate"`` …). The seed is the 8-byte BLAKE2b digest (personalisation ``gamester-derive1``)
    of each of ``seed, *keys`` in turn, read little-endian and shifted right by two, so that it is
    below ``2**62`` (a database's signed 64-bit column holds it). An int goes in as ``b"i"``, its
    length in one byte (at most 255) and its shortest two's-complement little-endian bytes (the
    stream's own encoding of a seed); a string as ``b"s"``, its UTF-8 length in four little-endian
    bytes and its UTF-8 bytes.

    >>> derive(7, "agent", 0)
    1627231003756495534
    >>> derive(7, "agent", 1) != derive(7, "agent", 0) != derive(8, "agent", 0)
    True

    (``keys`` is typed ``object`` and checked here, so that both builds refuse a key of another
    kind with this module's own ``TypeError``.)
    """
    h = blake2b(digest_size=8, person=_DERIVE_PERSON)
    for k in (seed, *keys):
        if isinstance(k, str):
            b = k.encode("utf-8")
            h.update(b"s" + len(b).to_bytes(4, "little") + b)
        elif isinstance(k, int) and not isinstance(k, bool):
            b = seed_bytes(k)
            h.update(b"i" + len(b).to_bytes(1, "little") + b)
        else:
            raise TypeError(f"derive takes int and str keys, not {type(k).__name__}")
    return int.from_bytes(h.digest(), "little") >> 2


_HASH_STATE: Final = "gamester-blake2b-1"


@final
class BitStream:
    """The stream of :class:`HashRandom`: block ``i`` is the BLAKE2b-512 digest of ``i`` (8 bytes,
    little-endian) followed by the seed (its shortest two's-complement little-endian bytes), read as a
    little-endian integer; :meth:`getrandbits` hands out the stream's bits in order, low first.

    A native class in the compiled build, so that :class:`Chance` draws a state's packs from it with
    native calls; :class:`HashRandom` wraps one for everyone who wants a ``random.Random``. The two
    are one stream: a bit drawn through either is gone from both.
    """

    __slots__ = ("seed", "key", "block", "buf", "bits")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.key = b""  # the seed's bytes, made at the first block: set exactly when block > 0
        self.block = 0
        self.buf = 0
        self.bits = 0

    def getrandbits(self, k: int) -> int:
        bits = self.bits
        if k > bits:
            return self._refill(k)
        buf = self.buf
        self.buf = buf >> k
        self.bits = bits - k
        return buf & ((1 << k) - 1)

    def _refill(self, k: int) -> int:
        """``getrandbits(k)`` when the buffer holds fewer than ``k`` bits: hash the next blocks."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        key = self.key
        if not key:
            key = self.key = seed_bytes(self.seed)
        b = self.block
        if not self.bits and k <= 512:  # the usual case: a fresh block serves the whole draw
            x = int.from_bytes(
                blake2b((_COUNTERS[b] if b < 64 else b.to_bytes(8, "little")) + key).digest(), "little"
            )
            self.block = b + 1
            self.buf = x >> k
            self.bits = 512 - k
            return x & ((1 << k) - 1)
        buf = self.buf
        bits = self.bits
        while bits < k:
            buf |= int.from_bytes(blake2b(b.to_bytes(8, "little") + key).digest(), "little") << bits
            bits += 512
            b += 1
        self.block = b
        self.buf = buf >> k
        self.bits = bits - k
        return buf & ((1 << k) - 1)

    def below(self, n: int) -> int:
        """:func:`below` on this stream: the bits :meth:`getrandbits` would hand out, read in place
        (one call a draw instead of two: agents' searches draw in their inner loops)."""
        if n < 1:
            raise ValueError(f"below: no number below {n}")
        k = (n - 1).bit_length()
        while True:
            bits = self.bits
            if k > bits:
                r = self._refill(k)
            else:
                buf = self.buf
                self.buf = buf >> k
                self.bits = bits - k
                r = buf & ((1 << k) - 1)
            if r < n:
                return r

    def copy(self) -> BitStream:
        """An independent stream at the same position."""
        c = BitStream(self.seed)
        c.key = self.key
        c.block = self.block
        c.buf = self.buf
        c.bits = self.bits
        return c

    def state(self) -> tuple[Any, ...]:
        """What :meth:`HashRandom.getstate` saves (the buffer only when it holds bits)."""
        return (_HASH_STATE, self.seed, self.block, self.buf if self.bits else 0, self.bits)

    def __reduce__(self) -> tuple[Any, ...]:
        # Said explicitly: compiled, a native class's __new__ runs __init__ (default pickling fails).
        return (_rebuild_stream, (self.state(),))


def _stream_of_state(state: object) -> BitStream:
    if not (isinstance(state, tuple) and len(state) == 5 and state[0] == _HASH_STATE):
        raise ValueError("not a HashRandom state")
    _, seed, block, buf, bits = state
    s = BitStream(seed)
    s.block = block
    s.buf = buf
    s.bits = bits
    if block:
        s.key = seed_bytes(seed)
    return s


def seed_bytes(seed: int) -> bytes:
    """The seed as the stream's blocks hash it: its shortest two's-complement little-endian bytes."""
    n = (seed.bit_length() + 8) // 8
    if seed >= 0:  # the same bytes (the top bit is 0), without the keyword call (a new game pays it)
        return seed.to_bytes(n, "little")
    return seed.to_bytes(n, "little", signed=True)


# The first blocks' counters as the stream hashes them (8 bytes, little-endian), made once: a new
# state's stream hashes block 0 for its first pack.
_COUNTERS: Final[tuple[bytes, ...]] = tuple(i.to_bytes(8, "little") for i in range(64))


def _rebuild_stream(state: tuple[Any, ...]) -> BitStream:
    return _stream_of_state(state)


# A plain Python class whose methods mypyc compiles: as a native class it would lay its fields over
# random.Random's C state (random.Random.seed on one crashed) and type random.py's own attributes
# (gauss() failed setting gauss_next).
@mypyc_attr(native_class=False)
class HashRandom(random.Random):
    """A counter-based ``random.Random``: its bits are those of a :class:`BitStream` (BLAKE2b digests
    of a counter and the seed), handed out in order.

    Seeding a Mersenne Twister costs about 3.5 µs (it fills 624 words), more than a tenth of a whole
    random Penneech deal; this generator starts in a fraction of that, copies in a few field writes,
    and gives the same stream on every platform and Python version. gamester draws from it only
    through this module's draws (:func:`below`, :func:`shuffle` ...); ``random.Random``'s other
    methods (``randrange``, ``shuffle``, ``gauss`` ...) still work on it, through ``getrandbits`` and
    ``random``, with CPython's algorithms and no promise across Python versions.
    """

    def __init__(self, seed: object = None) -> None:
        self.seed(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        if a is None:
            a = new_seed()
        elif not isinstance(a, int):
            raise TypeError(f"HashRandom takes an int seed, not {type(a).__name__}")
        self._stream = BitStream(a)
        self.gauss_next = None

    def getrandbits(self, k: int) -> int:
        return self._stream.getrandbits(k)

    def random(self) -> float:
        return self._stream.getrandbits(53) * 1.1102230246251565e-16  # 2 ** -53

    def getstate(self) -> tuple[Any, ...]:
        return self._stream.state()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._stream = _stream_of_state(state)
        self.gauss_next = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle and deepcopy through getstate/setstate, said explicitly: compiled by mypyc, the class
        # gets its own __setstate__, which random.Random's __reduce__ would then feed our state tuple.
        return (_rebuild_hash_random, (self.getstate(),))


def _wrap(stream: BitStream) -> HashRandom:
    """A :class:`HashRandom` drawing from ``stream`` itself (not a copy)."""
    r = HashRandom(0)
    r._stream = stream
    return r


def _rebuild_hash_random(state: tuple[Any, ...]) -> HashRandom:
    r = HashRandom(0)
    r.setstate(state)
    return r


def make_rng(seed: int | None) -> random.Random:
    """The generator a state owns: a :class:`HashRandom` seeded with ``seed`` (fresh if None)."""
    # Not HashRandom.__new__ then seed(): under mypyc a native class's __new__ ran __init__ too (a
    # system seed drawn for nothing); plain HashRandom(seed) seeds once in either build.
    return HashRandom(seed)


_MAX_PACK = 104  # a record's pack longer than this is refused unread (the largest pack has 52 cards)


class Origin(NamedTuple):
    """Where a state read from a position begins (docs/positions.md): its record starts there."""

    position: str
    """The position's text, as the game writes it."""
    actions: int
    """How many of the state's actions (``history_strings()``) the position already holds."""
    entries: int
    """How many of its chance outcomes (``log``) the position already holds; the record's ``chance``
    lists the ones after them, so a given list is read from this entry on."""


@mypyc_attr(allow_interpreted_subclasses=True)  # adapters subclass it (docs/compiled.md)
class Chance:
    """Hands out chance outcomes in order, from a given list or from the state's generator.

    Entries are packs (lists of card ids, top first) or single card ids. ``log`` keeps what was
    handed out, in order. ``decode`` turns a record's entry (codes) into ids; it is supplied by the
    game, since only the game knows which cards a pack must hold.
    """

    __slots__ = ("_rng", "_stream", "_owned", "given", "log", "origin")

    def __init__(self, rng: random.Random | BitStream, given: Sequence[Any] | None = None) -> None:
        # A state's own generator is a BitStream (Game.new_initial_state): its HashRandom is made
        # only if someone asks for ``rng``; packs and draws come from the stream itself.
        if isinstance(rng, BitStream):
            self._rng: random.Random | None = None
            self._stream: BitStream | None = rng
        else:
            self._rng = rng
            self._stream = rng._stream if type(rng) is HashRandom else None
        self._owned = True
        self.given = given
        self.log: list[Any] = []
        # Set for a state read from a position: its record starts there (Origin).
        self.origin: Origin | None = None

    @property
    def rng(self) -> random.Random:
        """This state's generator (copied first if a clone still shares it: copy on write)."""
        if not self._owned:
            self._own()
        r = self._rng
        if r is None:
            assert self._stream is not None
            r = self._rng = _wrap(self._stream)
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._stream = value._stream if type(value) is HashRandom else None
        self._owned = True

    def _own(self) -> None:
        """Copy on write: the generator this side still shares with a copy, copied."""
        stream = self._stream
        if stream is not None:
            self._stream = stream.copy()
            self._rng = None  # its HashRandom, if anyone asks, wraps the new stream
        else:
            old = self._rng
            assert old is not None
            r = type(old).__new__(type(old))
            r.setstate(old.getstate())
            self._rng = r
        self._owned = True

    def copy(self) -> Chance:
        """An independent copy with the same future. The generator is shared until either side
        draws (most clones, e.g. a search's, never draw; a Mersenne Twister given by
        ``rng = ...`` would cost more to copy than a whole Penneech playout)."""
        c = Chance.__new__(Chance)
        c._rng = self._rng
        c._stream = self._stream
        c._owned = self._owned = False
        c.given = self.given
        c.log = list(self.log)
        c.origin = self.origin
        return c

    def _given_index(self) -> int:
        """The index in ``given`` (a record's ``chance``) of the next outcome: a position's own
        outcomes (``Origin.entries``) come before the list."""
        origin = self.origin
        return len(self.log) - (0 if origin is None else origin.entries)

    def _given_entry(self) -> Any:
        i = self._given_index()
        assert self.given is not None
        if i >= len(self.given):
            raise RecordError(
                f"chance[{i}] is missing: the game needs another chance outcome here "
                f"but the record lists only {len(self.given)}"
            )
        return self.given[i]

    def pack(self, cards: Sequence[int], parse: Callable[[Any], int], used: int | None = None) -> list[int]:
        """A shuffled pack of exactly ``cards`` (top first).

        With ``used``, the caller promises to read only the top ``used`` cards (or to call
        :meth:`full_pack` first): the rest is shuffled only if a record or a deeper read needs it.
        """
        if self.given is None:
            if not self._owned:
                self._own()
            # shuffled(rng, cards, used), its lookup inlined: this runs once per deal.
            n = len(cards)
            top = n if used is None or used >= n - 1 else used
            fn = _SHUFFLERS.get(n << 16 | top) or _shuffler(n, top)
            stream = self._stream
            if stream is not None:
                p, rest_seed = fn.from_stream(stream, cards)
            else:
                assert self._rng is not None
                p, rest_seed = fn(self._rng, cards)
            if top < n:
                self.log.append((p, top, rest_seed))
                return p
        else:
            i = self._given_index()
            entry = self._given_entry()
            if isinstance(entry, str) and len(entry) <= 4 * _MAX_PACK:
                entry = entry.replace(",", " ").split()
            if not isinstance(entry, list):
                raise RecordError(
                    f"chance[{i}] must be a pack: a list of {len(cards)} card codes, got {quote(entry, 30)}"
                )
            if len(entry) > _MAX_PACK:
                raise RecordError(
                    f"chance[{i}] must list each of the {len(cards)} cards of this pack "
                    f"exactly once (got {len(entry)} entries)"
                )
            try:
                p = [parse(c) for c in entry]
            except ValueError as e:
                raise RecordError(f"chance[{i}]: {e}") from None
            if len(p) != len(cards) or set(p) != set(cards):
                missing = sorted(set(cards) - set(p))
                extra = sorted(set(p) - set(cards))
                dup = len(p) - len(set(p))
                raise RecordError(
                    f"chance[{i}] must list each of the {len(cards)} cards of this pack exactly once "
                    f"(got {len(p)}; missing {missing_codes(missing)}; not in this pack "
                    f"{missing_codes(extra)}; duplicates {dup})"
                )
        self.log.append(p)
        return p

    def full_pack(self, index: int) -> list[int]:
        """The whole of the pack logged at ``index`` (ordering a partial pack's rest now)."""
        entry = self.log[index] = complete(self.log[index])
        return list(entry)

    def entries(self) -> list[Any]:
        """Every chance outcome so far, packs whole (what a record's ``chance`` lists)."""
        return [complete(e) for e in self.log]

    def draw(self, candidates: Sequence[int], parse: Callable[[Any], int]) -> int:
        """One outcome chosen uniformly from ``candidates`` (e.g. a card drawn from a hand)."""
        if self.given is None:
            # A uniform index: below(n), spelled out on the stream (it runs once per Piquesept deal).
            if not self._owned:
                self._own()
            n = len(candidates)
            k = (n - 1).bit_length()
            stream = self._stream
            if stream is not None:
                i = stream.getrandbits(k)
                while i >= n:
                    i = stream.getrandbits(k)
            else:
                assert self._rng is not None
                i = self._rng.getrandbits(k)
                while i >= n:
                    i = self._rng.getrandbits(k)
            c = candidates[i]
        else:
            i = self._given_index()
            entry = self._given_entry()
            try:
                c = parse(entry)
            except ValueError as e:
                raise RecordError(f"chance[{i}]: {e}") from None
            if c not in candidates:
                raise RecordError(f"chance[{i}]: {quote(entry)} is not a possible outcome here")
        self.log.append(c)
        return c


def missing_codes(cards: Sequence[int]) -> str:
    return "[" + " ".join(card_code(c) for c in cards) + "]" if cards else "none"


# -- Our draws: "gamester-draws-1" ---------------------------------------------------------------
# Every draw gamester makes from a generator (an agent's, a world's, a test's) goes through these
# functions, never through random.Random's own randrange/choice/shuffle/sample (CPython's private
# algorithms, free to change between versions). They read nothing of a generator but ``getrandbits``
# (a HashRandom's stream directly), so a seed gives the same draws on every Python version and in both
# builds; given some other random.Random (a caller's Mersenne Twister), they draw its bits the same
# way. docs/randomness.md states them; change one and the version name changes with it.
DRAWS: Final = "gamester-draws-1"

_UNIT: Final = 1.1102230246251565e-16  # 2 ** -53


def below_bits(getrandbits: Callable[[int], int], n: int) -> int:
    """:func:`below` given the ``getrandbits`` to read (a generator that is not a HashRandom)."""
    if n < 1:  # drawing from nothing is an error, not an endless loop
        raise ValueError(f"below: no number below {n}")
    k = (n - 1).bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def below(rng: random.Random, n: int) -> int:
    """A uniform int in ``0 … n-1``: ``k = (n-1).bit_length()`` bits, drawn again while not below n
    (n = 1 draws no bit; ``n < 1`` raises ``ValueError``)."""
    if type(rng) is HashRandom:
        return rng._stream.below(n)
    return below_bits(rng.getrandbits, n)


def below_of(rng: random.Random) -> Callable[[int], int]:
    """``below`` with ``rng`` bound, for a loop that draws often (a HashRandom's stream's own)."""
    if type(rng) is HashRandom:
        return rng._stream.below
    getrandbits = rng.getrandbits
    return lambda n: below_bits(getrandbits, n)


def unit(rng: random.Random) -> float:
    """A uniform float in [0, 1): 53 bits times 2**-53."""
    if type(rng) is HashRandom:  # the stream's own method: a native call in the compiled build
        return rng._stream.getrandbits(53) * _UNIT
    return rng.getrandbits(53) * _UNIT


def choice(rng: random.Random, seq: Sequence[Any]) -> Any:
    """``seq[below(rng, len(seq))]`` (an empty sequence raises ``IndexError``)."""
    if not seq:
        raise IndexError("choice from an empty sequence")
    return seq[below(rng, len(seq))]


def weighted(rng: random.Random, options: Sequence[Any], weights: Sequence[int]) -> Any:
    """An option with odds proportional to its whole-number weight: ``r = below(rng, sum(weights))``,
    the first option whose running total of weights exceeds r."""
    r = below(rng, sum(weights))
    for option, w in zip(options, weights, strict=True):
        if r < w:
            return option
        r -= w
    raise AssertionError("unreachable: r < sum(weights)")


def _top(rng: random.Random, items: Sequence[Any], n: int, steps: int) -> list[Any]:
    """``items`` after ``steps`` Fisher–Yates steps from the top, drawn by :class:`Shuffler`."""
    fn = _SHUFFLERS.get(n << 16 | steps) or _shuffler(n, steps)
    if type(rng) is HashRandom:
        return fn.from_stream(rng._stream, items)[0]
    return fn(rng, items)[0]


def shuffle(rng: random.Random, x: list[Any]) -> None:
    """Fisher–Yates from the top, in place: position ``i`` (``0 … n-2``) swaps with ``i + d_i``,
    the ``d_i`` being the mixed-radix digits (radices ``n, n-1, …, 2``, lowest first) of one uniform
    number below ``P = n!``, drawn as :class:`Shuffler` does: ``b = P.bit_length() + 64`` bits, drawn
    again while at or above the largest multiple of P below ``2**b``, taken mod P. (The pack
    shuffle of :class:`Chance`; fewer than two items draw nothing.)"""
    n = len(x)
    if n > 1:
        x[:] = _top(rng, x, n, n - 1)


def sample(rng: random.Random, population: Sequence[Any], k: int) -> list[Any]:
    """``k`` distinct items in order: the top ``k`` of :func:`shuffle`'s steps stopped after
    ``s = min(k, n-1)`` (one number below ``n·(n-1)···(n-s+1)``, drawn the same way); nothing is
    drawn when ``s`` is 0. ``k`` outside ``0 … len(population)`` raises ``ValueError``."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError(f"sample: cannot take {k} of {n}")
    steps = min(k, n - 1)
    if steps < 1:
        return list(population[:k])
    return _top(rng, population, n, steps)[:k]
