-- title: Rule-violation rate by profile
-- description: Per profile and dialect (house or a site's): hands, violations and warnings per 100 hands, share of hands with a violation.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
SELECT h.profile,
       h.dialect,
       count(*)                                                         AS hands,
       sum(h.violations)                                                AS violations,
       round(100.0 * sum(h.violations) / count(*), 2)                   AS violations_per_100_hands,
       round(100.0 * sum(h.warnings) / count(*), 2)                     AS warnings_per_100_hands,
       round(100.0 * count(*) FILTER (WHERE h.violations > 0) / count(*), 2) AS pct_hands_with_violation
FROM hand_details AS h
WHERE h.audited AND ($from_date IS NULL OR h.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR h.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR h.profile = $profile)
  AND ($table_name IS NULL OR h.table_name = $table_name)
GROUP BY h.profile, h.dialect
ORDER BY h.profile, h.dialect;
