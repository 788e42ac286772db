-- title: Sessions whose standings disagree
-- description: Sessions whose announced standings do not match the balances the hands give (STANDINGS findings), one row per session.
WITH session_hands AS (
    SELECT file_sha, session, count(*) AS hands, min(started_at) AS started_at
    FROM hands
    WHERE session IS NOT NULL
    GROUP BY file_sha, session
)
SELECT f.file,
       f.session,
       sh.started_at,
       sh.hands,
       count(*)                                                          AS disagreements,
       string_agg(coalesce(f.player, '?') || ': announced ' || coalesce(f.actual, '?') || ', hands give '
                  || coalesce(f.expected, '?'), '; ' ORDER BY f.line)    AS details,
       min(f.line)                                                       AS first_line
FROM findings AS f
LEFT JOIN session_hands AS sh ON sh.file_sha = f.file_sha AND sh.session IS NOT DISTINCT FROM f.session
WHERE f.rule = 'STANDINGS'
GROUP BY f.file, f.file_sha, f.session, sh.started_at, sh.hands
ORDER BY disagreements DESC, f.file, f.session;
