OPTIONAL MATCH (v:GraphmemSchema {id: 'graphmem'})
RETURN coalesce(v.version, 0) AS version
