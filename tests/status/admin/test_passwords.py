"""Administrator passwords: bcrypt, and PHP's $2y$ hashes from an upstream users table."""

from sathub.status.admin import passwords


def test_php_bcrypt_hashes_verify():
    php_hash = passwords.hash_password("secret-pass").replace("$2b$", "$2y$", 1)
    assert passwords.verify_password("secret-pass", php_hash)
