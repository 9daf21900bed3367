"""Shuffler integrity (issue 19): pure statistics of shuffles seen through the shoe (docs/integrity.md).

:mod:`domain.integrity.observations` turns the shoe's reads before and after a shuffle into what the tests see,
:mod:`domain.integrity.distributions` holds the tests' exact null laws, and :mod:`domain.integrity.monitor` runs the
tests shuffle by shuffle with the false-alarm rate held over a shift."""
