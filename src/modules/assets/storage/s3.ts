// Asset bytes in an S3-compatible bucket that every node of a deployment shares. Writes stream through
// a multipart upload (parts of PART_BYTES held in memory one at a time; a small object is one PutObject), so
// an object appears whole or not at all. Clients never see the bucket: the signed URLs are the service's
// own and it streams the bytes itself, so object keys (workspace/asset) never leave the service.
import type { Readable } from 'node:stream';
import type { CompletedPart, ListMultipartUploadsCommandOutput, S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../../../deployment-config.ts';
import { type AssetStorage, assertKey, KEY_PATTERN, meter } from './storage.ts';

type Sdk = typeof import('@aws-sdk/client-s3');

/** Bytes of one part of a multipart upload (S3 wants at least 5 MiB for all but the last). */
export const PART_BYTES = 8 * 1024 * 1024;

// The SDK is loaded by the first node that uses S3, not by every start.
let sdkLoading: Promise<Sdk> | undefined;
const loadSdk = () => {
  sdkLoading ??= import('@aws-sdk/client-s3');
  return sdkLoading;
};

const errorName = (error: unknown) => (error as { name?: string } | null)?.name;
const isMissing = (error: unknown) => ['NoSuchKey', 'NotFound'].includes(errorName(error) ?? '');

export class S3Storage implements AssetStorage {
  readonly shared = true;
  // Private fields: the settings (and the secret among them) never reach a log line or a JSON dump.
  readonly #settings: S3Settings;
  readonly #partBytes: number;
  #client: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(settings: S3Settings, options: { partBytes?: number } = {}) {
    this.#settings = settings;
    this.#partBytes = options.partBytes ?? PART_BYTES;
  }

  get bucket(): string {
    return this.#settings.bucket;
  }

  #connect() {
    this.#client ??= loadSdk().then((sdk) => {
      const { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } = this.#settings;
      const client = new sdk.S3Client({
        region,
        forcePathStyle,
        ...(endpoint ? { endpoint } : {}),
        ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
        // Checksums only where S3 requires them: bodies are plain buffers with a Content-Length, never
        // aws-chunked streams (which some S3-compatible servers store framing and all).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    });
    return this.#client;
  }

  async write(key: string, body: Readable, maxBytes: number) {
    assertKey(key);
    const { sdk, client } = await this.#connect();
    const Bucket = this.bucket;
    const metered = meter(body, maxBytes);
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = () => {
      const part = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return part;
    };
    const uploadPart = async () => {
      if (!uploadId) {
        const created = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket, Key: key }));
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const part = take();
      const { ETag } = await client.send(
        new sdk.UploadPartCommand({
          Bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber,
          Body: part,
          ContentLength: part.length,
        }),
      );
      parts.push({ ETag, PartNumber });
    };
    try {
      // Reading waits while a part uploads: the body is paused meanwhile (backpressure).
      for await (const chunk of metered.stream) {
        pending.push(chunk as Buffer);
        pendingBytes += (chunk as Buffer).length;
        if (pendingBytes >= this.#partBytes) await uploadPart();
      }
      if (uploadId === undefined) {
        const whole = take();
        await client.send(
          new sdk.PutObjectCommand({ Bucket, Key: key, Body: whole, ContentLength: whole.length }),
        );
      } else {
        if (pendingBytes > 0) await uploadPart();
        await client.send(
          new sdk.CompleteMultipartUploadCommand({
            Bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      }
      return metered.digest();
    } catch (error) {
      metered.detach();
      // What an abort leaves (a server without AbortMultipartUpload) goes with the stale sweep.
      if (uploadId !== undefined)
        await client
          .send(new sdk.AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId }))
          .catch(() => {});
      throw error;
    } finally {
      metered.detach();
    }
  }

  async read(key: string) {
    assertKey(key);
    const { sdk, client } = await this.#connect();
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return { stream: object.Body as Readable, sizeBytes: object.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** A server-side copy (the target appears whole), then the source is deleted. */
  async move(from: string, to: string) {
    assertKey(from);
    assertKey(to);
    const { sdk, client } = await this.#connect();
    try {
      await client.send(
        new sdk.CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${from}` }),
      );
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    await this.remove(from);
    return true;
  }

  async remove(key: string) {
    assertKey(key);
    const { sdk, client } = await this.#connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async list(prefix: string) {
    assertKey(prefix);
    const { sdk, client } = await this.#connect();
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix}/`, ContinuationToken }),
      );
      for (const object of page.Contents ?? [])
        if (object.Key && KEY_PATTERN.test(object.Key)) keys.push(object.Key);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  }

  /**
   * Aborts the bucket's multipart uploads started before olderThan (all without it). A server that cannot
   * list them (NotImplemented) has nothing to abort here: a lifecycle rule then bounds them (docs/scaling.md).
   */
  async removePartials(olderThan?: Date) {
    const { sdk, client } = await this.#connect();
    let removed = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    for (;;) {
      let page: ListMultipartUploadsCommandOutput;
      try {
        page = await client.send(
          new sdk.ListMultipartUploadsCommand({ Bucket: this.bucket, KeyMarker, UploadIdMarker }),
        );
      } catch (error) {
        if (errorName(error) === 'NotImplemented') return removed;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !KEY_PATTERN.test(upload.Key)) continue;
        if (olderThan && (!upload.Initiated || upload.Initiated >= olderThan)) continue;
        await client.send(
          new sdk.AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: upload.Key,
            UploadId: upload.UploadId,
          }),
        );
        removed++;
      }
      if (!page.IsTruncated) return removed;
      KeyMarker = page.NextKeyMarker;
      UploadIdMarker = page.NextUploadIdMarker;
    }
  }

  async verify() {
    const { sdk, client } = await this.#connect();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      // A HEAD answer has no body: the status says what went wrong.
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const reason =
        status === 403
          ? 'HTTP 403, access denied: check WOS_S3_ACCESS_KEY_ID and WOS_S3_SECRET_ACCESS_KEY'
          : status === 404
            ? 'HTTP 404, no such bucket: create it'
            : status === 301
              ? 'HTTP 301, the bucket is in another region: check WOS_S3_REGION'
              : `${errorName(error) ?? 'error'}: ${(error as Error).message}`;
      throw new Error(
        `WOS_ASSET_STORAGE=s3: the bucket "${this.bucket}" at ${this.#settings.endpoint ?? 'AWS S3'} ` +
          `cannot be used (${reason}). Check WOS_S3_ENDPOINT, WOS_S3_BUCKET, WOS_S3_REGION and ` +
          'WOS_S3_FORCE_PATH_STYLE.',
      );
    }
  }

  close() {
    void this.#client?.then(({ client }) => client.destroy());
    this.#client = undefined;
  }
}
