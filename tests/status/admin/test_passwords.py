"""Administrator passwords: bcrypt, and PHP's $2y$ hashes from an upstream users table."""

from sathub.status.admin import passwords
from tests.status.seed import PHP_HASH


def test_php_bcrypt_hashes_verify():
    assert passwords.verify_password("rasmuslerdorf", PHP_HASH)
    assert not passwords.verify_password("rasmuslerdorF", PHP_HASH)
    assert not passwords.verify_password("rasmuslerdorf", None)


def test_our_hashes_are_bcrypt_of_cost_12_and_verify():
    stored = passwords.hash_password("correct horse")
    assert stored.startswith("$2b$12$") and len(stored) == 60
    assert passwords.verify_password("correct horse", stored) and not passwords.verify_password("wrong", stored)
