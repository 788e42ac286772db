-- title: Rule-violation rate by profile
-- description: Per profile and dialect (house or site): hands, violations and warnings per 100 hands, share of hands with a violation.
WITH per_hand AS (
    SELECT hand_key,
           count(*) FILTER (WHERE severity = 'violation') AS violations,
           count(*) FILTER (WHERE severity = 'warning')   AS warnings
    FROM findings
    WHERE hand_key IS NOT NULL
    GROUP BY hand_key
)
SELECT h.profile,
       h.dialect,
       count(*)                                                         AS hands,
       coalesce(sum(ph.violations), 0)                                  AS violations,
       round(100.0 * coalesce(sum(ph.violations), 0) / count(*), 2)     AS violations_per_100_hands,
       round(100.0 * coalesce(sum(ph.warnings), 0) / count(*), 2)       AS warnings_per_100_hands,
       round(100.0 * count(*) FILTER (WHERE ph.violations > 0) / count(*), 2) AS pct_hands_with_violation
FROM hands AS h
LEFT JOIN per_hand AS ph USING (hand_key)
GROUP BY h.profile, h.dialect
ORDER BY h.profile, h.dialect;
