// The strongest relevance evidence seen is kept.
MATCH (m:Memory {id: $id})
WHERE m.project_id = $project_id
  AND {{visible(m)}}
SET m.evaluator_relevance = CASE
      WHEN m.evaluator_relevance IS NULL OR m.evaluator_relevance < $relevance THEN $relevance
      ELSE m.evaluator_relevance END,
    m.updated_at = $now
RETURN {{memory_projection(m)}} AS memory
