// Weakly connected components of the projection, written to Entity.componentId with
// consecutive ids from 0. Single-threaded so that ids are reproducible.
// @param graphName STRING
CALL gds.wcc.write($graphName, {writeProperty: 'componentId', consecutiveIds: true, concurrency: 1})
YIELD componentCount, nodePropertiesWritten
RETURN componentCount, nodePropertiesWritten
