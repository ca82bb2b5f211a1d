// One knowledgeContext answer on record (as record_delivery.cypher writes it) and
// one retrieval counted on each memory it returned (as record_retrievals.cypher
// counts them), in one write: an answer costs one transaction, not two.
CREATE (:Delivery {{delivery_fields}})
WITH 1 AS recorded
MATCH (m:Memory)
WHERE m.id IN $ids
  AND m.project_id = $project_id
  AND {{visible(m)}}
SET m._lock = true
REMOVE m._lock
{{count_retrieval(m)}}
RETURN m.id AS id, retrievals AS retrieval_count
