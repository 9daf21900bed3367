"""PINs and passwords (issue 32): kept only as Argon2id hashes, made and checked by argon2-cffi.

A person's PIN (a croupier's at the table) or password (the pit's at the dashboard) is hashed with Argon2id, the
memory-hard function of RFC 9106, at argon2-cffi's defaults (its "low memory" profile of RFC 9106: 64 MiB, three
passes, four lanes; ≈ 0.1 s on this machine), and only the hash (a PHC string, ``$argon2id$v=19$m=…``) is stored in
the person's record.  A hash carries its own parameters, so a hash made with other ones still checks.  The secret
itself is never stored, logged, printed, nor kept past the call that checks it.

A PIN has at least :data:`MIN_PIN` characters, is not one character repeated, and is not the person's own number.

>>> secrets = Credentials(Credentials.FAST)
>>> hashed = secrets.hash("482913", "1042")
>>> hashed.startswith("$argon2id$"), "482913" in hashed
(True, False)
>>> secrets.verify(hashed, "482913"), secrets.verify(hashed, "000000")
(True, False)
>>> secrets.hash("1111111", "1042")
Traceback (most recent call last):
    ...
service.app.credentials.WeakPinError: a PIN is not one character repeated (R-AUD-1)
"""

from __future__ import annotations

from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from service.app.access import ServiceError

MIN_PIN = 6
"""The shortest PIN or password (with ten wrong tries allowed before the badge locks, a one-in-a-hundred-thousand
chance at worst for a six-digit PIN)."""
MAX_PIN = 128


class WeakPinError(ServiceError):
    """A PIN or password the casino's policy refuses."""


@dataclass(frozen=True)
class Profile:
    """Argon2id's cost: passes, memory (KiB) and lanes."""

    time_cost: int
    memory_cost: int
    parallelism: int


class Credentials:
    """Hashes and checks PINs and passwords."""

    DEFAULT = Profile(3, 65536, 4)
    """RFC 9106's "low memory" recommendation, argon2-cffi's default."""
    FAST = Profile(1, 1024, 1)
    """A cheap profile for tests and demonstrations (its hashes still check under :data:`DEFAULT`)."""

    def __init__(self, profile: Profile = DEFAULT) -> None:
        self.profile = profile
        self._hasher = PasswordHasher(time_cost=profile.time_cost, memory_cost=profile.memory_cost,
                                      parallelism=profile.parallelism)
        self._dummy = ""  # made at the first unknown badge: every process that opens a store need not pay for it

    def verify_policy(self, pin: object, person_id: str) -> str:
        """``pin`` if the policy takes it, else :class:`WeakPinError` (the PIN itself is never in the message)."""
        if not isinstance(pin, str) or not MIN_PIN <= len(pin) <= MAX_PIN:
            raise WeakPinError(f"a PIN has {MIN_PIN} to {MAX_PIN} characters", rule="R-AUD-1")
        if not pin.isprintable():
            raise WeakPinError("a PIN has printable characters only", rule="R-AUD-1")
        if len(set(pin)) == 1:
            raise WeakPinError("a PIN is not one character repeated", rule="R-AUD-1")
        if pin.casefold() == person_id.casefold():
            raise WeakPinError("a PIN is not the person's own number", rule="R-AUD-1")
        return pin

    def hash(self, pin: str, person_id: str) -> str:
        """The hash to store of a PIN the policy takes."""
        return self._hasher.hash(self.verify_policy(pin, person_id))

    def verify(self, hashed: str, pin: object) -> bool:
        """Whether ``pin`` is the PIN of ``hashed`` (False for anything else, never an error)."""
        if not isinstance(pin, str) or len(pin) > MAX_PIN:
            return False
        try:
            return self._hasher.verify(hashed, pin)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def waste(self, pin: object) -> None:
        """Check ``pin`` against a hash of no one's: a sign-in with an unknown badge takes as long as a wrong PIN,
        so the time of an answer does not tell which badges exist."""
        if not self._dummy:
            self._dummy = self._hasher.hash("not anyone's PIN: checked for an unknown badge")
        self.verify(self._dummy, pin)
