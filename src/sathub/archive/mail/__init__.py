"""Pure mail rules: identifiers, senders, dates, charsets, content, threading. No I/O."""
