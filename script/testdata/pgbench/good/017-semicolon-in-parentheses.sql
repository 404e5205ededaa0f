CREATE TEMP TABLE gbench_rule_t(a int);
CREATE RULE gbench_rule_r AS ON INSERT TO gbench_rule_t DO INSTEAD (SELECT 1; SELECT 2);
INSERT INTO gbench_rule_t VALUES (1);
