"""All of interface A's SQL, by topic. Functions take a Connection and know nothing of HTTP."""
