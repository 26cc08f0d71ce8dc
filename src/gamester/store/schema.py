"""The database schema (SQLAlchemy Core). Alembic's migrations create exactly these tables.

0001: tables, seats, actions. 0002 (lessons): a table's ``lesson``, reviews. 0003 (people): accounts,
sessions, ratings and their history, chat; a table's ``rated`` and ``rating_applied`` flags and its
``rematch``; a seat's ``account``. 0004 (invites): a table's ``open``, ``private`` and ``watch_hash``; a
seat's ``invite_hash``. 0005 (throttle): the token buckets of the log-in and sign-up limits, shared by
every server on the database. 0006 (turns): a table's ``turns_key``, whose turn its bots take at the
workers. 0007 (fair): how an account's name reads (``skeleton``); the pairs of players whose rated
results moved their ratings (``gm_rating_pairs``: a few a day per pair). 0008 (seeks): quick play's
seeks, blocks between accounts, reports, bans, and the account a chat line was said from.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

tables = sa.Table(
    "gm_tables",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: every option of the game, canonical
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("chance", sa.Text, nullable=False),  # JSON: the record's chance so far
    sa.Column("clock", sa.Text, nullable=True),  # JSON or NULL
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("deadline", sa.Float, nullable=True),
    sa.Column("returns", sa.Text, nullable=True),  # JSON list once over
    sa.Column("forfeit", sa.Integer, nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("lease_owner", sa.String(120), nullable=True),
    sa.Column("lease_expiry", sa.Float, nullable=True),
    sa.Column("lesson", sa.String(40), nullable=True),  # the tutorial a lesson table teaches, else NULL
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    # Set in the same transaction that moves the ratings: a table's result is counted once.
    sa.Column("rating_applied", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("rematch", sa.String(40), nullable=True),  # the id of the next table, once asked for
    # open: anyone may take a free seat (no invites); private: never listed, watched with an invite.
    sa.Column("open", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("watch_hash", sa.String(64), nullable=True),  # SHA-256 of a private table's watch code
    # The key its bots take turns under at the workers (web/fair.py): its creator address's digest.
    sa.Column("turns_key", sa.String(64), nullable=True),
)
sa.Index("ix_gm_tables_status_created", tables.c.status, tables.c.created)

seats = sa.Table(
    "gm_seats",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(10), nullable=False),  # human | bot
    sa.Column("agent", sa.String(200), nullable=True),
    sa.Column("name", sa.String(80), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("account", sa.String(20), nullable=True),  # gm_accounts.key of the seat's owner
    sa.Column("invite_hash", sa.String(64), nullable=True),  # SHA-256 of the seat's invite code, if any
)
sa.Index("ix_gm_seats_account", seats.c.account)

actions = sa.Table(
    "gm_actions",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # 1 for the first action
    sa.Column("action", sa.String(80), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

reviews = sa.Table(
    "gm_reviews",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("status", sa.String(10), nullable=False),  # working | done | failed
    sa.Column("result", sa.Text, nullable=True),  # JSON: the review once done, the reason once failed
    sa.Column("owner", sa.String(120), nullable=True),  # the server working on it
    sa.Column("started", sa.Float, nullable=False),
)
accounts = sa.Table(
    "gm_accounts",
    metadata,
    sa.Column("key", sa.String(20), primary_key=True),  # the name, case-folded: unique ignoring case
    sa.Column("name", sa.String(20), nullable=False),  # as its owner wrote it
    sa.Column("password_hash", sa.String(200), nullable=False),  # argon2id, PHC string
    sa.Column("seat_key", sa.String(64), nullable=False),  # derives the account's seat tokens
    sa.Column("created", sa.Float, nullable=False),
    # How the name reads (web/names.py, skeleton): no two accounts, and no guest, may read alike.
    sa.Column("skeleton", sa.String(80), nullable=True),
)
sa.Index("ix_gm_accounts_skeleton", accounts.c.skeleton)

sessions = sa.Table(
    "gm_sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),  # SHA-256 of the session; never the session
    sa.Column("account", sa.String(20), sa.ForeignKey("gm_accounts.key"), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)
sa.Index("ix_gm_sessions_account", sessions.c.account)

ratings = sa.Table(
    "gm_ratings",
    metadata,
    sa.Column("account", sa.String(220), primary_key=True),  # an account key, or "bot:" + agent spec
    sa.Column("game", sa.String(40), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
)
sa.Index("ix_gm_ratings_game_rating", ratings.c.game, ratings.c.rating)

rating_history = sa.Table(
    "gm_rating_history",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    sa.Column("account", sa.String(220), primary_key=True),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),  # after this table
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("score", sa.Float, nullable=False),  # the table's result for the account, 0..1
    sa.Column("at", sa.Float, nullable=False),
)
sa.Index("ix_gm_rating_history_account", rating_history.c.account, rating_history.c.at)

rating_pairs = sa.Table(
    "gm_rating_pairs",
    metadata,
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), primary_key=True),
    # The two rating keys (accounts' or bots'), in order: a pair is one row per table whatever the seats.
    sa.Column("low", sa.String(220), primary_key=True),
    sa.Column("high", sa.String(220), primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
)
sa.Index("ix_gm_rating_pairs_pair", rating_pairs.c.low, rating_pairs.c.high, rating_pairs.c.at)

chat = sa.Table(
    "gm_chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.String(40), sa.ForeignKey("gm_tables.id"), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),  # NULL: a spectator
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("text", sa.String(2000), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("account", sa.String(20), nullable=True),  # the speaker's account key (blocks hide it)
)
sa.Index("ix_gm_chat_table", chat.c.table_id, chat.c.id)

throttle = sa.Table(
    "gm_throttle",
    metadata,
    # which limit (login_name, login_address, signup, tables) and what it limits (a folded name, an address)
    sa.Column("kind", sa.String(20), primary_key=True),
    sa.Column("key", sa.String(120), primary_key=True),
    sa.Column("tokens", sa.Float, nullable=False),  # tries left at ``at``; one comes back per period
    sa.Column("at", sa.Float, nullable=False),  # wall-clock time (every server on the database reads it)
)
sa.Index("ix_gm_throttle_kind_at", throttle.c.kind, throttle.c.at)

# -- 0008: finding a game and the people in it (docs/web.md, Quick play; Blocks, reports and bans) --
seeks = sa.Table(
    "gm_seeks",
    metadata,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False),  # SHA-256 of the seeker's token
    # Who may sit together: a digest of the game, its options, rated, the player count and the clock.
    sa.Column("pool", sa.String(64), nullable=False),
    sa.Column("game", sa.String(40), nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON: every option of the game, canonical
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("clock", sa.Text, nullable=True),  # JSON or NULL
    sa.Column("bots_after", sa.Float, nullable=True),  # NULL: people only
    sa.Column("fill_at", sa.Float, nullable=True),  # when bots take the empty seats (any server may)
    sa.Column("account", sa.String(20), nullable=True),  # gm_accounts.key, NULL for a guest
    sa.Column("name", sa.String(80), nullable=False),  # the name its seat will show
    sa.Column("rating", sa.Float, nullable=True),  # the account's rating in the game when it sought
    sa.Column("address_key", sa.String(64), nullable=False),  # a digest of the seeker's address
    sa.Column("status", sa.String(10), nullable=False),  # waiting | matched | cancelled | expired
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("polled", sa.Float, nullable=False),  # last asked about by its seeker
    sa.Column("ended", sa.Float, nullable=True),  # when it stopped waiting
    sa.Column("table_id", sa.String(40), nullable=True),  # once matched: the table and the seat
    sa.Column("seat", sa.Integer, nullable=True),
)
sa.Index("ix_gm_seeks_status_pool", seeks.c.status, seeks.c.pool, seeks.c.created)
sa.Index("ix_gm_seeks_address", seeks.c.address_key, seeks.c.status)

blocks = sa.Table(
    "gm_blocks",
    metadata,
    sa.Column("blocker", sa.String(20), primary_key=True),  # account keys
    sa.Column("blocked", sa.String(20), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
)
sa.Index("ix_gm_blocks_blocked", blocks.c.blocked)

reports = sa.Table(
    "gm_reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reporter", sa.String(20), nullable=False),  # account keys
    sa.Column("reported", sa.String(20), nullable=False),
    sa.Column("table_id", sa.String(40), nullable=True),  # where it happened, if the reporter said
    sa.Column("reason", sa.String(2000), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
)
sa.Index("ix_gm_reports_created", reports.c.created)

bans = sa.Table(
    "gm_bans",
    metadata,
    sa.Column("account", sa.String(20), primary_key=True),  # gm_accounts.key
    sa.Column("until", sa.Float, nullable=True),  # NULL: for good
    sa.Column("reason", sa.String(500), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
)
