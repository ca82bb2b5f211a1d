// Deliveries stored, per project (the graphmem_deliveries_stored gauge).
MATCH (d:Delivery)
RETURN d.project_id AS project_id, count(d) AS deliveries
