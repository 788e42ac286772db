-- title: Findings by rule, profile and week
-- description: Per rule, profile and week (Monday) of play: findings, hands with the rule broken, hands played that week under the profile, and findings per 100 hands.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
WITH played AS (
    SELECT profile, week, count(*) AS hands_played
    FROM hand_details AS x
    WHERE x.audited AND ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR x.profile = $profile)
      AND ($table_name IS NULL OR x.table_name = $table_name)
    GROUP BY profile, week
)
SELECT f.rule,
       f.severity,
       f.profile,
       f.week,
       count(*)                                                         AS findings,
       count(DISTINCT f.hand_key)                                       AS hands,
       coalesce(any_value(p.hands_played), 0)                           AS hands_played,
       round(100.0 * count(*) / nullif(any_value(p.hands_played), 0), 2) AS findings_per_100_hands
FROM finding_details AS f
LEFT JOIN played AS p ON p.profile = f.profile AND p.week IS NOT DISTINCT FROM f.week
WHERE ($from_date IS NULL OR f.play_date >= CAST($from_date AS DATE))
  AND ($to_date IS NULL OR f.play_date <= CAST($to_date AS DATE))
  AND ($profile IS NULL OR f.profile = $profile)
  AND ($table_name IS NULL OR f.table_name = $table_name)
GROUP BY f.rule, f.severity, f.profile, f.week
ORDER BY f.week NULLS LAST, f.profile, findings DESC, f.rule;
