"""A password hasher for the tests: Django's PBKDF2 with one iteration instead of a million.

Every `make_player` hashes a password, and at the production cost that was a third of a
second of CPU per player. The hashes it makes keep the production algorithm's name and format
(the iteration count is stored in each hash), so a server a test starts verifies them with its
own, unchanged hasher."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1
