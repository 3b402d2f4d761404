// The scale feature's public surface (`toolhost/features/scale`): Redis-backed background work past one process.
export { scaleFeature } from './scaleFeature';
export { scaleConfig, ScaleConfigSchema, type ScaleConfig } from './scaleConfig';
