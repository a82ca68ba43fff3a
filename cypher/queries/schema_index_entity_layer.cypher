// EntitiesByLayer filters on layer.
CREATE RANGE INDEX entity_layer IF NOT EXISTS
FOR (e:Entity) ON (e.layer)
