// One knowledgeContext answer, on record: who asked (project, agent, session),
// when, the hint's digest (and its text when the setting keeps it), and the
// memories given as lists by rank (ids and scores): the record reads the same
// after a memory it names is forgotten, and writing it matches no node.
CREATE (d:Delivery {{delivery_fields}})
RETURN d.id AS id
