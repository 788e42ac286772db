-- title: Sessions whose standings disagree
-- description: Sessions whose announced standings do not match the balances the hands give (STANDINGS findings), one row per session.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
SELECT f.file,
       f.session,
       any_value(s.first_hand)                                           AS started_at,
       any_value(s.hands)                                                AS hands,
       count(*)                                                          AS disagreements,
       string_agg(coalesce(f.player, '?') || ': announced ' || coalesce(f.actual, '?') || ', hands give '
                  || coalesce(f.expected, '?'), '; ' ORDER BY f.line)    AS details,
       min(f.line)                                                       AS first_line
FROM finding_details AS f
LEFT JOIN session_details AS s ON s.file_sha = f.file_sha AND s.session = f.session
WHERE f.rule = 'STANDINGS' AND ($from_date IS NULL OR f.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR f.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR f.profile = $profile)
  AND ($table_name IS NULL OR f.table_name = $table_name)
GROUP BY f.file, f.file_sha, f.session
ORDER BY disagreements DESC, f.file, f.session;
