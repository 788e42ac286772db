"""The replay engine: one hand replayed under a profile (what is legal now, what happened, what was wrong), and
the session rules across hands."""
