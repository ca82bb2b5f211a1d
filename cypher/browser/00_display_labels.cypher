// graphmem: label memories by tier, status and importance (run first)
// Browser styles nodes by label only, so this gives each memory of project
// $project_id a label for its tier (Working, Episodic, Semantic, Procedural,
// Archived), Candidate while it awaits review, and an importance band
// (ImportanceLow < 0.3 <= ImportanceMid < 0.6 <= ImportanceHigh < 0.8 <=
// ImportanceTop) for graphmem.grass to colour and size. graphmem itself reads
// none of these labels; run this again to refresh them.
// Before: :param project_id => 'default'
MATCH (m:Memory {project_id: $project_id})
REMOVE m:Working:Episodic:Semantic:Procedural:Archived:Candidate
REMOVE m:ImportanceLow:ImportanceMid:ImportanceHigh:ImportanceTop
WITH m, coalesce(m.tier, 'working') AS tier, coalesce(m.importance, 0.0) AS importance
FOREACH (_ IN CASE WHEN tier = 'working' THEN [1] ELSE [] END | SET m:Working)
FOREACH (_ IN CASE WHEN tier = 'episodic' THEN [1] ELSE [] END | SET m:Episodic)
FOREACH (_ IN CASE WHEN tier = 'semantic' THEN [1] ELSE [] END | SET m:Semantic)
FOREACH (_ IN CASE WHEN tier = 'procedural' THEN [1] ELSE [] END | SET m:Procedural)
FOREACH (_ IN CASE WHEN tier = 'archived' THEN [1] ELSE [] END | SET m:Archived)
FOREACH (_ IN CASE WHEN m.status = 'candidate' THEN [1] ELSE [] END | SET m:Candidate)
FOREACH (_ IN CASE WHEN importance < 0.3 THEN [1] ELSE [] END | SET m:ImportanceLow)
FOREACH (_ IN CASE WHEN 0.3 <= importance < 0.6 THEN [1] ELSE [] END | SET m:ImportanceMid)
FOREACH (_ IN CASE WHEN 0.6 <= importance < 0.8 THEN [1] ELSE [] END | SET m:ImportanceHigh)
FOREACH (_ IN CASE WHEN importance >= 0.8 THEN [1] ELSE [] END | SET m:ImportanceTop)
RETURN tier, count(m) AS memories
ORDER BY tier
