MERGE (v:GraphmemSchema {id: 'graphmem'})
SET v.version = $version, v.migrated_at = $now
RETURN v.version AS version
