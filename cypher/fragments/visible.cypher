// Whether the acting agent may read `@` (graphmem.domain.viewer): it is shared, or
// private to $viewer, or the call acts as no agent ($viewer null) and sees the
// whole project. `{{visible(m)}}` is a boolean, parenthesised.
($viewer IS NULL OR coalesce(@.visibility, 'shared') = 'shared' OR @.agent_id = $viewer)
