"""Fault and soak runs of interface A (issue 14, "Proven under faults"): each prints a markdown table,
keeps it in bench/out/faults_*.md with the server's log beside it, and exits 1 when a check fails."""
