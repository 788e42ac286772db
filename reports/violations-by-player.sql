-- title: Violations by player
-- description: Per player: hands dealt in, violations and warnings named against them, violations per 100 hands played, commonest rule.
-- param: from_date DATE the first day of play to count
-- param: to_date DATE the last day of play to count
-- param: profile VARCHAR only hands audited under this profile
-- param: table_name VARCHAR only this table's hands
-- Findings about a whole session (STANDINGS) count for the player they name, beside those in the hands.
WITH played AS (
    SELECT player, count(*) AS hands_played
    FROM player_hands AS x
    WHERE ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
      AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
      AND ($profile IS NULL OR x.profile = $profile)
      AND ($table_name IS NULL OR x.table_name = $table_name)
    GROUP BY player
), named AS (
    SELECT player,
           count(*) FILTER (WHERE severity = 'violation')                        AS violations,
           count(*) FILTER (WHERE severity = 'warning')                          AS warnings,
           count(DISTINCT hand_key)                                              AS hands_with_findings,
           first(rule ORDER BY count_by_rule DESC, rule) FILTER (WHERE severity = 'violation') AS commonest_rule
    FROM (SELECT *, count(*) FILTER (WHERE severity = 'violation') OVER (PARTITION BY player, rule) AS count_by_rule
          FROM finding_details AS x
          WHERE x.player IS NOT NULL AND ($from_date IS NULL OR x.play_date >= CAST($from_date AS DATE))
            AND ($to_date IS NULL OR x.play_date <= CAST($to_date AS DATE))
            AND ($profile IS NULL OR x.profile = $profile)
            AND ($table_name IS NULL OR x.table_name = $table_name))
    GROUP BY player
)
SELECT n.player,
       coalesce(p.hands_played, 0)                                       AS hands_played,
       n.violations,
       n.warnings,
       n.hands_with_findings,
       round(100.0 * n.violations / nullif(p.hands_played, 0), 2)        AS violations_per_100_hands,
       n.commonest_rule
FROM named AS n
LEFT JOIN played AS p USING (player)
ORDER BY n.violations DESC, n.warnings DESC, n.player;
