"""Training the ``learned`` agent from self-play (the ``learn`` extra: torch; docs/learning.md).

``gamester train GAME --out DIR`` runs :func:`gamester.learn.train.train`. Self-play itself
(:mod:`gamester.learn.selfplay`) needs only numpy, so its jobs run on workers without torch.
"""
