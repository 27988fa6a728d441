// The settings of a deployment with several nodes: where files live (WOS_ASSET_STORAGE and WOS_S3_*) and
// which proxies in front of the nodes are trusted to name the client (WOS_TRUST_PROXY).
import net from 'node:net';

type Env = Record<string, string | undefined>;

export interface S3Settings {
  /** Endpoint of an S3-compatible service (WOS_S3_ENDPOINT); unset: AWS S3 of the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** With the secret, the credentials of every request; unset: the SDK's default chain (AWS_* variables, roles). */
  accessKeyId: string | undefined;
  /** A secret: never logged (the storage driver keeps it in a private field). */
  secretAccessKey: string | undefined;
  /** Bucket in the path (http://host/bucket/key) instead of the host name: most self-hosted services need it. */
  forcePathStyle: boolean;
}

export interface StorageSettings {
  assetStorage: 'local' | 's3';
  /** WOS_ASSET_STORAGE was set: local disk on PostgreSQL is then a choice (a shared filesystem), not a default. */
  assetStorageExplicit: boolean;
  s3: S3Settings | undefined;
}

/** S3 copies one object in one request up to 5 GiB; completing an upload moves its bytes with a copy. */
export const S3_MAX_COPY_BYTES = 5 * 1024 ** 3;

const flag = (value: string | undefined) => ['true', '1', 'yes', 'on'].includes((value ?? '').toLowerCase());

export function storageSettings(env: Env): StorageSettings {
  const chosen = (env.WOS_ASSET_STORAGE ?? '').trim().toLowerCase();
  if (chosen !== '' && chosen !== 'local' && chosen !== 's3')
    throw new Error('WOS_ASSET_STORAGE must be local or s3');
  if (chosen !== 's3')
    return { assetStorage: 'local', assetStorageExplicit: chosen === 'local', s3: undefined };
  const bucket = env.WOS_S3_BUCKET?.trim();
  if (!bucket) throw new Error('WOS_ASSET_STORAGE=s3 needs WOS_S3_BUCKET');
  const endpoint = env.WOS_S3_ENDPOINT?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint))
    throw new Error('WOS_S3_ENDPOINT must be an http:// or https:// URL');
  const accessKeyId = env.WOS_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.WOS_S3_SECRET_ACCESS_KEY || undefined;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new Error(
      'WOS_S3_ACCESS_KEY_ID and WOS_S3_SECRET_ACCESS_KEY go together: set both, or neither to use the ' +
        "AWS SDK's default credentials (AWS_* variables, instance roles)",
    );
  return {
    assetStorage: 's3',
    assetStorageExplicit: true,
    s3: {
      endpoint,
      region: env.WOS_S3_REGION?.trim() || 'us-east-1',
      bucket,
      accessKeyId,
      secretAccessKey,
      forcePathStyle: flag(env.WOS_S3_FORCE_PATH_STYLE),
    },
  };
}

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry) || net.isIP(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !address || !bits || !/^\d{1,3}$/.test(bits)) return false;
  const family = net.isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * WOS_TRUST_PROXY as Fastify's trustProxy: a hop count (the number of proxies in front of the node, 0: none)
 * or a comma-separated list of the proxies' addresses and CIDR ranges. Unset: the peer address is the client.
 * `true` (any sender is a proxy) is refused: a client could name any address in X-Forwarded-For.
 */
export function trustProxy(value: string | undefined): number | string[] | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) === 0 ? undefined : Number(text);
  if (['true', 'yes', 'on', 'all', '*'].includes(text.toLowerCase()))
    throw new Error(
      'WOS_TRUST_PROXY must say which proxies to trust: their number in front of wos (1 for one load ' +
        'balancer) or their addresses (10.0.0.0/8,192.0.2.7); trusting every sender would let any client ' +
        'choose the address it is seen from',
    );
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !isAddressOrRange(entry));
  if (wrong !== undefined)
    throw new Error(
      `WOS_TRUST_PROXY: "${wrong}" is not an IP address or CIDR range; give a hop count or a ` +
        'comma-separated list of addresses and ranges (loopback, linklocal and uniquelocal name ranges too)',
    );
  return entries;
}

/**
 * The warning a PostgreSQL node on local disk logs at start: other nodes of the database cannot read its
 * files. Not when WOS_ASSET_STORAGE=local was chosen (a filesystem every node mounts).
 */
export function perNodeFilesWarning(
  settings: StorageSettings,
  dialect: 'sqlite' | 'postgres',
): string | undefined {
  if (dialect !== 'postgres' || settings.assetStorage !== 'local' || settings.assetStorageExplicit) return;
  return (
    "asset uploads and BI export files are stored on this node's disk (WOS_DATA_DIR/assets): with several " +
    'nodes on this database, a file written on one node is missing on the others. Set WOS_ASSET_STORAGE=s3 ' +
    'with WOS_S3_BUCKET (see docs/scaling.md), or WOS_ASSET_STORAGE=local if this is one node or every node ' +
    'mounts the same directory.'
  );
}

/**
 * Fastify's trustProxy for the setting. A hop count becomes a function: Fastify 5 treats a bare number as
 * trusting no one (a client reaching the node directly could claim enough hops), so a hop count is for
 * nodes that only the proxies can reach (docs/scaling.md); addresses are the safer setting.
 */
export function fastifyTrustProxy(
  setting: number | string[] | undefined,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (setting === undefined) return false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}
