import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { parseVersion, versionSortKey } from './version-key.ts';

const key = (v: string) => versionSortKey(parseVersion(v)!);

describe('versionSortKey', () => {
  it('orders keys as semver precedence', () => {
    const versions = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.2.0',
      '1.10.0',
      '2.0.0-0',
      '2.0.0-1',
      '2.0.0-a',
      '2.0.0-a-b',
      '2.0.0-aa',
      '2.0.0-A',
      '2.0.0',
      '10.0.0',
      '10.0.0-x.1.Z',
      '123456789012.0.0',
    ];
    const bySemver = [...versions].sort(semver.compare);
    const byKey = [...versions].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(byKey).toEqual(bySemver);
  });

  it('keys contain digits only', () => {
    expect(key('1.0.0-Beta-x.7')).toMatch(/^\d+$/);
  });

  it('accepts only versions written as semver', () => {
    for (const ok of ['0.0.1', '1.2.3-rc.1', '1.2.3+build.5', '1.2.3-alpha+001'])
      expect(parseVersion(ok), ok).toBeDefined();
    for (const bad of [
      'v1.2.3',
      '1.2',
      '1.02.3',
      ' 1.2.3',
      '1.2.3-',
      '1.2.3.4',
      'latest',
      '99999999999999999.0.0',
    ]) {
      expect(parseVersion(bad), bad).toBeUndefined();
    }
  });
});
