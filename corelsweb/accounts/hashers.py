"""The password hasher: Argon2id with OWASP's recommended minimum cost."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idHasher(Argon2PasswordHasher):
    """Argon2id with 19 MiB of memory, 2 passes and 1 lane (OWASP's password storage cheat sheet).

    Django's own defaults (100 MiB, 8 lanes) cost about as much CPU as PBKDF2; one lane at 19 MiB costs a tenth
    and still makes each guess of an attacker cost 19 MiB of memory. The algorithm name stays ``argon2``, so a
    hash with other costs verifies and is re-hashed with these at the next sign-in.
    """

    time_cost = 2
    memory_cost = 19 * 1024
    parallelism = 1
