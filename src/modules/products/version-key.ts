import semver from 'semver';

// A digits-only string whose plain string order is semantic-version precedence (SemVer 2.0.0 section 11),
// so releases page with a keyset over an ordinary indexed text column on SQLite and PostgreSQL alike
// (digits compare the same under every collation). Build metadata does not affect precedence.
//
//   key      = pad16(major) pad16(minor) pad16(patch) ( "9" | "1" prerelease )   a release sorts after its prereleases
//   prerelease = identifier...                                                    a longer list sorts after its prefix
//   identifier = "1" pad16(number)  |  "2" (rank of each character, 2 digits)... "00"
// Numeric identifiers sort before alphanumeric ones; alphanumeric ones compare character by character in
// ASCII order (the ranks keep it), and the "00" terminator makes a shorter identifier sort first.

const ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const pad = (value: number | string) => String(value).padStart(16, '0');

/** The version if it is a valid semantic version as written (no leading v, no spaces), else undefined. */
export function parseVersion(version: string): semver.SemVer | undefined {
  if (semver.valid(version) !== version.replace(/\+.*$/, '')) return undefined;
  const parsed = semver.parse(version);
  if (!parsed) return undefined;
  const tooBig = [parsed.major, parsed.minor, parsed.patch, ...parsed.prerelease].some(
    (part) => (typeof part === 'number' && !Number.isSafeInteger(part)) || /^\d{17,}$/.test(String(part)),
  );
  return tooBig ? undefined : parsed;
}

export function versionSortKey(version: semver.SemVer): string {
  const core = pad(version.major) + pad(version.minor) + pad(version.patch);
  if (!version.prerelease.length) return `${core}9`;
  const identifiers = version.prerelease.map((id) =>
    typeof id === 'number' || /^\d+$/.test(id)
      ? `1${pad(id)}`
      : `2${[...id].map((c) => String(ALPHABET.indexOf(c) + 10)).join('')}00`,
  );
  return `${core}1${identifiers.join('')}`;
}
