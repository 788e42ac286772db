-- title: Violations by rule
-- description: Every rule broken, most frequent first: findings, hands, files and players per rule and severity.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
WITH f AS (
    SELECT * FROM finding_details AS x
    WHERE ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR x.profile = $profile)
      AND ($table_name IS NULL OR x.table_name = $table_name)
), h AS (
    SELECT count(*) AS hands FROM hand_details AS x
    WHERE x.audited AND ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR x.profile = $profile)
      AND ($table_name IS NULL OR x.table_name = $table_name)
)
SELECT f.rule,
       f.severity,
       count(*)                                                        AS findings,
       count(DISTINCT f.hand_key)                                      AS hands,
       count(DISTINCT f.file_sha)                                      AS files,
       count(DISTINCT f.player)                                        AS players,
       round(100.0 * count(DISTINCT f.hand_key)
             / nullif(any_value(h.hands), 0), 2)                       AS pct_of_hands
FROM f, h
GROUP BY f.rule, f.severity
ORDER BY CASE f.severity WHEN 'violation' THEN 0 WHEN 'error' THEN 1 ELSE 2 END, findings DESC, f.rule;
