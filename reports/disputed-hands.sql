-- title: Most disputed hands
-- description: The hands with the most findings (50 unless -p limit N), with their violations, warnings and the rules broken.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
-- param: limit INTEGER how many hands (default 50)
SELECT h.file,
       h.line,
       h.hand_id,
       h.session,
       h.table_name,
       h.started_at,
       count(*)                                             AS findings,
       count(*) FILTER (WHERE f.severity = 'violation')     AS violations,
       count(*) FILTER (WHERE f.severity = 'warning')       AS warnings,
       list(DISTINCT f.rule ORDER BY f.rule)                AS rules
FROM hand_details AS h
JOIN findings AS f ON f.hand_key = h.hand_key
WHERE h.audited AND ($from_date IS NULL OR h.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR h.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR h.profile = $profile)
  AND ($table_name IS NULL OR h.table_name = $table_name)
GROUP BY h.hand_key, h.file, h.line, h.hand_id, h.session, h.table_name, h.started_at
ORDER BY findings DESC, violations DESC, h.file, h.line
LIMIT coalesce(CAST($limit AS INTEGER), 50);
