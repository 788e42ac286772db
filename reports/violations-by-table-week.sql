-- title: Violations by table and week
-- description: Per table and week (Monday) of play: hands, violations, warnings and violations per 100 hands.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
SELECT h.table_name,
       h.week,
       count(*)                                                              AS hands,
       sum(h.violations)                                                     AS violations,
       sum(h.warnings)                                                       AS warnings,
       count(*) FILTER (WHERE h.violations > 0)                              AS hands_with_violations,
       round(100.0 * sum(h.violations) / count(*), 2)                        AS violations_per_100_hands
FROM hand_details AS h
WHERE h.audited AND ($from_date IS NULL OR h.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR h.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR h.profile = $profile)
  AND ($table_name IS NULL OR h.table_name = $table_name)
GROUP BY h.table_name, h.week
ORDER BY h.week NULLS LAST, h.table_name;
