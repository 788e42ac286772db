-- title: Sessions
-- description: One row per session: file, profile, table, hands, players, first and last hand, violations, whether the standings disagree.
WITH per_hand AS (
    SELECT hand_key, count(*) FILTER (WHERE severity = 'violation') AS violations
    FROM findings
    WHERE hand_key IS NOT NULL
    GROUP BY hand_key
), standings AS (
    SELECT file_sha, session, count(*) AS disagreements
    FROM findings
    WHERE rule = 'STANDINGS'
    GROUP BY file_sha, session
), players AS (
    SELECT h.file_sha, h.session, count(DISTINCT s.player) AS players
    FROM hands AS h
    JOIN seats AS s ON s.hand_key = h.hand_key
    GROUP BY h.file_sha, h.session
)
SELECT h.file,
       h.session,
       string_agg(DISTINCT h.profile, ', ')                   AS profile,
       string_agg(DISTINCT h.table_name, ', ')                AS table_name,
       count(*)                                               AS hands,
       any_value(p.players)                                   AS players,
       min(h.started_at)                                      AS first_hand,
       max(h.started_at)                                      AS last_hand,
       coalesce(sum(ph.violations), 0)                        AS violations,
       coalesce(any_value(st.disagreements), 0) > 0           AS standings_disagree
FROM hands AS h
LEFT JOIN per_hand AS ph ON ph.hand_key = h.hand_key
LEFT JOIN players AS p ON p.file_sha = h.file_sha AND p.session IS NOT DISTINCT FROM h.session
LEFT JOIN standings AS st ON st.file_sha = h.file_sha AND st.session IS NOT DISTINCT FROM h.session
GROUP BY h.file, h.file_sha, h.session
ORDER BY first_hand NULLS LAST, h.file, h.session;
