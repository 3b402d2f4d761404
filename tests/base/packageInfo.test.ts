import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { packageVersion } from '../../src/base/packageInfo';

test('packageVersion() is the version in package.json, found from wherever the module sits', () => {
  const pkg = JSON.parse(fs.readFileSync(nodePath.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
  expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(packageVersion()).toBe(pkg.version);
});
