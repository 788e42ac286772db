-- title: Sessions
-- description: One row per session: file, profile, table, hands, players, first and last hand, violations, whether the standings disagree.
-- param: from_date DATE the first session date to count
-- param: to_date DATE the last session date to count
-- param: profile VARCHAR only sessions played under this profile
-- param: table_name VARCHAR only this table's sessions
WITH per_session AS (
    SELECT file_sha, session, sum(violations) AS violations
    FROM hand_details WHERE audited
    GROUP BY file_sha, session
), players AS (
    SELECT file_sha, session, count(DISTINCT player) AS players
    FROM player_hands
    GROUP BY file_sha, session
), standings AS (
    SELECT file_sha, session, count(*) AS disagreements
    FROM findings WHERE rule = 'STANDINGS'
    GROUP BY file_sha, session
)
SELECT s.file,
       s.session,
       s.profile,
       s.table_name,
       s.hands,
       coalesce(p.players, 0)                                 AS players,
       s.first_hand,
       s.last_hand,
       coalesce(v.violations, 0)                              AS violations,
       coalesce(st.disagreements, 0) > 0                      AS standings_disagree
FROM session_details AS s
LEFT JOIN per_session AS v ON v.file_sha = s.file_sha AND v.session IS NOT DISTINCT FROM s.session
LEFT JOIN players AS p ON p.file_sha = s.file_sha AND p.session IS NOT DISTINCT FROM s.session
LEFT JOIN standings AS st ON st.file_sha = s.file_sha AND st.session IS NOT DISTINCT FROM s.session
WHERE ($from_date IS NULL OR s.session_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR s.session_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR list_contains(string_split(s.profile, ', '), $profile))
  AND ($table_name IS NULL OR list_contains(string_split(s.table_name, ', '), $table_name))
ORDER BY s.first_hand NULLS LAST, s.file, s.session;
