import 'reflect-metadata';
const base = '/work/main/node_modules/@inversifyjs/container/lib/container/services/';
const core = await import('@inversifyjs/core');
const { ServiceReferenceManager } = await import(base + 'ServiceReferenceManager.js');
const { ServiceResolutionManager } = await import('/tmp/srm/srm.mjs');
for (let k = 0; k < 20000; k++) {
  const srm = new ServiceReferenceManager(core.ActivationsService.build(() => undefined), core.BindingService.build(() => undefined, undefined), core.DeactivationsService.build(() => undefined), new core.PlanResultCacheService(false));
  new ServiceResolutionManager({}, srm, false, 'Transient', false);
  if (k % 10 === 0) await new Promise((r) => setImmediate(r));
}
