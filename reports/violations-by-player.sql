-- title: Violations by player
-- description: Per player: hands dealt in, violations and warnings named against them, rate per 100 hands, commonest rule.
WITH played AS (
    SELECT player, count(*) AS hands_played
    FROM seats
    WHERE dealt_in
    GROUP BY player
), per_rule AS (
    SELECT player, rule, count(*) AS n
    FROM findings
    WHERE player IS NOT NULL AND severity = 'violation'
    GROUP BY player, rule
), named AS (
    SELECT player,
           count(*) FILTER (WHERE severity = 'violation') AS violations,
           count(*) FILTER (WHERE severity = 'warning')   AS warnings,
           count(DISTINCT hand_key)                       AS hands_with_findings
    FROM findings
    WHERE player IS NOT NULL
    GROUP BY player
)
SELECT n.player,
       coalesce(p.hands_played, 0)                                       AS hands_played,
       n.violations,
       n.warnings,
       n.hands_with_findings,
       round(100.0 * n.violations / nullif(p.hands_played, 0), 2)        AS violations_per_100_hands,
       (SELECT first(r.rule ORDER BY r.n DESC, r.rule) FROM per_rule AS r
        WHERE r.player = n.player)                                       AS commonest_rule
FROM named AS n
LEFT JOIN played AS p USING (player)
ORDER BY n.violations DESC, n.warnings DESC, n.player;
