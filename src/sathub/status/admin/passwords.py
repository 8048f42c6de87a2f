"""Administrator passwords: bcrypt, accepting PHP's $2y$ hashes from an upstream users table."""

import bcrypt

MAX_BYTES = 72  # bcrypt's input limit: add-user refuses longer passwords, PHP's verify truncates


def hash_password(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12)).decode()


def verify_password(password: str, stored_hash: str | None) -> bool:
    if not stored_hash:
        return False
    # PHP writes $2y$, the same algorithm as $2b$.
    normalized = stored_hash.replace("$2y$", "$2b$", 1).encode()
    try:
        return bcrypt.checkpw(password.encode()[:MAX_BYTES], normalized)
    except ValueError:
        return False
