"""Raw RFC 5322 messages for the archive's tests: what Mailman POSTs, what live mail and an mbox
hold. Headers come in one order (From, To, Subject, Message-ID, In-Reply-To, Date, the extra ones,
then the MIME ones); a header given None is left out. A str is written as UTF-8, bytes as they are
(for 8-bit headers that are no UTF-8)."""

from __future__ import annotations

DATE = "Mon, 01 Jan 2001 10:00:00 +0000"


def raw_message(
    message_id: str | bytes,
    *,
    sender: str = "Ann Example <ann@example.com>",
    to: str | None = None,
    subject: str | None = "hello",
    reply_to: str | None = None,
    date: str | None = DATE,
    headers: tuple[str | bytes, ...] = (),
    content_type: str | None = None,
    transfer_encoding: str | None = None,
    body: str | bytes = "Body text\n",
    newline: str = "\n",
    envelope: str | None = None,
) -> bytes:
    """One message, `<message_id>` in its Message-ID and `<reply_to>` in its In-Reply-To. With
    `content_type`, a MIME-Version and that Content-Type; with `envelope`, an mbox "From " line
    first (e.g. "From ann@example.com Mon Jan  6 10:00:00 2020")."""
    lines: list[str | bytes] = [
        envelope,
        f"From: {sender}",
        to and f"To: {to}",
        subject is not None and f"Subject: {subject}",
        b"Message-ID: <" + _bytes(message_id) + b">",
        reply_to and f"In-Reply-To: <{reply_to}>",
        date and f"Date: {date}",
        *headers,
        content_type and "MIME-Version: 1.0",
        content_type and f"Content-Type: {content_type}",
        transfer_encoding and f"Content-Transfer-Encoding: {transfer_encoding}",
    ]
    end = newline.encode()
    return b"".join(_bytes(line) + end for line in lines if line) + end + _bytes(body)


def _bytes(text: str | bytes) -> bytes:
    return text.encode() if isinstance(text, str) else text


def many_parts_message(message_id: str, attachments: int, *, to: str = "dev@example.org") -> bytes:
    """A multipart/mixed message of a text part then `attachments` tiny attached text/plain parts
    (`f<n>.txt`, the text `part <n>`): the shape that stalled the service in issue 40. In walk order
    the message is part 0, its text part 1, attachment n part n + 1."""
    parts = [f"--B\nContent-Type: text/plain\n\nsee {attachments} attachments\n"]
    parts += [
        f"--B\nContent-Type: text/plain\nContent-Disposition: attachment; filename=f{n}.txt\n\npart {n}\n"
        for n in range(1, attachments + 1)
    ]
    return raw_message(message_id, to=to, content_type='multipart/mixed; boundary="B"', body="".join(parts) + "--B--\n")
