-- title: Violations by table and week
-- description: Per table and week (Monday) of play: hands, violations, warnings and violations per 100 hands.
WITH per_hand AS (
    SELECT hand_key,
           count(*) FILTER (WHERE severity = 'violation') AS violations,
           count(*) FILTER (WHERE severity = 'warning')   AS warnings
    FROM findings
    WHERE hand_key IS NOT NULL
    GROUP BY hand_key
)
SELECT h.table_name,
       CAST(date_trunc('week', h.started_at) AS DATE)                         AS week,
       count(*)                                                              AS hands,
       coalesce(sum(ph.violations), 0)                                       AS violations,
       coalesce(sum(ph.warnings), 0)                                         AS warnings,
       count(*) FILTER (WHERE ph.violations > 0)                             AS hands_with_violations,
       round(100.0 * coalesce(sum(ph.violations), 0) / count(*), 2)          AS violations_per_100_hands
FROM hands AS h
LEFT JOIN per_hand AS ph USING (hand_key)
GROUP BY h.table_name, week
ORDER BY week NULLS LAST, h.table_name;
